import Foundation
import LarderMacros
import PropertyBased
import Testing

/// Damaged MessagePack in a store: the generated archiver refuses exactly what the `Codable` path
/// refuses, with the same `LarderError` code, and reads what it reads to the same value.
@Suite("Generated archivers: damaged bytes")
struct ArchivedBadInputTests {
    /// Stores any bytes as if they were a MessagePack value.
    struct UncheckedMessagePack: Archiver {
        var format: ArchiveFormat { .messagePack }
        func archive(_ value: [UInt8], into bytes: inout [UInt8]) throws { bytes += value }
        func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> [UInt8] { Array(bytes) }
    }

    enum Damage: CaseIterable { case truncate, replaceByte, insertByte, appendByte }

    static func damaged(using rng: inout some RandomNumberGenerator) -> (Record, [UInt8]) {
        let record = ArchivedRandomValues.record(using: &rng)
        var bytes = (try? MessagePackEncoder().encode(record)) ?? []
        for _ in 0..<Int.random(in: 1...3, using: &rng) where !bytes.isEmpty {
            let position = Int.random(in: 0..<bytes.count, using: &rng)
            switch Damage.allCases.randomElement(using: &rng)! {
            case .truncate: bytes.removeSubrange(position...)
            case .replaceByte: bytes[position] = UInt8.random(in: 0...255, using: &rng)
            case .insertByte: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: position)
            case .appendByte: bytes.append(UInt8.random(in: 0...255, using: &rng))
            }
        }
        return (record, bytes)
    }

    @Test func damagedBytesGetTheCodablePathsAnswer() async throws {
        let directory = FileManager.default.temporaryDirectory.path + "/larder-macros-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try Database(path: directory + "/store")
        var refused = 0
        await propertyCheck(count: ArchivedEquivalenceTests.count, input: Generator { rng in Self.damaged(using: &rng) }) { _, bytes in
            try db.write { txn in
                try txn.setObject(bytes, forKey: "k", inCollection: "c", archiver: UncheckedMessagePack(),
                                  metadata: nil as [UInt8]?, metadataArchiver: RawBytesArchiver())
            }
            let generated = Result { try db.read { try $0.object(forKey: "k", inCollection: "c", archiver: GeneratedArchiver<Record>()) } }
            let codable = Result { try db.read { try $0.object(forKey: "k", inCollection: "c", archiver: MessagePackArchiver<Record>()) } }
            switch (generated, codable) {
            case (.success(let a), .success(let b)):
                // Compared as bytes: a damaged float can be NaN, which is not equal to itself.
                #expect(try MessagePackEncoder().encode(a) == MessagePackEncoder().encode(b), "\(bytes)")
            case (.failure(let a), .failure(let b)):
                refused += 1
                #expect((a as? LarderError)?.code == .decodingFailed, "\(a)")
                #expect((a as? LarderError)?.code == (b as? LarderError)?.code, "\(a) vs \(b)")
            default:
                // Only a repeated key may read differently: which duplicate wins is unspecified.
                #expect(Self.repeatsAKey(bytes), "generated \(generated) vs Codable \(codable) for \(bytes)")
            }
        }
        #expect(refused > 0)
    }

    static func repeatsAKey(_ bytes: [UInt8]) -> Bool {
        guard case .map(let entries)? = try? MessagePackValue(reading: bytes) else { return false }
        return Set(entries.map(\.key.text)).count != entries.count
    }
}
