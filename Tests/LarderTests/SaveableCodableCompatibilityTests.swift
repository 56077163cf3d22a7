import Foundation
import Larder
import Testing

/// User code written against 0.1 and 0.2 keeps compiling, and keeps choosing the same archiver,
/// now that each `Saveable`/`Codable` pair of entry points is two one-line shells over one body.
///
/// The code below is written as users wrote it (no archiver named; `as:` given or inferred), for
/// the three kinds of value type there are: `Codable` only (MessagePack), `Saveable` only (its own
/// archiver; it cannot be `Codable`), and both (its own archiver wins). The test target compiles
/// it, so an overload removed, renamed or made ambiguous fails the build; the expectations check
/// that each call still reads and writes with the archiver it always used (the format byte).
@Suite("Saveable and Codable: source compatibility")
struct SaveableCodableCompatibilityTests {
    struct Note: Codable, Equatable, Sendable, Persistable {
        var id: String
        var text: String
        static let collection = "notes"
    }

    /// Saveable and not Codable.
    struct Reading: Saveable, Equatable, Sendable, Persistable {
        var id: String
        var value: Int32
        static let collection = "readings"
        static var archiver: ReadingArchiver { ReadingArchiver() }
    }

    struct ReadingArchiver: Archiver {
        var format: ArchiveFormat { .custom(0x41) }
        func archive(_ reading: Reading, into bytes: inout [UInt8]) throws {
            bytes.append(UInt8(reading.id.utf8.count))
            bytes.append(contentsOf: reading.id.utf8)
            withUnsafeBytes(of: reading.value.bigEndian) { bytes.append(contentsOf: $0) }
        }
        func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Reading {
            guard format == self.format, let length = bytes.first.map(Int.init), bytes.count == 1 + length + 4 else {
                throw LarderError(.decodingFailed, "not a reading")
            }
            let id = String(decoding: bytes[1..<(1 + length)], as: UTF8.self)
            let value = Int32(bigEndian: UnsafeRawBufferPointer(rebasing: bytes[(1 + length)...]).loadUnaligned(as: Int32.self))
            return Reading(id: id, value: value)
        }
    }

    /// Both: its own archiver wins over MessagePack.
    struct Tag: Saveable, Codable, Equatable, Sendable {
        var name: String
        static var archiver: TagArchiver { TagArchiver() }
    }

    struct TagArchiver: Archiver {
        var format: ArchiveFormat { .custom(0x42) }
        func archive(_ tag: Tag, into bytes: inout [UInt8]) throws { bytes.append(contentsOf: tag.name.utf8) }
        func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Tag {
            guard format == self.format else { throw LarderError(.decodingFailed, "not a tag") }
            return Tag(name: String(decoding: bytes, as: UTF8.self))
        }
    }

    static func withStore(_ body: (Database) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-compat-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try Database(path: path)
        try body(db)
    }

    /// The transaction's object, metadata and row calls, each form.
    @Test func transactionCallsKeepTheirArchivers() throws {
        try Self.withStore { db in
            let note = Note(id: "n1", text: "milk")
            let reading = Reading(id: "r1", value: -7)
            let tag = Tag(name: "home")
            try db.write { txn throws in
                try txn.setObject(note, forKey: "n1", inCollection: "notes")
                try txn.setObject(reading, forKey: "r1", inCollection: "readings")
                try txn.setObject(tag, forKey: "t1", inCollection: "tags")
                try txn.setObject(note, forKey: "n2", inCollection: "notes", metadata: tag)
                try txn.setObject(reading, forKey: "r2", inCollection: "readings", metadata: note)
                try txn.replaceObject(Note(id: "n1", text: "oat milk"), forKey: "n1", inCollection: "notes")
                try txn.replaceObject(Reading(id: "r1", value: 8), forKey: "r1", inCollection: "readings")
                try txn.replaceMetadata(Tag(name: "work"), forKey: "n2", inCollection: "notes")
                try txn.replaceMetadata(reading, forKey: "n1", inCollection: "notes")
            }
            try db.read { txn throws in
                #expect(try txn.storedObject(forKey: "n1", inCollection: "notes")?.format == .messagePack)
                #expect(try txn.storedObject(forKey: "r1", inCollection: "readings")?.format == .custom(0x41))
                #expect(try txn.storedObject(forKey: "t1", inCollection: "tags")?.format == .custom(0x42))
                #expect(try txn.storedMetadata(forKey: "n2", inCollection: "notes")?.format == .custom(0x42))
                #expect(try txn.storedMetadata(forKey: "n1", inCollection: "notes")?.format == .custom(0x41))

                #expect(try txn.object(forKey: "n1", inCollection: "notes", as: Note.self)?.text == "oat milk")
                let r1: Reading? = try txn.object(forKey: "r1", inCollection: "readings")
                #expect(r1?.value == 8)
                #expect(try txn.object(at: YapDB.Index(collection: "tags", key: "t1"), as: Tag.self) == tag)
                #expect(try txn.objects(forKeys: ["n1", "n2", "none"], inCollection: "notes", as: Note.self).count == 2)
                #expect(try txn.objects(forKeys: ["r1", "r2"], inCollection: "readings", as: Reading.self)["r2"] == reading)
                #expect(try txn.objects(at: [YapDB.Index(collection: "tags", key: "t1")], as: Tag.self).values.first == tag)
                #expect(try txn.objects(at: [YapDB.Index(collection: "readings", key: "r1")], as: Reading.self).count == 1)
                #expect(try txn.metadata(forKey: "n2", inCollection: "notes", as: Tag.self) == Tag(name: "work"))
                #expect(try txn.metadata(forKey: "n1", inCollection: "notes", as: Reading.self) == reading)
                #expect(try txn.metadata(at: YapDB.Index(collection: "readings", key: "r2"), as: Note.self) == note)
                let row = try txn.row(forKey: "n2", inCollection: "notes", as: Note.self, metadata: Tag.self)
                #expect(row?.object == note && row?.metadata == Tag(name: "work"))
                let readingRow = try txn.row(forKey: "r2", inCollection: "readings", as: Reading.self, metadata: Note.self)
                #expect(readingRow?.object == reading && readingRow?.metadata == note)
            }
        }
    }

    /// Enumerations and collected reads, each form.
    @Test func enumerationsKeepTheirArchivers() throws {
        try Self.withStore { db in
            try db.write { txn throws in
                for i in 0..<3 {
                    try txn.setObject(Note(id: "n\(i)", text: "t\(i)"), forKey: "n\(i)", inCollection: "notes", metadata: Tag(name: "g\(i)"))
                    try txn.setObject(Reading(id: "r\(i)", value: Int32(i)), forKey: "r\(i)", inCollection: "readings")
                }
            }
            try db.read { txn throws in
                var notes: [String] = []
                try txn.enumerateObjects(inCollection: "notes", as: Note.self) { key, _, _ in notes.append(key) }
                var readings: [Int32] = []
                try txn.enumerateObjects(inCollection: "readings") { (_, reading: Reading, _) in readings.append(reading.value) }
                #expect(notes == ["n0", "n1", "n2"] && readings == [0, 1, 2])
                #expect(try txn.objects(inCollection: "notes", as: Note.self).map(\.object.text) == ["t0", "t1", "t2"])
                #expect(try txn.objects(inCollection: "readings", as: Reading.self, range: .prefix("r")).map(\.key) == ["r0", "r1", "r2"])
                var across: [YapDB.Index] = []
                try txn.enumerateObjects(inCollections: ["notes", "readings"], as: Note.self, where: { $0.collection == "notes" }) { index, _, _ in
                    across.append(index)
                }
                try txn.enumerateObjects(inCollections: ["readings"], as: Reading.self) { index, _, stop in
                    across.append(index)
                    stop = true
                }
                #expect(across.count == 4 && across.last == YapDB.Index(collection: "readings", key: "r0"))
                var rows: [String] = []
                try txn.enumerateRows(inCollection: "notes", as: Note.self, metadata: Tag.self) { key, _, tag, _ in rows.append("\(key):\(tag?.name ?? "-")") }
                try txn.enumerateRows(inCollection: "readings", as: Reading.self, metadata: Note.self) { key, _, note, _ in rows.append("\(key):\(note?.id ?? "-")") }
                #expect(rows == ["n0:g0", "n1:g1", "n2:g2", "r0:-", "r1:-", "r2:-"])
            }
        }
    }

    /// The `Persistable` conveniences on the database and the transaction, from synchronous code.
    static func synchronousPersistableCalls(_ db: Database) throws {
        try db.write(Note(id: "a", text: "one"), Note(id: "b", text: "two"))
        try db.write(Reading(id: "x", value: 1))
        #expect(try db.read(Note.self, key: "a")?.text == "one")
        #expect(try db.read(Reading.self, key: "x")?.value == 1)
        try db.read { txn throws in
            #expect(try txn.read(Note.self, id: "b")?.text == "two")
            #expect(try txn.read(Reading.self, id: "x")?.value == 1)
            #expect(try txn.storedObject(forKey: "x", inCollection: "readings")?.format == .custom(0x41))
        }
    }

    /// The `Persistable` conveniences, from synchronous and asynchronous code, and observation.
    @Test func persistableCallsKeepTheirArchivers() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-compat-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try Database(path: path)
        try Self.synchronousPersistableCalls(db)
        try await db.write(Note(id: "c", text: "three"))
        try await db.write(Reading(id: "y", value: 2))
        #expect(try db.read(Note.self, keys: ["a", "c"]).count == 2)
        #expect(try db.readAll(Reading.self).map(\.id) == ["x", "y"])
        var noteUpdates = db.observe(Note.self, id: "a").makeAsyncIterator()
        var readingUpdates = db.observe(Reading.self, id: "x").makeAsyncIterator()
        #expect(try await noteUpdates.next()??.text == "one")
        #expect(try await readingUpdates.next()??.value == 1)
    }
}
