import Foundation
import PropertyBased
import Testing
@testable import Larder
@testable import LarderMessagePack

// The coders reuse their objects between calls and validate a top-level map in the walk that
// indexes it (issue 16, part 1). These tests hold the fast path to what the coders did before:
// the same first problem reported in the same words, the same bytes written, and no reuse of an
// object that a type kept.

@Suite struct MessagePackCoderReuseTests {
    // MARK: Validation in the indexing walk

    /// What the decoder reported before the walks were fused: the separate validation pass over
    /// the whole input, then the trailing-bytes check. Nil when the input is well-formed.
    static func validationPassMessage(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { raw -> String? in
            var spans: [MessagePackContainerSpan]? = nil
            do throws(MessagePackReadError) {
                let end = try MessagePackReader(bytes: raw).validateValue(at: 0, spans: &spans)
                guard end == raw.count else {
                    return "Found \(raw.count - end) unexpected bytes after the top-level MessagePack value, which ends at offset \(end)."
                }
                return nil
            } catch {
                return error.message
            }
        }
    }

    /// Checks that decoding `bytes` as `T` reports exactly what the validation pass reports,
    /// and nothing of the kind when the pass finds the input well-formed.
    static func expectSameValidation<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = validationPassMessage(bytes)
        do {
            _ = try MessagePackDecoder().decode(T.self, from: bytes)
            #expect(expected == nil, "decoded \(MPTest.hex(bytes)), which the validation pass rejects: \(expected ?? "")",
                    sourceLocation: sourceLocation)
        } catch let error as DecodingError {
            if let expected {
                guard case .dataCorrupted(let context) = error else {
                    Issue.record("\(MPTest.hex(bytes)): \(error), expected \(expected)", sourceLocation: sourceLocation)
                    return
                }
                #expect(context.debugDescription == expected, "\(MPTest.hex(bytes))", sourceLocation: sourceLocation)
                #expect(context.codingPath.isEmpty, sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record("\(MPTest.hex(bytes)): not a DecodingError: \(error)", sourceLocation: sourceLocation)
        }
    }

    /// A keyed type that reads two of the fields a random map may have.
    struct TwoFields: Decodable {
        var a: Int?
        var b: String?
    }

    @Test func damagedMapsAreReportedAsTheValidationPassReportedThem() async {
        let count = ProcessInfo.processInfo.environment["LARDER_FULL"] == "1" ? 200_000 : 3_000
        await propertyCheck(count: count, input: Generator { rng in MPRandom.damagedMap(using: &rng) }) { bytes in
            Self.expectSameValidation(TwoFields.self, bytes)
            Self.expectSameValidation(MPAny.self, bytes)
            Self.expectSameValidation([String: Int].self, bytes)
            Self.expectSameValidation(InOrder.self, bytes)
            Self.expectSameValidation(Forgiving.self, bytes)
        }
    }

    // MARK: One pass over a top-level map

    /// Reads the damaged maps' four keys in the order of its declaration, each if present: the
    /// stream's usual case when the map's keys were not shuffled.
    struct InOrder: Decodable, Equatable {
        var a: MPAny?
        var b: MPAny?
        var c: MPAny?
        var deep: MPAny?
    }

    /// Ignores every error its reads throw: what it skips that way must still be checked, so a
    /// malformed input never decodes.
    struct Forgiving: Decodable {
        var a: Int?
        var b: String?
        var c: MPAny?
        var deep: [MPAny]?
        enum CodingKeys: String, CodingKey { case a, b, c, deep }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            a = try? container.decode(Int.self, forKey: .a)
            b = try? container.decodeIfPresent(String.self, forKey: .b)
            c = try? container.decode(MPAny.self, forKey: .c)
            deep = try? container.decodeIfPresent([MPAny].self, forKey: .deep)
        }
    }

    /// `{"x": 1, "y": "two", "z": [1, 2], "n": nil}`
    static let fourFields = MPTest.bytes("84 a1 78 01 a1 79 a3 74 77 6f a1 7a 92 01 02 a1 6e c0")

    struct XYZ: Decodable, Equatable {
        var x: Int
        var y: String
        var z: [Int]
        var n: Int?
    }

    /// Reads the fields backwards, one twice, and one that is absent.
    struct Backwards: Decodable, Equatable {
        var values: [String] = []
        enum CodingKeys: String, CodingKey { case x, y, z, n, w }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            values.append("n=\(String(describing: try container.decodeIfPresent(Int.self, forKey: .n)))")
            values.append("z=\(try container.decode([Int].self, forKey: .z))")
            values.append("w=\(String(describing: try container.decodeIfPresent(Int.self, forKey: .w)))")
            values.append("x=\(try container.decode(Int.self, forKey: .x))")
            values.append("x=\(try container.decode(Int.self, forKey: .x))")
            values.append("y=\(try container.decode(String.self, forKey: .y))")
            values.append("keys=\(container.allKeys.map(\.stringValue).sorted())")
        }
    }

    /// Reads `x`, then asks for a key that is absent, then reads the rest in order.
    struct AbsentInTheMiddle: Decodable, Equatable {
        var x: Int
        var missing: Int?
        var y: String
        var z: [Int]
    }

    /// Reads `x` and `z` through a nested container and a nested unkeyed container, then `y`.
    struct Nested: Decodable, Equatable {
        var x: Int
        var z: [Int]
        var y: String
        enum CodingKeys: String, CodingKey { case x, y, z }

        init(x: Int, z: [Int], y: String) {
            self.x = x
            self.z = z
            self.y = y
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            x = try container.decode(Int.self, forKey: .x)
            var array = try container.nestedUnkeyedContainer(forKey: .z)
            z = [try array.decode(Int.self), try array.decode(Int.self)]
            y = try container.decode(String.self, forKey: .y)
        }
    }

    @Test func aTopLevelMapReadsTheSameInAnyOrder() throws {
        let decoder = MessagePackDecoder()
        #expect(try decoder.decode(XYZ.self, from: Self.fourFields) == XYZ(x: 1, y: "two", z: [1, 2], n: nil))
        #expect(try decoder.decode(Backwards.self, from: Self.fourFields).values
                == ["n=nil", "z=[1, 2]", "w=nil", "x=1", "x=1", "y=two", "keys=[\"n\", \"x\", \"y\", \"z\"]"])
        #expect(try decoder.decode(AbsentInTheMiddle.self, from: Self.fourFields) == AbsentInTheMiddle(x: 1, missing: nil, y: "two", z: [1, 2]))
        #expect(try decoder.decode(Nested.self, from: Self.fourFields) == Nested(x: 1, z: [1, 2], y: "two"))
        #expect(try decoder.decode(InOrder.self, from: Self.fourFields) == InOrder(a: nil, b: nil, c: nil, deep: nil))
        // The same map with its keys written in another order.
        let shuffled = MPTest.bytes("84 a1 6e c0 a1 7a 92 01 02 a1 79 a3 74 77 6f a1 78 01")
        #expect(try decoder.decode(XYZ.self, from: shuffled) == XYZ(x: 1, y: "two", z: [1, 2], n: nil))
        #expect(try decoder.decode(Nested.self, from: shuffled) == Nested(x: 1, z: [1, 2], y: "two"))
    }

    @Test func whatATopLevelMapsReadsSkipIsStillChecked() throws {
        let decoder = MessagePackDecoder()
        // Every key read, then one byte more.
        let trailing = Self.fourFields + [0x00]
        #expect(MPTest.decodingError(XYZ.self, from: trailing)?.mpContext?.debugDescription
                == "Found 1 unexpected bytes after the top-level MessagePack value, which ends at offset 18.")
        // An entry nobody reads holds the reserved byte, or is cut short.
        let reservedUnread = MPTest.bytes("85 a1 78 01 a1 79 a3 74 77 6f a1 7a 92 01 02 a1 6e c0 a1 71 c1")
        let truncatedUnread = MPTest.bytes("85 a1 78 01 a1 79 a3 74 77 6f a1 7a 92 01 02 a1 6e c0 a1 71 92 01")
        for bytes in [reservedUnread, truncatedUnread] {
            let error = MPTest.decodingError(XYZ.self, from: bytes)
            #expect(error?.mpIsDataCorrupted == true)
            #expect(error?.mpContext?.debugDescription == Self.validationPassMessage(bytes))
            #expect(error?.mpContext?.codingPath.isEmpty == true)
            // A type that ignores its errors does not get it through.
            #expect(MPTest.decodingError(Forgiving.self, from: bytes)?.mpIsDataCorrupted == true)
        }
        // A value the type read and failed on, and a later malformed one: the malformed input
        // is what is reported, as when the input was checked before any value was built.
        let mismatchThenReserved = MPTest.bytes("82 a1 78 a1 61 a1 71 c1")
        #expect(MPTest.decodingError(XYZ.self, from: mismatchThenReserved)?.mpContext?.debugDescription
                == Self.validationPassMessage(mismatchThenReserved))
        // A nested value that nests deeper than the limit, under a key the type reads.
        let deep = MPTest.bytes("81 a1 7a") + [UInt8](repeating: 0x91, count: 512) + [0x00]
        #expect(MPTest.decodingError(InOrder.self, from: deep)?.mpIsDataCorrupted == true)
        #expect(try decoder.decode(SkipsEverything.self, from: Self.fourFields).decoded)
        #expect(MPTest.decodingError(SkipsEverything.self, from: reservedUnread)?.mpIsDataCorrupted == true)
    }

    @Test func depthLimitHoldsUnderAKeyNobodyReads() throws {
        // {"a": 1, "deep": [[...[0]...]]}: the top-level map is at depth 0, so `levels` arrays
        // reach depth `levels`, and the limit allows containers up to depth 511.
        func map(levels: Int) -> [UInt8] {
            MPTest.bytes("82 a1 61 01 a4 64 65 65 70") + [UInt8](repeating: 0x91, count: levels) + [0x00]
        }
        #expect(try MessagePackDecoder().decode(TwoFields.self, from: map(levels: 511)).a == 1)
        let error = MPTest.decodingError(TwoFields.self, from: map(levels: 512))
        #expect(error?.mpIsDataCorrupted == true)
        #expect(error?.mpContext?.debugDescription.contains("512") == true)
        Self.expectSameValidation(TwoFields.self, map(levels: 512))
        Self.expectSameValidation(TwoFields.self, map(levels: 511))
    }

    @Test func unsupportedKeyIsReportedOnlyToAKeyedContainer() throws {
        // {1.5: 1} has a float key: fine for a type that reads the map as an array of nothing,
        // an error for a keyed container (as when the container scanned the map itself).
        let bytes = MPTest.bytes("81 cb 3f f8 00 00 00 00 00 00 01")
        let error = MPTest.decodingError(TwoFields.self, from: bytes)
        #expect(error?.mpIsDataCorrupted == true)
        #expect(error?.mpContext?.debugDescription.contains("only string and integer keys") == true)
        // A type that never asks for a keyed container does not see the key's kind.
        #expect(try MessagePackDecoder().decode(SkipsEverything.self, from: bytes).decoded)
    }

    /// Decodes to a marker without reading anything.
    struct SkipsEverything: Decodable {
        var decoded = true
        init(from decoder: any Decoder) throws {}
    }

    @Test func integerKeysOfATopLevelMapMatchTheirDecimalText() throws {
        // {1: 7, "b": "x"}, as another language might write it.
        let value = try MessagePackDecoder().decode([String: MPAny].self, from: MPTest.bytes("82 01 07 a1 62 a1 78"))
        #expect(value == ["1": .int(7), "b": .string("x")])
    }

    // MARK: Reuse

    /// Keeps the decoder it was decoded with, which the `Decodable` contract does not forbid.
    final class DecoderKeeper: Decodable {
        nonisolated(unsafe) static var kept: (any Decoder)?
        init(from decoder: any Decoder) throws {
            Self.kept = decoder
        }
    }

    /// Reads its own field, then tries to read the kept decoder while it decodes.
    struct ReadsTheKeptDecoder: Decodable {
        var name: String
        var keptName: String?
        enum CodingKeys: String, CodingKey { case name }
        init(from decoder: any Decoder) throws {
            name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
            keptName = try? DecoderKeeper.kept?.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
        }
    }

    @Test func aDecoderATypeKeptIsNeverReusedForAnotherValue() throws {
        let decoder = MessagePackDecoder()
        _ = try decoder.decode(DecoderKeeper.self, from: MPTest.bytes("81 a4 6e 61 6d 65 a3 6f 6c 64"))  // {"name": "old"}
        #expect(DecoderKeeper.kept != nil)
        let value = try decoder.decode(ReadsTheKeptDecoder.self, from: MPTest.bytes("81 a4 6e 61 6d 65 a3 6e 65 77"))  // "new"
        #expect(value.name == "new")
        // The kept decoder forgot its input when its decode ended; reused, it would read "new".
        #expect(value.keptName == nil)
        DecoderKeeper.kept = nil
    }

    /// Keeps its top-level keyed container, whose box the decoder otherwise reuses.
    struct ContainerKeeper: Decodable {
        enum CodingKeys: String, CodingKey { case name }
        nonisolated(unsafe) static var kept: KeyedDecodingContainer<CodingKeys>?
        init(from decoder: any Decoder) throws {
            Self.kept = try decoder.container(keyedBy: CodingKeys.self)
        }
    }

    /// Reads its own field, then the kept container while it decodes.
    struct ReadsTheKeptContainer: Decodable {
        var name: String
        var keptName: String?
        init(from decoder: any Decoder) throws {
            name = try decoder.container(keyedBy: ContainerKeeper.CodingKeys.self).decode(String.self, forKey: .name)
            keptName = try? ContainerKeeper.kept?.decode(String.self, forKey: .name)
        }
    }

    @Test func aContainerATypeKeptIsNeverReusedForAnotherValue() throws {
        let decoder = MessagePackDecoder()
        _ = try decoder.decode(ContainerKeeper.self, from: MPTest.bytes("81 a4 6e 61 6d 65 a3 6f 6c 64"))  // {"name": "old"}
        #expect(ContainerKeeper.kept != nil)
        let value = try decoder.decode(ReadsTheKeptContainer.self, from: MPTest.bytes("81 a4 6e 61 6d 65 a3 6e 65 77"))
        #expect(value.name == "new")
        // The kept container's decoder forgot its input; had it gone back to the pool, it would read "new".
        #expect(value.keptName == nil)
        #expect(ContainerKeeper.kept?.allKeys.isEmpty == true)
        ContainerKeeper.kept = nil
    }

    /// Keeps the encoder it was encoded with.
    struct EncoderKeeper: Encodable {
        nonisolated(unsafe) static var kept: (any Encoder)?
        func encode(to encoder: any Encoder) throws {
            Self.kept = encoder
            var container = encoder.container(keyedBy: MPAnyKey.self)
            try container.encode(1, forKey: MPAnyKey(stringValue: "a"))
        }
    }

    /// Writes its field, and also writes through the kept encoder while it encodes.
    struct WritesThroughTheKeptEncoder: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: MPAnyKey.self)
            try container.encode("x", forKey: MPAnyKey(stringValue: "b"))
            if var kept = EncoderKeeper.kept?.container(keyedBy: MPAnyKey.self) {
                try? kept.encode(99, forKey: MPAnyKey(stringValue: "intruder"))
            }
        }
    }

    @Test func anEncoderATypeKeptIsNeverReusedForAnotherValue() throws {
        let encoder = MessagePackEncoder()
        #expect(try encoder.encode(EncoderKeeper()) == MPTest.bytes("81 a1 61 01"))
        #expect(EncoderKeeper.kept != nil)
        // Reused, the kept encoder would be the one writing this value and add its entry.
        #expect(try encoder.encode(WritesThroughTheKeptEncoder()) == MPTest.bytes("81 a1 62 a1 78"))
        EncoderKeeper.kept = nil
    }

    @Test func reusedCodersGiveWhatFreshOnesGive() async {
        // Coders with `userInfo` never come from the pool, so they are fresh every call.
        var freshEncoder = MessagePackEncoder()
        freshEncoder.userInfo[CodingUserInfoKey(rawValue: "fresh")!] = true
        var freshDecoder = MessagePackDecoder()
        freshDecoder.userInfo[CodingUserInfoKey(rawValue: "fresh")!] = true
        let count = ProcessInfo.processInfo.environment["LARDER_FULL"] == "1" ? 50_000 : 1_000
        await propertyCheck(count: count, input: Generator { rng in MPRandom.items(using: &rng) }) { items in
            let pooled = try MPTest.encoder.encode(items)
            #expect(pooled == (try freshEncoder.encode(items)))
            #expect(try MPTest.decoder.decode([MPRandom.Item].self, from: pooled) == items)
            #expect(try freshDecoder.decode([MPRandom.Item].self, from: pooled) == items)
            // The same through the top-level map path, one item at a time.
            for item in items {
                let bytes = try MPTest.encoder.encode(item)
                #expect(bytes == (try freshEncoder.encode(item)))
                #expect(try MPTest.decoder.decode(MPRandom.Item.self, from: bytes) == item)
            }
        }
    }

    @Test func manyThreadsShareThePools() async throws {
        let items = (0..<64).map { MPRandom.item(seed: $0) }
        let encoded = try items.map { try MPTest.encoder.encode($0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<200 {
                        let index = (task * 31 + round) % items.count
                        let bytes = try MessagePackEncoder().encode(items[index])
                        #expect(bytes == encoded[index])
                        #expect(try MessagePackDecoder().decode(MPRandom.Item.self, from: bytes) == items[index])
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

/// Random values and damaged encodings for the tests above.
enum MPRandom {
    struct Item: Codable, Equatable, Sendable {
        var id: String
        var name: String
        var price: Double
        var stock: Int
        var tags: [String]
        var note: String?
    }

    static func item(seed: Int) -> Item {
        Item(id: "item-\(seed)", name: "Item \(seed) of the catalog, \(String(repeating: "é", count: seed % 5))",
             price: Double(seed) / 7, stock: seed * 13 - 100, tags: (0..<(seed % 4)).map { "t\($0)" },
             note: seed % 3 == 0 ? nil : "n\(seed)")
    }

    static func items(using rng: inout some RandomNumberGenerator) -> [Item] {
        (0..<Int.random(in: 0...4, using: &rng)).map { _ in
            Item(id: String(repeating: "i", count: Int.random(in: 0...20, using: &rng)),
                 name: String(repeating: "ñ", count: Int.random(in: 0...40, using: &rng)),
                 price: Double(Int.random(in: -100_000...100_000, using: &rng)) / 100,
                 stock: Int.random(in: Int.min...Int.max, using: &rng),
                 tags: (0..<Int.random(in: 0...3, using: &rng)).map { "t\($0)" },
                 note: Bool.random(using: &rng) ? nil : "note")
        }
    }

    static func value(depth: Int, using rng: inout some RandomNumberGenerator) -> MessagePackValue {
        let choice = Int.random(in: 0..<(depth < 3 ? 9 : 6), using: &rng)
        switch choice {
        case 0: return .nil
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .integer(Int64.random(in: -70_000...70_000, using: &rng))
        case 3: return .double(Double(Int.random(in: -1000...1000, using: &rng)) / 8)
        case 4: return .string(String(repeating: "k", count: Int.random(in: 0...40, using: &rng)))
        case 5: return .unsigned(UInt64.random(in: 0...UInt64.max, using: &rng))
        case 6: return .array((0..<Int.random(in: 0...5, using: &rng)).map { _ in value(depth: depth + 1, using: &rng) })
        default:
            let keys = ["a", "b", "c", "name", "stock", "deep"]
            var entries: [MessagePackValue.Entry] = []
            for key in keys.shuffled(using: &rng).prefix(Int.random(in: 0...5, using: &rng)) {
                entries.append(MessagePackValue.Entry(key: .string(key), value: value(depth: depth + 1, using: &rng)))
            }
            return .map(entries)
        }
    }

    /// The encoding of a random map, then damaged: a byte changed, the end cut or extended,
    /// the reserved byte or a huge length put somewhere.
    static func damagedMap(using rng: inout some RandomNumberGenerator) -> [UInt8] {
        var top: [MessagePackValue.Entry] = []
        for key in ["a", "b", "c", "deep"].shuffled(using: &rng).prefix(Int.random(in: 0...4, using: &rng)) {
            top.append(MessagePackValue.Entry(key: .string(key), value: value(depth: 1, using: &rng)))
        }
        var bytes = MessagePackValue.map(top).encoded()
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            let index = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: bytes[index] = UInt8.random(in: 0...255, using: &rng)
            case 1: bytes.removeSubrange(index...)
            case 2: bytes.append(UInt8.random(in: 0...255, using: &rng))
            case 3: bytes[index] = 0xc1
            case 4: bytes.insert(contentsOf: [0xdd, 0xff, 0xff, 0xff, 0xff], at: index)
            default: bytes[index] = [0x81, 0x91, 0xa5, 0x01, 0xc0, 0xcc][Int.random(in: 0..<6, using: &rng)]
            }
            if bytes.isEmpty { break }
        }
        return bytes
    }
}
