import Foundation
import Testing
@testable import Larder

/// Byte-exact checks of the smallest-representation rule, against bytes worked
/// out by hand from the MessagePack spec.
@Suite("MessagePack wire format")
struct MessagePackWireFormatTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let encode: @Sendable () throws -> [UInt8]
        let expected: String
        var testDescription: String { label }

        init<T: Encodable & Sendable>(_ value: T, _ expected: String, _ label: String? = nil) {
            self.label = label ?? "\(T.self) \(value)"
            self.encode = { try MessagePackEncoder().encode(value) }
            self.expected = expected
        }
    }

    static let integerCases: [Case] = [
        Case(0, "00"), Case(1, "01"), Case(127, "7f"),
        Case(128, "cc 80"), Case(255, "cc ff"),
        Case(256, "cd 01 00"), Case(65_535, "cd ff ff"),
        Case(65_536, "ce 00 01 00 00"), Case(4_294_967_295, "ce ff ff ff ff"),
        Case(4_294_967_296, "cf 00 00 00 01 00 00 00 00"),
        Case(UInt64.max, "cf ff ff ff ff ff ff ff ff"),
        Case(-1, "ff"), Case(-32, "e0"),
        Case(-33, "d0 df"), Case(-128, "d0 80"),
        Case(-129, "d1 ff 7f"), Case(-32_768, "d1 80 00"),
        Case(-32_769, "d2 ff ff 7f ff"), Case(Int(Int32.min), "d2 80 00 00 00"),
        Case(Int(Int32.min) - 1, "d3 ff ff ff ff 7f ff ff ff"),
        Case(Int64.min, "d3 80 00 00 00 00 00 00 00"),
        Case(Int64.max, "cf 7f ff ff ff ff ff ff ff"),
        // The Swift type does not matter, only the value.
        Case(Int64(5), "05"), Case(UInt64(5), "05"), Case(Int8(-5), "fb"), Case(Int16(-5), "fb"),
        Case(UInt8(200), "cc c8"), Case(Int32(200), "cc c8"), Case(UInt32(70_000), "ce 00 01 11 70"),
        Case(Int8.min, "d0 80"), Case(Int16.max, "cd 7f ff"), Case(UInt16.max, "cd ff ff"),
        Case(Int32.max, "ce 7f ff ff ff"), Case(UInt(0), "00"),
    ]

    static let otherScalarCases: [Case] = [
        Case(true, "c3"), Case(false, "c2"), Case(Int?.none, "c0", "nil"),
        Case(Float(1.5), "ca 3f c0 00 00"), Case(Float(-0.0), "ca 80 00 00 00"),
        Case(Float.infinity, "ca 7f 80 00 00"),
        Case(1.5, "cb 3f f8 00 00 00 00 00 00"), Case(-0.0, "cb 80 00 00 00 00 00 00 00"),
        Case(Double.infinity, "cb 7f f0 00 00 00 00 00 00"),
        Case(Double(bitPattern: 1), "cb 00 00 00 00 00 00 00 01", "smallest subnormal"),
        Case("", "a0"), Case("a", "a1 61"), Case("ab", "a2 61 62"),
        Case(Data(), "c4 00", "empty Data"), Case(Data([1, 2]), "c4 02 01 02", "2-byte Data"),
        Case([Int](), "90", "empty array"), Case([1, 2, 3], "93 01 02 03"),
        Case([String: Int](), "80", "empty map"), Case(["a": 1], "81 a1 61 01"),
        Case(MPPoint(x: 1, y: -1), "82 a1 78 01 a1 79 ff"),
        Case(["x", "yz"], "92 a1 78 a2 79 7a"),
        Case([true, false], "92 c3 c2"), Case([Float(1)], "91 ca 3f 80 00 00"),
        Case([[1], []], "92 91 01 90"),
        Case(URL(string: "http://a.b/c")!, "ac 68 74 74 70 3a 2f 2f 61 2e 62 2f 63"),
        Case(Decimal(string: "3.14")!, "a4 33 2e 31 34"),
        Case(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!,
             "d9 24 30 30 30 30 30 30 30 30 2d 30 30 30 30 2d 30 30 30 30 2d 30 30 30 30 2d 30 30 30 30 30 30 30 30 30 30 30 31"),
    ]

    static let timestampCases: [Case] = [
        // timestamp32: whole seconds in 0..<2^32.
        Case(Date(timeIntervalSince1970: 0), "d6 ff 00 00 00 00", "epoch"),
        Case(Date(timeIntervalSince1970: 1), "d6 ff 00 00 00 01", "1 s"),
        Case(Date(timeIntervalSince1970: 4_294_967_295), "d6 ff ff ff ff ff", "2^32-1 s"),
        // timestamp64: nanoseconds in the top 30 bits, seconds in the low 34.
        Case(Date(timeIntervalSince1970: 4_294_967_296), "d7 ff 00 00 00 01 00 00 00 00", "2^32 s"),
        Case(Date(timeIntervalSince1970: 0.5), "d7 ff 77 35 94 00 00 00 00 00", "0.5 s"),
        Case(Date(timeIntervalSince1970: 17_179_869_183), "d7 ff 00 00 00 03 ff ff ff ff", "2^34-1 s"),
        // timestamp96: nanoseconds (uint32) then signed seconds (int64).
        Case(Date(timeIntervalSince1970: 17_179_869_184), "c7 0c ff 00 00 00 00 00 00 00 04 00 00 00 00", "2^34 s"),
        Case(Date(timeIntervalSince1970: -1), "c7 0c ff 00 00 00 00 ff ff ff ff ff ff ff ff", "-1 s"),
        Case(Date(timeIntervalSince1970: -0.5), "c7 0c ff 1d cd 65 00 ff ff ff ff ff ff ff ff", "-0.5 s"),
    ]

    @Test(arguments: integerCases)
    func integers(_ testCase: Case) throws {
        #expect(MPTest.hex(try testCase.encode()) == MPTest.hex(MPTest.bytes(testCase.expected)))
    }

    @Test(arguments: otherScalarCases)
    func scalarsAndSmallContainers(_ testCase: Case) throws {
        #expect(MPTest.hex(try testCase.encode()) == MPTest.hex(MPTest.bytes(testCase.expected)))
    }

    @Test(arguments: timestampCases)
    func timestamps(_ testCase: Case) throws {
        #expect(MPTest.hex(try testCase.encode()) == MPTest.hex(MPTest.bytes(testCase.expected)))
    }

    @Test func timestampsDecodeFromEveryLayout() throws {
        for testCase in Self.timestampCases {
            let date = try MPTest.decoder.decode(Date.self, from: MPTest.bytes(testCase.expected))
            #expect(try MPTest.encoder.encode(date) == MPTest.bytes(testCase.expected), "\(testCase.label)")
        }
        // Non-minimal layouts written by other encoders are accepted too.
        let timestamp96OfOne = MPTest.bytes("c7 0c ff 00 00 00 00 00 00 00 00 00 00 00 01")
        #expect(try MPTest.decoder.decode(Date.self, from: timestamp96OfOne) == Date(timeIntervalSince1970: 1))
        let timestamp64OfOne = MPTest.bytes("d7 ff 00 00 00 00 00 00 00 01")
        #expect(try MPTest.decoder.decode(Date.self, from: timestamp64OfOne) == Date(timeIntervalSince1970: 1))
    }

    @Test func keyedContainersWriteKeysInEncodingOrder() throws {
        struct Ordered: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: MPAnyKey.self)
                try container.encode(1, forKey: MPAnyKey(stringValue: "z"))
                try container.encode(2, forKey: MPAnyKey(stringValue: "a"))
                try container.encode(3, forKey: MPAnyKey(stringValue: "m"))
            }
        }
        #expect(try MPTest.encoder.encode(Ordered()) == MPTest.bytes("83 a1 7a 01 a1 61 02 a1 6d 03"))
    }

    @Test func headersWidenWhenContainersOutgrowFixForms() throws {
        struct Sixteen: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: MPAnyKey.self)
                for index in 0..<16 {
                    try container.encode(index, forKey: MPAnyKey(stringValue: String(UnicodeScalar(UInt8(97 + index)))))
                }
                var list = container.nestedUnkeyedContainer(forKey: MPAnyKey(stringValue: "z"))
                for index in 0..<17 { try list.encode(index) }
            }
        }
        var expected = MPTest.bytes("de 00 11")
        for index in 0..<16 { expected += [0xa1, UInt8(97 + index), UInt8(index)] }
        expected += [0xa1, 0x7a] + MPTest.bytes("dc 00 11") + (0..<17).map { UInt8($0) }
        #expect(MPTest.hex(try MPTest.encoder.encode(Sixteen())) == MPTest.hex(expected))
    }

    @Test func valueThatEncodesNothingBecomesAnEmptyMap() throws {
        struct Silent: Encodable { func encode(to encoder: any Encoder) throws {} }
        struct Holder: Encodable { var silent = Silent(); var after = 1 }
        #expect(try MPTest.encoder.encode(Silent()) == [0x80])
        #expect(try MPTest.encoder.encode(Holder()) == MPTest.bytes("82 a6 73 69 6c 65 6e 74 80 a5 61 66 74 65 72 01"))
        #expect(try MPTest.encoder.encode([Silent(), Silent()]) == MPTest.bytes("92 80 80"))
    }

    @Test func encodeIntoAppendsAfterExistingBytes() throws {
        var buffer: [UInt8] = [0x01] // the store's format tag
        try MPTest.encoder.encode(MPPoint(x: 1, y: 2), into: &buffer)
        #expect(buffer == MPTest.bytes("01 82 a1 78 01 a1 79 02"))
        // Offsets recorded for header patching are absolute, so a prefix must not disturb widening.
        let many = (0..<20).map { MPPoint(x: $0, y: $0) }
        var second: [UInt8] = [0x02, 0x03]
        try MPTest.encoder.encode(["list": many], into: &second)
        #expect(Array(second.prefix(11)) == MPTest.bytes("02 03 81 a4 6c 69 73 74 dc 00 14"))
        #expect(try MPTest.decoder.decode([String: [MPPoint]].self, from: Array(second.dropFirst(2))) == ["list": many])
    }
}
