import Foundation
import LarderMacros
import PropertyBased
import Testing

/// `@Archived(layout: .numbered)`: maps keyed by field numbers, read by both paths, from both
/// layouts, refused alike when damaged, and a store moved from names to numbers by a migration.
@Suite("Generated archivers: the numbered layout")
struct ArchivedNumberedLayoutTests {
    static func reading(using rng: inout some RandomNumberGenerator) -> Reading {
        Reading(sensor: ArchivedRandomValues.string(using: &rng), celsius: ArchivedRandomValues.double(using: &rng),
                note: Bool.random(using: &rng) ? nil : ArchivedRandomValues.string(using: &rng),
                inner: Inner(label: ArchivedRandomValues.string(using: &rng), weight: ArchivedRandomValues.double(using: &rng),
                             code: ArchivedRandomValues.integer(Int8.self, using: &rng)),
                tags: (0..<Int.random(in: 0..<4, using: &rng)).map { _ in ArchivedRandomValues.string(using: &rng) },
                count: ArchivedRandomValues.integer(Int.self, using: &rng))
    }

    static func byName(_ reading: Reading) -> ReadingByName {
        ReadingByName(sensor: reading.sensor, celsius: reading.celsius, note: reading.note, inner: reading.inner,
                      tags: reading.tags, count: reading.count)
    }

    /// The map spelled out: numbers as keys in their smallest forms, in `CodingKeys` order, the
    /// nil optional left out.
    @Test func numberedMapBytes() throws {
        let value = Reading(sensor: "s", celsius: 1.5, note: nil, inner: Inner(label: "", weight: 0, code: 1), tags: ["t"], count: 3)
        let bytes = try archive(value, with: GeneratedArchiver())
        let inner = try archive(value.inner, with: GeneratedArchiver())
        let expected: [UInt8] = [0x85, 0x01, 0xa1, 0x73, 0x02, 0xcb] + withUnsafeBytes(of: (1.5).bitPattern.bigEndian, Array.init)
            + [0xcc, 200] + inner + [0xf9, 0x91, 0xa1, 0x74, 0x10, 0x03]
        #expect(bytes == expected)
        #expect(try unarchive(Reading.self, bytes, with: GeneratedArchiver()) == value)
        // Beside the names: every key one byte (two for 200) instead of the name's length + 1.
        let named = try archive(Self.byName(value), with: GeneratedArchiver())
        #expect(named.count - bytes.count == (7 + 8 + 6 + 5 + 6) - (1 + 1 + 2 + 1 + 1))
    }

    /// Random values: the numbered bytes read back through both paths; the names the `Codable`
    /// path writes (and the type of before) read through the numbered type's generated reader.
    @Test func bothLayoutsReadThroughBothPaths() async throws {
        await propertyCheck(count: ArchivedEquivalenceTests.count, input: Generator { rng in Self.reading(using: &rng) }) { value in
            let numbered = try archive(value, with: GeneratedArchiver())
            #expect(try unarchive(Reading.self, numbered, with: GeneratedArchiver()) == value)
            #expect(try unarchive(Reading.self, numbered, with: MessagePackArchiver()) == value)
            let named = try archive(value, with: MessagePackArchiver())
            #expect(named == (try archive(Self.byName(value), with: GeneratedArchiver())))
            #expect(try unarchive(Reading.self, named, with: GeneratedArchiver()) == value)
            #expect(try unarchive(Reading.self, named, with: MessagePackArchiver()) == value)
            #expect(numbered.count < named.count)
            // Every key of the numbered map is an integer.
            guard case .map(let entries) = try MessagePackValue(reading: numbered) else { Issue.record("not a map"); return }
            #expect(entries.allSatisfy { Self.isInteger($0.key) })
        }
    }

    /// Both readers agree on maps that mix names and numbers, lack entries, carry unknown
    /// numbers (a retired one, one past `Int64.max`) or a number whose value has the wrong kind.
    @Test func mixedMissingAndUnknownKeys() throws {
        func map(_ entries: [(MessagePackValue, MessagePackValue)]) -> [UInt8] {
            MessagePackValue.map(entries.map { MessagePackValue.Entry(key: $0.0, value: $0.1) }).encoded()
        }
        let inner = MessagePackValue.map([.init(key: .string("label"), value: .string("l")),
                                          .init(key: .string("weight"), value: .double(2)),
                                          .init(key: .string("code"), value: .integer(3))])
        let expected = Reading(sensor: "s", celsius: 1, note: nil, inner: Inner(label: "l", weight: 2, code: 3), tags: [], count: 9)
        let mixed = map([(.string("sensor"), .string("s")), (.integer(2), .double(1)), (.integer(4), .string("retired")),
                         (.unsigned(UInt64.max), .integer(1)), (.integer(200), inner), (.string("tags"), .array([])),
                         (.integer(16), .integer(9))])
        #expect(try unarchive(Reading.self, mixed, with: GeneratedArchiver()) == expected)
        #expect(try unarchive(Reading.self, mixed, with: MessagePackArchiver()) == expected)

        let missing = map([(.integer(1), .string("s")), (.integer(2), .double(1)), (.integer(200), inner), (.integer(-7), .array([]))])
        for read in [{ try unarchive(Reading.self, missing, with: GeneratedArchiver()) },
                     { try unarchive(Reading.self, missing, with: MessagePackArchiver()) }] {
            #expect { _ = try read() } throws: { error in
                guard case DecodingError.keyNotFound(let key, _) = error else { return false }
                return key.stringValue == "count"
            }
        }
        let wrongKind = map([(.integer(1), .integer(5)), (.integer(2), .double(1)), (.integer(200), inner),
                             (.integer(-7), .array([])), (.integer(16), .integer(9))])
        #expect(throws: DecodingError.self) { try unarchive(Reading.self, wrongKind, with: GeneratedArchiver()) }
        #expect(throws: DecodingError.self) { try unarchive(Reading.self, wrongKind, with: MessagePackArchiver()) }

        // Implicit numbers (0, 10, 11) are read too, and the names are written.
        let implicit = map([(.integer(0), .integer(1)), (.integer(10), .string("b")), (.integer(11), .bool(true))])
        #expect(try unarchive(ImplicitlyNumbered.self, implicit, with: GeneratedArchiver()) == ImplicitlyNumbered(a: 1, b: "b", c: true))
        #expect(try unarchive(ImplicitlyNumbered.self, implicit, with: MessagePackArchiver()) == ImplicitlyNumbered(a: 1, b: "b", c: true))
        try expectSameForm(ImplicitlyNumbered(a: -3, b: "", c: false))
    }

    /// Damaged numbered maps: the generated reader refuses what the `Codable` path refuses and
    /// reads what it reads to the same value.
    @Test func damagedNumberedBytesGetTheCodablePathsAnswer() async throws {
        var refused = 0
        await propertyCheck(count: ArchivedEquivalenceTests.count, input: Generator { rng -> [UInt8] in
            var bytes = (try? archive(Self.reading(using: &rng), with: GeneratedArchiver())) ?? []
            for _ in 0..<Int.random(in: 1...3, using: &rng) where !bytes.isEmpty {
                let position = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: bytes.removeSubrange(position...)
                case 1: bytes[position] = UInt8.random(in: 0...255, using: &rng)
                case 2: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: position)
                default: bytes.append(UInt8.random(in: 0...255, using: &rng))
                }
            }
            return bytes
        }) { bytes throws in
            let generated = Result { try unarchive(Reading.self, bytes, with: GeneratedArchiver()) }
            let codable = Result { try unarchive(Reading.self, bytes, with: MessagePackArchiver()) }
            switch (generated, codable) {
            case (.success(let a), .success(let b)):
                #expect(try archive(a, with: GeneratedArchiver()) == archive(b, with: GeneratedArchiver()), "\(bytes)")
            case (.failure, .failure):
                refused += 1
            default:
                #expect(Self.repeatsAField(bytes), "generated \(generated) vs Codable \(codable) for \(bytes)")
            }
        }
        #expect(refused > 0)
    }

    /// A store written under names moves to numbers: values read as they are before the
    /// migration, `migrate(collection:)` rewrites each one numbered (smaller), and they read the
    /// same after it.
    @Test func aStoreMovesFromNamesToNumbers() throws {
        let directory = FileManager.default.temporaryDirectory.path + "/larder-numbered-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var rng = SplitMix(seed: 35)
        let values = (0..<300).map { _ in Self.reading(using: &rng) }
        func storedSizes(_ db: Database) throws -> [Int] {
            try db.read { txn in
                try (0..<values.count).map { index in
                    try txn.withStoredObject(forKey: "r\(index)", inCollection: "readings") { _, bytes in bytes.count } ?? -1
                }
            }
        }
        let before: [Int]
        do {
            let db = try Database(path: directory + "/store")
            try db.write { txn in
                for (index, value) in values.enumerated() {
                    try txn.setObject(Self.byName(value), forKey: "r\(index)", inCollection: "readings")
                }
            }
            before = try storedSizes(db)
        }
        let db = try Database(path: directory + "/store")
        #expect(try db.read { txn in try (0..<values.count).map { try txn.object(forKey: "r\($0)", inCollection: "readings", as: Reading.self) } } == values)
        db.register(ValueMigrations(collection: "readings", currentVersion: 1, steps: [MigrationStep(from: 0, rearchiving: Reading.self)]))
        #expect(try db.read { txn in try (0..<values.count).map { try txn.object(forKey: "r\($0)", inCollection: "readings", as: Reading.self) } } == values)
        let progress = try db.migrate(collection: "readings", chunkSize: 64)
        #expect(progress.migrated == values.count)
        #expect(try db.storedVersions(inCollection: "readings") == [1: values.count])
        let after = try storedSizes(db)
        for index in values.indices { #expect(after[index] < before[index], "r\(index)") }
        try db.read { txn in
            for (index, value) in values.enumerated() {
                #expect(try txn.object(forKey: "r\(index)", inCollection: "readings", as: Reading.self) == value)
                let numbered = try txn.withStoredObject(forKey: "r\(index)", inCollection: "readings") { _, bytes in
                    try MessagePackValue(reading: bytes)
                }
                guard case .map(let entries)? = numbered else { Issue.record("r\(index) is not a map"); continue }
                #expect(entries.allSatisfy { Self.isInteger($0.key) }, "r\(index)")
            }
        }
    }

    static func isInteger(_ value: MessagePackValue) -> Bool {
        switch value {
        case .unsigned, .negative: return true
        default: return false
        }
    }

    static func repeatsAField(_ bytes: [UInt8]) -> Bool {
        guard case .map(let entries)? = try? MessagePackValue(reading: bytes) else { return false }
        return Set(entries.map { "\($0.key)" }).count != entries.count
    }
}
