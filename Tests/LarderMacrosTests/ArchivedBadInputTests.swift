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

    /// The generated writer refuses what the readers refuse: a chain of 256 nodes (511 nested
    /// containers) is written and reads back, 257 is refused with a nesting limit, and 10,000 is
    /// an error, not a stack overflow (the old writer had no limit: it wrote what no reader takes
    /// back, and crashed far past it).
    @Test func theWriterRefusesWhatTheReadersRefuse() throws {
        func chain(_ depth: Int) -> Node {
            var node = Node(name: "n", children: [], parentName: nil)
            for _ in 1..<depth { node = Node(name: "n", children: [node], parentName: nil) }
            return node
        }
        func archived(_ node: Node) throws -> [UInt8] {
            var bytes: [UInt8] = []
            try GeneratedArchiver<Node>().archive(node, into: &bytes)
            return bytes
        }
        let deepest = chain(256)
        let bytes = try archived(deepest)
        #expect(try unarchive(Node.self, bytes, with: GeneratedArchiver()) == deepest)
        #expect(try unarchive(Node.self, bytes, with: MessagePackArchiver()) == deepest)
        #expect(bytes == (try MessagePackEncoder().encode(deepest)))
        for depth in [257, 10_000] {
            let node = chain(depth)
            #expect("\(depth) nodes") { _ = try archived(node) } throws: { error in MessagePackNestingLimit.find(in: error)?.kind == .depth }
            #expect("\(depth) nodes, Codable") { _ = try MessagePackEncoder().encode(node) } throws: { error in MessagePackNestingLimit.isNestingLimit(error) }
        }
    }

    /// A `Codable` property of an archived value is encoded by a `MessagePackEncoder` of its own,
    /// which counts the containers around it: the whole value stays within what the readers read.
    @Test func aCodablePropertyCountsTheContainersAroundIt() throws {
        func holder(_ levels: Int) -> Holder {
            var tree = PlainTree(kids: [])
            for _ in 1..<levels { tree = PlainTree(kids: [tree]) }
            return Holder(tree: tree)
        }
        var bytes: [UInt8] = []
        // The holder's map, then two containers a level: 255 levels nest 511 deep, 256 would 513.
        try GeneratedArchiver<Holder>().archive(holder(255), into: &bytes)
        #expect(try unarchive(Holder.self, bytes, with: GeneratedArchiver()) == holder(255))
        #expect(try unarchive(Holder.self, bytes, with: MessagePackArchiver()) == holder(255))
        var tooDeep: [UInt8] = []
        #expect { try GeneratedArchiver<Holder>().archive(holder(256), into: &tooDeep) } throws: { error in MessagePackNestingLimit.isNestingLimit(error) }
    }

    /// The generated reader walks the bytes once, so the checks the Codable path makes in its
    /// validation pass happen as it reads: nesting past 512 containers (through a recursive type
    /// and in a value it skips), damage inside a value it skips,
    /// and bytes after the value are refused by both paths, and nesting up to the limit is read.
    @Test func oneWalkRefusesWhatTheValidationPassRefuses() throws {
        /// The bytes of a chain of `depth` nodes, each the only child of the one before (written
        /// directly: a tree of `MessagePackValue`s that deep would overflow the stack in its own code).
        func chain(_ depth: Int) -> [UInt8] {
            let opening: [UInt8] = [0x82, 0xa4] + Array("name".utf8) + [0xa1, 0x6e, 0xa8] + Array("children".utf8)
            var bytes: [UInt8] = []
            for _ in 1..<depth { bytes += opening + [0x91] }
            bytes += opening + [0x90]
            return bytes
        }
        func refusedByBoth<T: ArchivedMessagePack>(_ type: T.Type, _ bytes: [UInt8], _ comment: Comment) {
            #expect(throws: DecodingError.self, comment) { try unarchive(T.self, bytes, with: GeneratedArchiver()) }
            #expect(throws: DecodingError.self, comment) { try unarchive(T.self, bytes, with: MessagePackArchiver()) }
        }
        // A node and its children array are two containers: 256 nodes nest 511 deep (the last
        // children array is empty), 257 nodes 513.
        let deepest = try unarchive(Node.self, chain(256), with: GeneratedArchiver())
        #expect(deepest == (try unarchive(Node.self, chain(256), with: MessagePackArchiver())))
        refusedByBoth(Node.self, chain(257), "a recursive type nested past the limit")
        refusedByBoth(Node.self, chain(100_000), "a recursive type nested far past the limit")

        // An unknown entry nested past the limit, and one whose length runs past the end.
        var deepArray = MessagePackValue.array([])
        for _ in 0..<600 { deepArray = .array([deepArray]) }
        let unknownDeep = MessagePackValue.map([.init(key: .string("label"), value: .string("l")),
                                                .init(key: .string("x"), value: deepArray),
                                                .init(key: .string("weight"), value: .double(1)),
                                                .init(key: .string("code"), value: .integer(2))]).encoded()
        refusedByBoth(Inner.self, unknownDeep, "an unknown entry nested past the limit")
        var unknownTruncated = MessagePackValue.map([.init(key: .string("label"), value: .string("l")),
                                                     .init(key: .string("weight"), value: .double(1)),
                                                     .init(key: .string("code"), value: .integer(2)),
                                                     .init(key: .string("x"), value: .array([.integer(1), .integer(2)]))]).encoded()
        unknownTruncated.removeLast()
        refusedByBoth(Inner.self, unknownTruncated, "an unknown entry cut short")
        var reserved = unknownTruncated
        reserved.append(contentsOf: [0xc1])
        refusedByBoth(Inner.self, reserved, "the reserved byte in an unknown entry")

        var rng = SplitMix(seed: 512)
        let record = ArchivedRandomValues.record(using: &rng)
        var recordBytes = try archive(record, with: GeneratedArchiver())
        #expect(try unarchive(Record.self, recordBytes, with: GeneratedArchiver()) == record)
        recordBytes.append(0xc0)
        refusedByBoth(Record.self, recordBytes, "a byte after the value")
    }

    static func repeatsAKey(_ bytes: [UInt8]) -> Bool {
        guard case .map(let entries)? = try? MessagePackValue(reading: bytes) else { return false }
        return Set(entries.map(\.key.text)).count != entries.count
    }
}

/// A recursive type without a generated archiver, inside one that has one.
struct PlainTree: Codable, Equatable, Sendable {
    var kids: [PlainTree]
}

@Archived
struct Holder: Codable, Equatable, Sendable {
    var tree: PlainTree
}
