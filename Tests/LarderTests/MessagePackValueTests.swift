import Foundation
import Testing
import LarderMessagePack

/// The value tree of `LarderMessagePack` (what the `larder` tool reads stored values with): it
/// reads every kind of value, writes each in the smallest layout (the encoder's), and turns bad
/// bytes into a `ReadError`.
@Suite("MessagePack value tree")
struct MessagePackValueTests {
    struct Record: Codable {
        var id: Int
        var name: String
        var price: Double
        var ratio: Float
        var tags: [String]
        var counts: [String: Int]
        var blob: Data
        var when: Date
        var missing: Int?
        var flag: Bool
        var negative: Int64
        var huge: UInt64
    }

    @Test func readsWhatTheEncoderWritesAndWritesTheSameBytes() throws {
        let record = Record(
            id: 300, name: "héllo", price: 12.5, ratio: 0.25, tags: ["a", "b"], counts: ["x": -1],
            blob: Data([1, 2, 3]), when: Date(timeIntervalSince1970: 1_700_000_000.5), missing: nil, flag: true,
            negative: -40_000, huge: UInt64.max)
        let bytes = try MessagePackEncoder().encode(record)
        let value = try MessagePackValue(reading: bytes)
        guard case .map(let entries) = value else { Issue.record("not a map: \(value)"); return }
        let fields = Dictionary(uniqueKeysWithValues: entries.map { ($0.key.text ?? "?", $0.value) })
        #expect(fields["id"] == .unsigned(300))
        #expect(fields["name"]?.text == "héllo")
        #expect(fields["price"] == .double(12.5))
        #expect(fields["ratio"] == .float(0.25))
        #expect(fields["tags"] == .array([.string("a"), .string("b")]))
        #expect(fields["counts"] == .map([MessagePackValue.Entry(key: .string("x"), value: .negative(-1))]))
        #expect(fields["blob"] == .binary([1, 2, 3]))
        #expect(fields["when"]?.timestamp?.seconds == 1_700_000_000)
        #expect(fields["when"]?.timestamp?.nanoseconds == 500_000_000)
        #expect(fields["missing"] == nil)
        #expect(fields["flag"] == .bool(true))
        #expect(fields["negative"] == .negative(-40_000))
        #expect(fields["huge"] == .unsigned(UInt64.max))
        #expect(value.encoded() == bytes)
    }

    @Test func everyHeaderBoundaryRoundTrips() throws {
        for count in [0, 1, 15, 16, 31, 32, 255, 256, 65_535, 65_536] {
            let string = MessagePackValue.string([UInt8](repeating: 0x61, count: count))
            let binary = MessagePackValue.binary([UInt8](repeating: 7, count: count))
            let array = MessagePackValue.array(Array(repeating: .nil, count: count))
            let map = MessagePackValue.map((0..<count).map { MessagePackValue.Entry(key: .integer(Int64($0)), value: .bool(false)) })
            let ext = MessagePackValue.ext(type: 5, data: [UInt8](repeating: 9, count: count))
            for value in [string, binary, array, map, ext] {
                let bytes = value.encoded()
                #expect(try MessagePackValue(reading: bytes) == value, "\(count)")
                var appended: [UInt8] = [0xAA]
                value.encode(into: &appended)
                #expect(appended == [0xAA] + bytes)
            }
            // The encoder's layouts: a String of `count` bytes, an array of nils.
            #expect(string.encoded() == (try MessagePackEncoder().encode(String(repeating: "a", count: count))))
            #expect(array.encoded() == (try MessagePackEncoder().encode([Int?](repeating: nil, count: count))))
        }
        // fixext for 1, 2, 4, 8 and 16 bytes, ext8 otherwise.
        let firstBytes = [1, 2, 3, 4, 8, 16, 17].map { MessagePackValue.ext(type: 1, data: [UInt8](repeating: 0, count: $0)).encoded()[0] }
        #expect(firstBytes == [0xd4, 0xd5, 0xc7, 0xd6, 0xd7, 0xd8, 0xc7])
    }

    @Test func integersHaveOneCaseWhateverTheirWidth() throws {
        // 5 as uint8, int8, int64; -1 as int16; 200 as uint16.
        #expect(try MessagePackValue(reading: [0xcc, 5]) == .unsigned(5))
        #expect(try MessagePackValue(reading: [0xd0, 5]) == .unsigned(5))
        #expect(try MessagePackValue(reading: [0xd3, 0, 0, 0, 0, 0, 0, 0, 5]) == .unsigned(5))
        #expect(try MessagePackValue(reading: [0xd1, 0xff, 0xff]) == .negative(-1))
        #expect(try MessagePackValue(reading: [0xcd, 0, 200]).encoded() == [0xcc, 200])
        for number: Int64 in [0, 127, 128, -32, -33, -128, -129, 65_535, -32_769, Int64.min, Int64.max] {
            #expect(MessagePackValue.integer(number).encoded() == (try MessagePackEncoder().encode(number)), "\(number)")
        }
    }

    @Test func stringsThatAreNotUTF8KeepTheirBytes() throws {
        let bytes: [UInt8] = [0xa2, 0xff, 0xfe]
        let value = try MessagePackValue(reading: bytes)
        #expect(value == .string([0xff, 0xfe]))
        #expect(value.text == nil)
        #expect(value.encoded() == bytes)
    }

    @Test func timestampsUseTheEncodersLayouts() throws {
        let dates = [0, 1, 4_294_967_295, 4_294_967_296, -1, 1_700_000_000.25, -62_135_596_800].map { Date(timeIntervalSince1970: $0) }
        for date in dates {
            let encoded = try MessagePackEncoder().encode(date)
            let value = try MessagePackValue(reading: encoded)
            let (seconds, nanoseconds) = try #require(value.timestamp, "\(date)")
            #expect(MessagePackValue.timestamp(seconds: seconds, nanoseconds: nanoseconds) == value)
            #expect(value.encoded() == encoded)
            #expect(try MessagePackDecoder().decode(Date.self, from: value.encoded()) == date)
        }
        // Not timestamps: another type, a payload of the wrong size, nanoseconds out of range.
        #expect(MessagePackValue.ext(type: 1, data: [0, 0, 0, 0]).timestamp == nil)
        #expect(MessagePackValue.ext(type: -1, data: [0, 0]).timestamp == nil)
        #expect(MessagePackValue.ext(type: -1, data: [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0]).timestamp == nil)
    }

    @Test func badBytesThrowAReadErrorWithTheOffset() {
        let cases: [(bytes: [UInt8], offset: Int)] = [
            ([], 0),                                  // nothing at all
            ([0xc1], 0),                              // the reserved byte
            ([0x92, 0x01], 1),                        // an array of two with room for one
            ([0xdb, 0xff, 0xff, 0xff, 0xff, 0x61], 5), // a str32 claiming 4 GiB
            ([0xdd, 0xff, 0xff, 0xff, 0xff], 5),      // an array32 claiming 4 billion elements
            ([0x01, 0x02], 1),                        // a byte after the value
            ([0xd7, 0xff, 0x00], 2),                  // a fixext8 cut short
        ]
        for (bytes, offset) in cases {
            #expect {
                _ = try MessagePackValue(reading: bytes)
            } throws: { error in
                guard let error = error as? MessagePackValue.ReadError else { return false }
                return error.offset == offset && !error.description.isEmpty
            }
        }
    }

    @Test func nestingIsLimitedTo512Containers() throws {
        func nested(_ depth: Int) -> [UInt8] { [UInt8](repeating: 0x91, count: depth) + [0xc0] }
        var value = try MessagePackValue(reading: nested(512))
        var depth = 0
        while case .array(let elements) = value { depth += 1; value = elements[0] }
        #expect(depth == 512)
        #expect(throws: MessagePackValue.ReadError.self) { _ = try MessagePackValue(reading: nested(513)) }
        #expect(throws: MessagePackValue.ReadError.self) { _ = try MessagePackValue(reading: nested(100_000)) }
    }
}
