import Foundation
import LarderMacros
import PropertyBased
import Testing

/// Generated archivers against the `Codable` path on random values: equal bytes, equal values,
/// each reading the other's bytes, and the same refusal of damaged bytes.
@Suite("Generated archivers: the Codable path's bytes")
struct ArchivedEquivalenceTests {
    static let full = ProcessInfo.processInfo.environment["LARDER_FULL"] != nil
    /// Quick mode for `swift test`; `LARDER_FULL=1` for many more values.
    static let count = full ? 20_000 : 300

    @Test func recordsWriteTheCodableBytesAndReadBothWays() async throws {
        await propertyCheck(count: Self.count, input: Generator { rng in ArchivedRandomValues.record(using: &rng) }) { record in
            try expectSameForm(record)
        }
    }

    @Test func renamedKeysFollowCodingKeys() async throws {
        await propertyCheck(count: Self.count, input: Generator { rng in ArchivedRandomValues.renamed(using: &rng) }) { value in
            try expectSameForm(value)
        }
    }

    @Test func recursiveFinalClass() async throws {
        await propertyCheck(count: Self.count, input: Generator { rng in ArchivedRandomValues.node(depth: 0, using: &rng) }) { node in
            try expectSameForm(node)
        }
    }

    @Test func rawValueEnumsAndEmptyStructs() throws {
        for colour in Colour.allCases { try expectSameForm(colour) }
        for level in Level.allCases { try expectSameForm(level) }
        try expectSameForm(Empty())
        try expectSameForm(Inner(label: "", weight: -0.0, code: .min))
    }

    /// The renamed map, spelled out: CodingKeys' order and strings, the nil optional left out,
    /// the property with a default and no key not written.
    @Test func renamedMapBytes() throws {
        let bytes = try archive(Renamed(first: 1, second: nil, default: true, skipped: 9), with: GeneratedArchiver())
        let expected: [UInt8] = [0x82, 0xa7] + Array("default".utf8) + [0xc3, 0xad] + Array("premier \"one\"".utf8) + [0x01]
        #expect(bytes == expected)
        let read = try unarchive(Renamed.self, bytes, with: GeneratedArchiver())
        #expect(read == Renamed(first: 1, second: nil, default: true, skipped: 7))
    }

    /// A missing optional entry and a nil one both read as nil; a missing required entry throws;
    /// unknown entries (of any shape) are skipped; integer keys match their decimal string.
    @Test func lenientAndStrictAsTheCodablePath() throws {
        func map(_ entries: [(MessagePackValue, MessagePackValue)]) -> [UInt8] {
            MessagePackValue.map(entries.map { MessagePackValue.Entry(key: $0.0, value: $0.1) }).encoded()
        }
        func text(_ string: String) -> MessagePackValue { .string(string) }
        let noSecond = map([(text("premier \"one\""), .integer(5)), (text("default"), .bool(false)),
                            (text("unknown"), .array([.map([]), .integer(1), text("x")]))])
        let nilSecond = map([(text("2nd"), .nil), (text("premier \"one\""), .integer(5)), (text("default"), .bool(false))])
        for bytes in [noSecond, nilSecond] {
            let generated = try unarchive(Renamed.self, bytes, with: GeneratedArchiver())
            let codable = try unarchive(Renamed.self, bytes, with: MessagePackArchiver())
            #expect(generated == Renamed(first: 5, second: nil, default: false))
            #expect(generated == codable)
        }
        let noFirst = map([(text("2nd"), text("a")), (text("default"), .bool(false))])
        #expect(throws: DecodingError.self) { try unarchive(Renamed.self, noFirst, with: GeneratedArchiver()) }
        #expect(throws: DecodingError.self) { try unarchive(Renamed.self, noFirst, with: MessagePackArchiver()) }
        let nilFirst = map([(text("premier \"one\""), .nil), (text("default"), .bool(false))])
        #expect(throws: DecodingError.self) { try unarchive(Renamed.self, nilFirst, with: GeneratedArchiver()) }
        #expect(throws: DecodingError.self) { try unarchive(Renamed.self, nilFirst, with: MessagePackArchiver()) }

        let integerKeys = map([(.integer(7), text("x")), (text("label"), text("l")), (text("weight"), .integer(2)), (text("code"), .integer(3))])
        let inner = try unarchive(Inner.self, integerKeys, with: GeneratedArchiver())
        #expect(inner == Inner(label: "l", weight: 2, code: 3))
        #expect(inner == (try unarchive(Inner.self, integerKeys, with: MessagePackArchiver())))
    }

    @Test func unknownRawValueThrowsLikeCodable() throws {
        let bytes = MessagePackValue.string("purple").encoded()
        #expect(throws: DecodingError.self) { try unarchive(Colour.self, bytes, with: GeneratedArchiver()) }
        #expect(throws: DecodingError.self) { try unarchive(Colour.self, bytes, with: MessagePackArchiver()) }
    }

    @Test func valuesStoredAsJSONReadThroughCodable() throws {
        let inner = Inner(label: "j", weight: 1.25, code: -4)
        var bytes: [UInt8] = []
        try JSONArchiver<Inner>().archive(inner, into: &bytes)
        let read = try bytes.withUnsafeBytes { try GeneratedArchiver<Inner>().unarchive($0, format: .json) }
        #expect(read == inner)
    }

    @Test func failedArchiveLeavesTheBufferAsItWas() throws {
        var rng = SplitMix(seed: 16)
        var record = ArchivedRandomValues.record(using: &rng)
        record.when = Date(timeIntervalSinceReferenceDate: .infinity)
        var bytes: [UInt8] = [1, 2, 3]
        #expect(throws: EncodingError.self) { try GeneratedArchiver<Record>().archive(record, into: &bytes) }
        #expect(bytes == [1, 2, 3])
        #expect(throws: EncodingError.self) { try MessagePackArchiver<Record>().archive(record, into: &bytes) }
    }
}

/// Both archivers write `value` to the same bytes; each reads both back to `value`.
func expectSameForm<T: ArchivedMessagePack & Equatable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let generated = try archive(value, with: GeneratedArchiver())
    let codable = try archive(value, with: MessagePackArchiver())
    #expect(generated == codable, "\(value)", sourceLocation: sourceLocation)
    for bytes in [generated, codable] {
        #expect(try unarchive(T.self, bytes, with: GeneratedArchiver()) == value, sourceLocation: sourceLocation)
        #expect(try unarchive(T.self, bytes, with: MessagePackArchiver()) == value, sourceLocation: sourceLocation)
    }
}

func archive<A: Archiver>(_ value: A.Value, with archiver: A) throws -> [UInt8] {
    var bytes: [UInt8] = []
    try archiver.archive(value, into: &bytes)
    return bytes
}

func unarchive<A: Archiver>(_ type: A.Value.Type, _ bytes: [UInt8], with archiver: A) throws -> A.Value {
    try bytes.withUnsafeBytes { try archiver.unarchive($0, format: .messagePack) }
}

/// A small seeded generator, so that a failing run can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
