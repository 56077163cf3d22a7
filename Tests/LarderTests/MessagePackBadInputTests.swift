import Foundation
import Testing
@testable import Larder
@testable import LarderMessagePack

/// Malformed and mismatched input must produce a `DecodingError`, never a crash,
/// a hang or an out-of-bounds read.
@Suite("MessagePack bad input")
struct MessagePackBadInputTests {
    @Test func everyTruncationOfAValidEncodingThrows() throws {
        let bytes = try MPTest.encoder.encode(MPEverything.sample)
        #expect(try MPTest.decoder.decode(MPEverything.self, from: bytes) == .sample)
        for length in 0..<bytes.count {
            let prefix = Array(bytes[..<length])
            let error = MPTest.decodingError(MPEverything.self, from: prefix)
            #expect(error?.mpIsDataCorrupted == true, "prefix of \(length) bytes: \(String(describing: error))")
        }
    }

    @Test func everyTruncationThrowsThroughARawBufferToo() throws {
        let bytes = try MPTest.encoder.encode([MPPerson.ada, .grace])
        // Copy each prefix into its own allocation so any over-read would leave it.
        for length in 0..<bytes.count {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 1)
            defer { buffer.deallocate() }
            buffer.copyBytes(from: bytes[..<length])
            #expect(throws: DecodingError.self) {
                try MPTest.decoder.decode([MPPerson].self, from: UnsafeRawBufferPointer(buffer))
            }
        }
    }

    @Test func emptyInput() {
        #expect(MPTest.decodingError(Int.self, from: [])?.mpIsDataCorrupted == true)
        #expect(throws: DecodingError.self) {
            try MPTest.decoder.decode(MPPoint.self, from: UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    @Test func trailingBytesAreRejected() throws {
        let valid = try MPTest.encoder.encode(MPPoint(x: 1, y: 2))
        let error = MPTest.decodingError(MPPoint.self, from: valid + [0x00])
        #expect(error?.mpIsDataCorrupted == true)
        #expect(error?.mpContext?.debugDescription.contains("unexpected bytes") == true)
        #expect(MPTest.decodingError(Int.self, from: [0x01, 0x02])?.mpIsDataCorrupted == true)
        #expect(MPTest.decodingError(Int?.self, from: [0xc0, 0xc0])?.mpIsDataCorrupted == true)
    }

    @Test func reservedByteIsRejectedAnywhere() {
        #expect(MPTest.decodingError(Int.self, from: [0xc1])?.mpIsDataCorrupted == true)
        #expect(MPTest.decodingError([Int].self, from: [0x91, 0xc1])?.mpIsDataCorrupted == true)
        // Even under a key the type never reads.
        let unusedKey = MPTest.bytes("83 a1 78 01 a1 79 02 a1 7a c1")
        let error = MPTest.decodingError(MPPoint.self, from: unusedKey)
        #expect(error?.mpIsDataCorrupted == true)
        #expect(error?.mpContext?.debugDescription.contains("0xc1") == true)
    }

    @Test func wrongTypes() {
        // {"x": "1", "y": 2}: a string where an Int is expected.
        let stringForInt = MPTest.bytes("82 a1 78 a1 31 a1 79 02")
        let error = MPTest.decodingError(MPPoint.self, from: stringForInt)
        #expect(error?.mpIsTypeMismatch == true)
        #expect(error.map { MPTest.pathStrings($0.mpContext?.codingPath ?? []) } == ["x"])
        #expect(error?.mpContext?.debugDescription.contains("string") == true)

        #expect(MPTest.decodingError(String.self, from: [0x01])?.mpIsTypeMismatch == true)
        #expect(MPTest.decodingError(Bool.self, from: [0x01])?.mpIsTypeMismatch == true)
        #expect(MPTest.decodingError(Int.self, from: [0xc3])?.mpIsTypeMismatch == true)
        #expect(MPTest.decodingError(Int.self, from: MPTest.bytes("cb 3f f0 00 00 00 00 00 00"))?.mpIsTypeMismatch == true)
        #expect(MPTest.decodingError(MPPoint.self, from: [0x90])?.mpIsTypeMismatch == true)
        #expect(MPTest.decodingError([Int].self, from: [0x80])?.mpIsTypeMismatch == true)
        #expect(MPTest.decodingError([MPPoint].self, from: [0x80])?.mpIsTypeMismatch == true)
        // Data only decodes from bin, not from arrays or strings.
        #expect(MPTest.decodingError(Data.self, from: [0x92, 0x01, 0x02])?.mpIsTypeMismatch == true)
        #expect(MPTest.decodingError(Data.self, from: [0xa1, 0x61])?.mpIsTypeMismatch == true)
        #expect(MPTest.decodingError(Date.self, from: [0x01])?.mpIsTypeMismatch == true)
    }

    @Test func nilAndMissingValues() {
        if case .valueNotFound = MPTest.decodingError(Int.self, from: [0xc0]) {} else {
            Issue.record("nil for a non-optional Int must be valueNotFound")
        }
        let missingY = MPTest.bytes("81 a1 78 01")
        if case .keyNotFound(let key, _) = MPTest.decodingError(MPPoint.self, from: missingY) {
            #expect(key.stringValue == "y")
        } else {
            Issue.record("missing key must be keyNotFound")
        }
        if case .valueNotFound = MPTest.decodingError(MPPoint.self, from: MPTest.bytes("82 a1 78 01 a1 79 c0")) {} else {
            Issue.record("nil for a non-optional property must be valueNotFound")
        }
    }

    @Test func errorPathsThroughArraysAndMaps() throws {
        // Grace's age as a string, written through a loose structure.
        struct Loose: Encodable {
            func encode(to encoder: any Encoder) throws {
                var list = encoder.unkeyedContainer()
                try list.encode(MPPerson.ada)
                var second = list.nestedContainer(keyedBy: MPAnyKey.self)
                try second.encode("Grace", forKey: MPAnyKey("name"))
                try second.encode("old", forKey: MPAnyKey("age"))
            }
        }
        let error = MPTest.decodingError([MPPerson].self, from: try MPTest.encoder.encode(Loose()))
        #expect(error?.mpIsTypeMismatch == true)
        #expect(error.map { MPTest.pathStrings($0.mpContext?.codingPath ?? []) } == ["Index 1", "age"])

        // Element errors inside arrays decoded in one go keep the element index.
        let mixed = MPTest.bytes("93 a1 61 a1 62 05")
        let stringError = MPTest.decodingError([String].self, from: mixed)
        #expect(stringError?.mpIsTypeMismatch == true)
        #expect(stringError.map { MPTest.pathStrings($0.mpContext?.codingPath ?? []) } == ["Index 2"])
        let nested = MPTest.bytes("81 a4 6c 69 73 74 92 01 cd 01 00")
        let rangeError = MPTest.decodingError([String: [UInt8]].self, from: nested)
        #expect(rangeError?.mpIsDataCorrupted == true)
        #expect(rangeError.map { MPTest.pathStrings($0.mpContext?.codingPath ?? []) } == ["list", "Index 1"])
    }

    @Test func integersOutOfRangeForTheTargetType() throws {
        let cases: [([UInt8], any Decodable.Type)] = [
            (MPTest.bytes("cd 01 2c"), UInt8.self), // 300
            (MPTest.bytes("cc 80"), Int8.self), // 128
            (MPTest.bytes("ff"), UInt.self), // -1
            (MPTest.bytes("ff"), UInt64.self),
            (MPTest.bytes("d1 ff 7f"), Int8.self), // -129
            (MPTest.bytes("ce 80 00 00 00"), Int32.self), // 2^31
            (MPTest.bytes("cf ff ff ff ff ff ff ff ff"), Int64.self), // UInt64.max
            (MPTest.bytes("cf ff ff ff ff ff ff ff ff"), Int.self),
            (MPTest.bytes("d3 80 00 00 00 00 00 00 00"), Int32.self), // Int64.min
            (MPTest.bytes("ce 00 01 00 00"), UInt16.self), // 65536
            (MPTest.bytes("ff"), UInt128.self),
            // Not exactly representable as a floating-point number.
            (MPTest.bytes("cf 00 20 00 00 00 00 00 01"), Double.self), // 2^53 + 1
            (MPTest.bytes("ce 01 00 00 01"), Float.self), // 2^24 + 1
            (MPTest.bytes("cb 3f b9 99 99 99 99 99 9a"), Float.self), // 0.1 as float64
        ]
        for (bytes, type) in cases {
            let error = MPTest.decodingError(type, from: bytes)
            #expect(error?.mpIsDataCorrupted == true, "\(MPTest.hex(bytes)) as \(type)")
            #expect(error?.mpContext?.debugDescription.contains("\(type)") == true, "\(String(describing: error))")
        }
        // The same inside a struct names the key.
        let error = MPTest.decodingError(MPAllIntegers.self, from: try MPTest.encoder.encode(["i8": 1_000]))
        #expect(error?.mpIsDataCorrupted == true)
        #expect(error.map { MPTest.pathStrings($0.mpContext?.codingPath ?? []) } == ["i8"])
    }

    @Test func invalidUTF8IsRejected() {
        let invalid: [[UInt8]] = [
            [0xff], [0xc0, 0x80] /* overlong NUL */, [0xe0, 0x80, 0x80] /* overlong */,
            [0xed, 0xa0, 0x80] /* surrogate */, [0xf4, 0x90, 0x80, 0x80] /* beyond U+10FFFF */,
            [0xe2, 0x82] /* truncated */, [0x80] /* lone continuation */, [0x61, 0x62, 0xf0, 0x9f, 0x98] /* truncated emoji */,
            Array("12345678".utf8) + [0xfe] /* after an ASCII run */,
        ]
        for payload in invalid {
            let bytes = [0xa0 | UInt8(payload.count)] + payload
            let error = MPTest.decodingError(String.self, from: bytes)
            #expect(error?.mpIsDataCorrupted == true, "\(MPTest.hex(payload))")
            #expect(error?.mpContext?.debugDescription.contains("UTF-8") == true)
            #expect(MPTest.decodingError([String].self, from: [0x91] + bytes)?.mpIsDataCorrupted == true)
            #expect(MPTest.decodingError(MPPerson.self, from: MPTest.bytes("81 a4 6e 61 6d 65") + bytes)?.mpIsDataCorrupted == true)
        }
        let valid: [[UInt8]] = [[0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x98, 0x80], [0xef, 0xbf, 0xbf], [0xf4, 0x8f, 0xbf, 0xbf]]
        for payload in valid {
            let decoded = try? MPTest.decoder.decode(String.self, from: [0xa0 | UInt8(payload.count)] + payload)
            #expect(decoded == String(decoding: payload, as: UTF8.self))
        }
    }

    @Test func excessiveNestingDepth() throws {
        let deep = [UInt8](repeating: 0x91, count: 600) + [0x00]
        let error = MPTest.decodingError([MPAny].self, from: deep)
        #expect(error?.mpIsDataCorrupted == true)
        #expect(error?.mpContext?.debugDescription.contains("512") == true)
        // Maps count too.
        // {"": {"": ... 0}}
        let deepMaps = [UInt8](repeating: 0, count: 1_000).flatMap { _ -> [UInt8] in [0x81, 0xa0] }
        #expect(MPTest.decodingError(MPAny.self, from: deepMaps + [0x00])?.mpIsDataCorrupted == true)
        // 512 levels is still fine.
        let limit = [UInt8](repeating: 0x91, count: 511) + [0x90]
        #expect(try MPTest.decoder.decode(MPAny.self, from: limit) != .nil_)
        // A type that re-decodes itself forever is stopped by the same limit.
        struct Recursive: Decodable {
            init(from decoder: any Decoder) throws {
                _ = try decoder.singleValueContainer().decode(Recursive.self)
            }
        }
        let recursionError = MPTest.decodingError(Recursive.self, from: [0x00])
        #expect(recursionError?.mpIsDataCorrupted == true)
        #expect(recursionError?.mpContext?.debugDescription.contains("512") == true)
    }

    @Test func lengthsLargerThanTheInput() {
        let hostile: [[UInt8]] = [
            MPTest.bytes("db ff ff ff ff 61"), // str32 of 4 GiB
            MPTest.bytes("da ff ff 61"), MPTest.bytes("d9 ff 61"),
            MPTest.bytes("c6 ff ff ff ff 00"), // bin32
            MPTest.bytes("dd ff ff ff ff 00"), // array32 of 4 billion elements
            MPTest.bytes("df ff ff ff ff 00 00"), // map32
            MPTest.bytes("dc ff ff"), MPTest.bytes("de 00 02 a0 00"),
            MPTest.bytes("c9 ff ff ff ff ff 00"), // ext32
            MPTest.bytes("c7 0c ff 00"), MPTest.bytes("d7 ff 00"), MPTest.bytes("cf 00"),
            MPTest.bytes("9f 00"), MPTest.bytes("8f a1 61"),
        ]
        for bytes in hostile {
            #expect(MPTest.decodingError(MPAny.self, from: bytes)?.mpIsDataCorrupted == true, "\(MPTest.hex(bytes))")
            #expect(MPTest.decodingError([Int].self, from: bytes)?.mpIsDataCorrupted == true, "\(MPTest.hex(bytes))")
            #expect(MPTest.decodingError(Data.self, from: bytes)?.mpIsDataCorrupted == true, "\(MPTest.hex(bytes))")
        }
    }

    @Test func malformedTimestamps() throws {
        let malformed: [[UInt8]] = [
            MPTest.bytes("d7 ff ff ff ff ff 00 00 00 00"), // nanoseconds 1073741823 > 999999999
            MPTest.bytes("c7 0c ff 3b 9a ca 00 00 00 00 00 00 00 00 00"), // nanoseconds 1e9
            MPTest.bytes("d6 01 00 00 00 00"), // extension type 1, not -1
            MPTest.bytes("c7 05 ff 00 00 00 00 00"), // 5-byte payload
            MPTest.bytes("d4 ff 00"), // 1-byte payload
        ]
        for bytes in malformed {
            let error = MPTest.decodingError(Date.self, from: bytes)
            #expect(error?.mpIsDataCorrupted == true, "\(MPTest.hex(bytes))")
        }
        // Other extension types are skipped fine when not read.
        let withExtension = MPTest.bytes("83 a1 78 01 a1 79 02 a1 65 d4 07 00")
        #expect(try MPTest.decoder.decode(MPPoint.self, from: withExtension) == MPPoint(x: 1, y: 2))
    }

    @Test func unsupportedMapKeys() {
        // {b"\x01": 1} has a binary key, which keyed containers cannot match.
        let binaryKey = MPTest.bytes("81 c4 01 01 01")
        #expect(MPTest.decodingError([String: Int].self, from: binaryKey)?.mpIsDataCorrupted == true)
        // {nil: 1}
        #expect(MPTest.decodingError(MPPoint.self, from: MPTest.bytes("81 c0 01"))?.mpIsDataCorrupted == true)
    }

    @Test func invalidURLAndDecimalStrings() {
        #expect(MPTest.decodingError(URL.self, from: [0xa0])?.mpIsDataCorrupted == true)
        #expect(MPTest.decodingError(Decimal.self, from: MPTest.bytes("a3 61 62 63"))?.mpIsDataCorrupted == true)
    }

    /// Deep nesting over a large payload must not make every level walk the
    /// whole payload again (that was 20+ seconds for 1 MB before container
    /// spans were recorded during validation).
    @Test func deepNestingOverALargePayloadStaysLinear() throws {
        final class Chain: Decodable { var a: Chain?; var b: [Int?]? }
        final class Tower: Decodable { var a: Int; var b: Tower? }
        // 500 nested {"a": ...} around {"b": [nil × 200 000]}.
        var chain: [UInt8] = []
        for _ in 0..<500 { chain += [0x81, 0xa1, 0x61] }
        chain += MPTest.bytes("81 a1 62 dd 00 03 0d 40") + [UInt8](repeating: 0xc0, count: 200_000)
        // {"b": {"b": ... {"a": 1, "c": [nil × 65 535]} ..., "a": 1}, "a": 1}: keys in the
        // opposite order to the one the type reads them in.
        var tower: [UInt8] = []
        for _ in 0..<500 { tower += [0x82, 0xa1, 0x62] }
        tower += MPTest.bytes("82 a1 61 01 a1 63 dc ff ff") + [UInt8](repeating: 0xc0, count: 65_535)
        for _ in 0..<500 { tower += [0xa1, 0x61, 0x01] }

        let clock = ContinuousClock()
        let chainTime = try clock.measure { _ = try MPTest.decoder.decode(Chain.self, from: chain) }
        let towerTime = try clock.measure { _ = try MPTest.decoder.decode(Tower.self, from: tower) }
        // Debug builds take 0.3 to 0.8 s here; walking the payload at every
        // level took 7 s (and minutes with a larger payload).
        #expect(chainTime < .seconds(3), "chain took \(chainTime)")
        #expect(towerTime < .seconds(2), "tower took \(towerTime)")
    }

    @Test func validationRecordsTheEndsOfBigContainersOnly() throws {
        // [[1, 2], "sixteen bytes...", {"k": [0 × 20]}]
        let bytes = MPTest.bytes("93 92 01 02") + [0xb0] + Array("sixteen bytes!!!".utf8)
            + MPTest.bytes("81 a1 6b dc 00 14") + [UInt8](repeating: 0, count: 20)
        var spans: [MessagePackContainerSpan]? = []
        let end = try bytes.withUnsafeBytes { buffer in
            try MessagePackReader(bytes: buffer).validateValue(at: 0, spans: &spans)
        }
        #expect(end == bytes.count)
        // The outer array and the map and array inside it are 16 bytes or more;
        // the 4-byte [1, 2] is walked instead of recorded.
        let mapStart = 4 + 17
        #expect(spans?.map(\.start) == [0, mapStart, mapStart + 3])
        #expect(spans?.map(\.end) == [bytes.count, bytes.count, bytes.count])
        let recorded = try #require(spans)
        #expect(MessagePackContainerSpan.end(ofContainerAt: mapStart, in: recorded) == bytes.count)
        #expect(MessagePackContainerSpan.end(ofContainerAt: 1, in: recorded) == nil)
    }

    /// Deterministic pseudo-random inputs: every failure must be a DecodingError.
    @Test func randomInputNeverCrashes() throws {
        var generator = SplitMix(seed: 0x5eed)
        let seeds = [try MPTest.encoder.encode(MPEverything.sample), try MPTest.encoder.encode([MPPerson.ada, .grace])]
        var decodedSomething = 0
        for round in 0..<4_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                // Mutate a valid encoding: flip, insert or delete a few bytes.
                bytes = seeds[round / 2 % seeds.count]
                for _ in 0..<(1 + Int(generator.next() % 4)) {
                    let position = Int(generator.next() % UInt64(bytes.count))
                    switch generator.next() % 3 {
                    case 0: bytes[position] = UInt8(truncatingIfNeeded: generator.next())
                    case 1: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: position)
                    default: bytes.remove(at: position)
                    }
                }
            } else {
                bytes = (0..<Int(generator.next() % 64)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            }
            for attempt in [decodeAttempt(MPEverything.self), decodeAttempt([MPPerson].self), decodeAttempt(MPAny.self),
                            decodeAttempt([String: [Int]].self), decodeAttempt(MPCompany.self)] {
                do {
                    try attempt(bytes)
                    decodedSomething += 1
                } catch is DecodingError {
                    // expected for most inputs
                } catch {
                    Issue.record("non-DecodingError \(error) for \(MPTest.hex(bytes))")
                }
            }
        }
        // Random bytes are often a valid MPAny (a single fixint, for one).
        #expect(decodedSomething > 0)
    }

    private func decodeAttempt<T: Decodable>(_ type: T.Type) -> ([UInt8]) throws -> Void {
        { bytes in _ = try MPTest.decoder.decode(T.self, from: bytes) }
    }
}

