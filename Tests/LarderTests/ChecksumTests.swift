import Foundation
import Testing
@testable import Larder

/// Opt-in value checksums (`Configuration.checksumsValues`): CRC-32C itself, the framing, what a
/// damaged value does to reads and to the structure check, and the store's format version.
@Suite("Checksums")
struct ChecksumTests {
    /// Caches off: values planted beneath the library must be read from the store, not the cache.
    static func configuration(checksums: Bool) -> Database.Configuration {
        var configuration = Database.Configuration()
        configuration.checksumsValues = checksums
        configuration.objectCacheLimit = 0
        configuration.metadataCacheLimit = 0
        return configuration
    }

    /// The stored bytes (framing included) of the object at `key`, as LMDB holds them.
    static func rawObject(_ db: Database, key: String, collection: String = Product.collection) throws -> [UInt8]? {
        try db.read { txn in
            try StorageKey.with(collection: collection, key: key, maxKeySize: 511, operation: "test") { storageKey in
                try txn.lmdb.get(txn.lmdb.databases.objects, key: storageKey).map { [UInt8]($0) }
            }
        }
    }

    /// Replaces the stored bytes of the object at `key` without going through the framing.
    static func plantObject(_ db: Database, key: String, bytes: [UInt8], collection: String = Product.collection) throws {
        try db.environment.write { lmdb in
            try StorageKey.with(collection: collection, key: key, maxKeySize: 511, operation: "test") { storageKey in
                try bytes.withUnsafeBytes { try lmdb.put(lmdb.databases.objects, key: storageKey, value: $0) }
            }
        }
    }

    static func formatVersion(_ db: Database) throws -> UInt32 { try db.statistics().formatVersion }

    // MARK: CRC-32C

    @Test func crc32cMatchesPublishedVectors() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8]()) == 0)
        // RFC 3720, appendix B.4.
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
        #expect(CRC32C.checksum((0..<32).reversed().map { UInt8($0) }) == 0x113F_DB5C)
        let readCommand: [UInt8] = [
            0x01, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
            0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ]
        #expect(CRC32C.checksum(readCommand) == 0xD996_3A56)
    }

    @Test func theEightByteLoopAgreesWithTheBytewiseDefinition() {
        func bitwise(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            }
            return ~crc
        }
        var random = SplitMix(seed: 3720)
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 511, 512, 1000] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(CRC32C.checksum(bytes) == bitwise(bytes), "length \(length)")
            // An unaligned start reads the same.
            let shifted = [0] + bytes
            let crc = shifted.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[1...])) }
            #expect(crc == bitwise(bytes), "length \(length), unaligned")
        }
    }

    // MARK: Framing

    @Test func checksummedValuesRoundTripAtEdgeSizes() throws {
        try withStore(Self.configuration(checksums: true)) { db, _ in
            for size in [0, 1, 511, 512, 70_000] {
                let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
                try db.write { try $0.setObject(bytes, forKey: "b\(size)", inCollection: "blobs", metadata: "m\(size)") }
                let raw = try #require(try Self.rawObject(db, key: "b\(size)", collection: "blobs"))
                #expect(raw.count == size + 6 && raw[0] == 0x3F && raw[5] == ArchiveFormat.raw.rawValue)
                #expect(UInt32(raw[1]) | UInt32(raw[2]) << 8 | UInt32(raw[3]) << 16 | UInt32(raw[4]) << 24 == CRC32C.checksum(Array(raw[5...])))
                try db.read { txn in
                    #expect(try txn.object(forKey: "b\(size)", inCollection: "blobs", as: [UInt8].self) == bytes)
                    #expect(try txn.metadata(forKey: "b\(size)", inCollection: "blobs", as: String.self) == "m\(size)")
                    let stored = try #require(try txn.storedObject(forKey: "b\(size)", inCollection: "blobs"))
                    #expect(stored.format == .raw && stored.bytes == bytes)
                }
            }
            let product = Product(id: "p1", name: "Hammer", price: 12.5, tags: ["tools"])
            try db.write { try $0.write(product) }
            try db.read { txn in
                #expect(try txn.object(forKey: "p1", inCollection: Product.collection, as: Product.self) == product)
                var seen: [Product] = []
                try txn.enumerateObjects(inCollection: Product.collection, as: Product.self) { _, value, _ in seen.append(value) }
                #expect(seen == [product])
            }
            #expect(try db.checkStructure().problems.isEmpty)
        }
    }

    @Test func anArchiverCannotUseTheChecksumFormatByte() throws {
        struct Reserved: Archiver {
            var format: ArchiveFormat { ArchiveFormat(rawValue: 0x3F) }
            func archive(_ value: [UInt8], into bytes: inout [UInt8]) throws { bytes.append(contentsOf: value) }
            func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> [UInt8] { [UInt8](bytes) }
        }
        for checksums in [false, true] {
            try withStore(Self.configuration(checksums: checksums)) { db, _ throws in
                #expect {
                    try db.write { try $0.setObject([1, 2, 3], forKey: "k", inCollection: "c", archiver: Reserved(), metadata: nil, metadataArchiver: RawBytesArchiver()) }
                } throws: { ($0 as? LarderError)?.code == .encodingFailed }
                #expect(try db.read { try $0.hasObject(forKey: "k", inCollection: "c") } == false)
            }
        }
    }

    // MARK: Damage

    @Test func aFlippedBitInAChecksummedValueIsCaughtByReadsAndTheCheck() throws {
        try withStore(Self.configuration(checksums: true), leavesDamage: true) { db, _ in
            let product = Product(id: "p1", name: "Hammer with a long handle", price: 12.5)
            try db.write { txn in
                try txn.write(product)
                try txn.write(Product(id: "p2", name: "Saw", price: 3))
            }
            let raw = try #require(try Self.rawObject(db, key: "p1"))
            for bit in [0, 3, 7] {
                for offset in [5, 6, raw.count / 2, raw.count - 1] {  // the format byte, the payload
                    var damaged = raw
                    damaged[offset] ^= 1 << bit
                    try Self.plantObject(db, key: "p1", bytes: damaged)
                    #expect {
                        try db.read { try $0.object(forKey: "p1", inCollection: Product.collection, as: Product.self) }
                    } throws: { error in
                        guard let error = error as? LarderError else { return false }
                        return error.code == .corrupted && error.message.contains("checksum") && error.index?.key == "p1"
                    }
                    #expect(throws: LarderError.self) { try db.read { try $0.storedObject(forKey: "p1", inCollection: Product.collection) } }
                    #expect(throws: LarderError.self) {
                        try db.read { try $0.enumerateObjects(inCollection: Product.collection, as: Product.self) { _, _, _ in } }
                    }
                    let report = try db.checkStructure()
                    #expect(report.problems.map(\.kind) == [.checksumMismatch], "\(report.problems)")
                    #expect(report.problems.first?.index?.key == "p1")
                }
            }
            // A damaged checksum itself is caught the same way; an undamaged neighbour still reads.
            var damaged = raw
            damaged[2] ^= 0x10
            try Self.plantObject(db, key: "p1", bytes: damaged)
            #expect(throws: LarderError.self) { try db.read { try $0.object(forKey: "p1", inCollection: Product.collection, as: Product.self) } }
            #expect(try db.read { try $0.object(forKey: "p2", inCollection: Product.collection, as: Product.self) }?.name == "Saw")
            // Truncated below its framing: malformed, never a crash.
            try Self.plantObject(db, key: "p1", bytes: Array(raw.prefix(5)))
            #expect { try db.read { try $0.object(forKey: "p1", inCollection: Product.collection, as: Product.self) } } throws: { ($0 as? LarderError)?.code == .corruptValue }
            #expect(try db.checkStructure().problems.map(\.kind) == [.malformedValue])
        }
    }

    @Test func withoutChecksumsTheSameFlipGoesUnnoticed() throws {
        // The documented limit of the default: a flip that still decodes returns other data.
        try withStore(Self.configuration(checksums: false)) { db, _ in
            try db.write { try $0.write(Product(id: "p1", name: "Hammer", price: 12.5)) }
            var raw = try #require(try Self.rawObject(db, key: "p1"))
            #expect(raw[0] == ArchiveFormat.messagePack.rawValue)
            let letter = try #require(raw.firstIndex(of: UInt8(ascii: "H")))
            raw[letter] ^= 0x20  // "H" -> "h"
            try Self.plantObject(db, key: "p1", bytes: raw)
            #expect(try db.read { try $0.object(forKey: "p1", inCollection: Product.collection, as: Product.self) }?.name == "hammer")
            #expect(try db.checkStructure().problems.isEmpty)
        }
    }

    @Test func aFlipInTheDataFileIsCaughtAfterReopening() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let marker = "checksum-marker-7f3a9c"
        do {
            let db = try Database(path: path, configuration: Self.configuration(checksums: true))
            try db.write { try $0.write(Product(id: "p1", name: marker, price: 1)) }
        }
        let file = path + "/data.mdb"
        var data = try Data(contentsOf: URL(fileURLWithPath: file))
        let found = try #require(data.range(of: Data(marker.utf8)))
        data[found.lowerBound + 3] ^= 0x01
        try data.write(to: URL(fileURLWithPath: file))
        do {
            let db = try Database(path: path, configuration: Self.configuration(checksums: false))
            #expect { try db.read { try $0.object(forKey: "p1", inCollection: Product.collection, as: Product.self) } } throws: { ($0 as? LarderError)?.code == .corrupted }
            #expect(try db.checkStructure().problems.map(\.kind) == [.checksumMismatch])
        }
        // The tool: `check` reports it (status 4), `get` refuses to print damaged data.
        let check = try CLI.run(["check", path])
        #expect(check.status == CLI.Status.checkFailed && check.standardOutput.contains("checksumMismatch"), "\(check.standardOutput) \(check.standardError)")
        let get = try CLI.run(["get", path, Product.collection, "p1"])
        #expect(get.status == CLI.Status.storeError && get.standardError.contains("checksum") && get.standardOutput.isEmpty, "\(get.standardError)")
    }

    // MARK: Format version

    @Test func aVersionOneStoreOpensReadsAndMovesToTheNewestFormatWithItsFirstCommit() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let plain = Product(id: "plain", name: "Written without checksums", price: 1)
        do {
            // Plain values are framed as Larder 0.1 framed them; the version is set back to 0.1's.
            // (FormatVersionTests opens a store written by Larder 0.1 itself.)
            let db = try Database(path: path, configuration: Self.configuration(checksums: false))
            #expect(try Self.formatVersion(db) == LarderVersion.storeFormat)  // a new store records the newest
            try db.write { try $0.write(plain) }
            try CLI.plantFormatVersion(db, 1)
            #expect(try Self.rawObject(db, key: "plain")?.first == ArchiveFormat.messagePack.rawValue)
        }
        do {
            let db = try Database(path: path, configuration: Self.configuration(checksums: true))
            #expect(try Self.formatVersion(db) == 1)  // opening changes nothing
            #expect(try db.read { try $0.object(forKey: "plain", inCollection: Product.collection, as: Product.self) } == plain)
            // A write that fails leaves the version as it was.
            #expect(throws: LarderError.self) {
                try db.write { txn in
                    try txn.write(Product(id: "lost", name: "x", price: 0))
                    throw LarderError(.invalidConfiguration, "test")
                }
            }
            #expect(try Self.formatVersion(db) == 1)
            try db.write { txn in
                try txn.write(Product(id: "summed", name: "Written with checksums", price: 2))
                try txn.write(Product(id: "summed2", name: "and another", price: 3))
            }
            #expect(try Self.formatVersion(db) == 6)  // past 2 (checksums) and 3 (the log's bin payloads) to 6 (the records moved)
            #expect(try Self.rawObject(db, key: "summed")?.first == ValueFraming.checksummedTag)
            #expect(try db.checkStructure().problems.isEmpty)
        }
        do {
            // Either kind of value reads with checksums off, and the version stays at 6.
            let db = try Database(path: path, configuration: Self.configuration(checksums: false))
            try db.read { txn throws in
                #expect(try txn.object(forKey: "plain", inCollection: Product.collection, as: Product.self) == plain)
                #expect(try txn.object(forKey: "summed", inCollection: Product.collection, as: Product.self)?.price == 2)
            }
            try db.write { try $0.write(Product(id: "plain2", name: "plain again", price: 4)) }
            #expect(try Self.formatVersion(db) == 6)
            #expect(try Self.rawObject(db, key: "plain2")?.first == ArchiveFormat.messagePack.rawValue)
            try CLI.plantFormatVersion(db, StoreFormat.current + 1)
        }
        #expect { try Database(path: path) } throws: { ($0 as? LarderError)?.code == .newerFormatVersion }
    }

    @Test func historyAndUndoCarryChecksummedValues() throws {
        var configuration = Self.configuration(checksums: true)
        configuration.keepsValueHistory = true
        try withStore(configuration) { db, _ in
            try db.write(undoable: "add") { try $0.write(Product(id: "p1", name: "first", price: 1)) }
            try db.write(undoable: "rename") { try $0.write(Product(id: "p1", name: "second", price: 1)) }
            let history = try db.read { try $0.history(ofObjectAt: Product.index(forKey: "p1")) }
            let names = try history.compactMap { try $0.value(as: Product.self)?.name }
            #expect(Set(names) == ["first", "second"])
            #expect(history.compactMap { $0.stored?.format }.allSatisfy { $0 == .messagePack })
            try db.undo()
            #expect(try db.read { try $0.object(forKey: "p1", inCollection: Product.collection, as: Product.self) }?.name == "first")
            #expect(try db.checkStructure().problems.isEmpty)
        }
    }

    @Test func theToolShowsAndExportsChecksummedValuesAsPlainOnes() throws {
        var outputs: [[String]] = []
        for checksums in [false, true] {
            let directory = TemporaryDirectory()
            let path = directory.file("store")
            do {
                let db = try Database(path: path, configuration: Self.configuration(checksums: checksums))
                try db.write { try $0.write(Product(id: "p1", name: "Hammer", price: 12.5), metadata: ["shelf": 3]) }
            }
            outputs.append([
                try CLI.succeed(["get", path, Product.collection, "p1"]),
                try CLI.succeed(["get", path, Product.collection, "p1", "--metadata"]),
                try CLI.succeed(["export", path]),
            ])
            _ = try CLI.succeed(["check", path])
        }
        #expect(outputs[0] == outputs[1])
        #expect(outputs[1][0].contains("Hammer"))
    }
}
