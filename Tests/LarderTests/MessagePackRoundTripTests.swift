import Foundation
import Testing
@testable import Larder

@Suite("MessagePack round trips")
struct MessagePackRoundTripTests {
    // MARK: Structs, enums, optionals

    @Test func flatStruct() throws {
        #expect(try MPTest.roundTrip(MPPerson.ada) == .ada)
        #expect(try MPTest.roundTrip(MPPerson.grace) == .grace)
    }

    @Test func nestedStructsEnumsAndCollections() throws {
        let company = MPTestCompany.make()
        #expect(try MPTest.roundTrip(company) == company)
        #expect(try MPTest.roundTrip([company, company]) == [company, company])
    }

    @Test func enumsWithAssociatedValues() throws {
        let ratings: [MPRating] = [
            .unrated, .stars(5), .stars(-1),
            .review(author: "", score: -0.0, tags: ["a", "b"]),
            .pair(MPPoint(x: 1, y: 2), nil), .pair(MPPoint(x: 3, y: 4), MPPoint(x: 5, y: 6)),
        ]
        for rating in ratings {
            #expect(try MPTest.roundTrip(rating) == rating)
        }
        #expect(try MPTest.roundTrip(ratings) == ratings)
    }

    @Test func rawValueEnums() throws {
        #expect(try MPTest.roundTrip(MPColor.allCases) == MPColor.allCases)
        #expect(try MPTest.roundTrip(MPLevel.high) == .high)
        // Raw-value enums use their raw value's form.
        #expect(try MPTest.encoder.encode(MPColor.red) == MPTest.bytes("a3 72 65 64"))
        #expect(try MPTest.encoder.encode(MPLevel.high) == MPTest.bytes("cd 03 e8"))
    }

    @Test func absentOptionalsOmitTheirKeys() throws {
        let empty = MPOptionals()
        let bytes = try MPTest.encoder.encode(empty)
        #expect(bytes == [0x80]) // empty fixmap: no keys at all
        #expect(try MPTest.decoder.decode(MPOptionals.self, from: bytes) == empty)

        let full = MPOptionals(number: 0, text: "", point: MPPoint(x: 1, y: 1), date: Date(timeIntervalSince1970: 0))
        #expect(try MPTest.roundTrip(full) == full)

        let partial = MPOptionals(number: nil, text: "t", point: nil, date: nil)
        let partialBytes = try MPTest.encoder.encode(partial)
        #expect(partialBytes == MPTest.bytes("81 a4 74 65 78 74 a1 74"))
        #expect(try MPTest.decoder.decode(MPOptionals.self, from: partialBytes) == partial)
    }

    @Test func explicitNilsAreWrittenAsNil() throws {
        let value = MPExplicitNils(number: nil, text: nil)
        let bytes = try MPTest.encoder.encode(value)
        // {"number": nil, "text": nil}
        #expect(bytes == MPTest.bytes("82 a6 6e 75 6d 62 65 72 c0 a4 74 65 78 74 c0"))
        #expect(try MPTest.decoder.decode(MPExplicitNils.self, from: bytes) == value)
        let filled = MPExplicitNils(number: -7, text: "x")
        #expect(try MPTest.roundTrip(filled) == filled)
    }

    @Test func explicitNilDecodesAsNilForSynthesizedOptionals() throws {
        // A synthesized Optional property accepts both an absent key and a nil value.
        let bytes = try MPTest.encoder.encode(MPExplicitNils(number: nil, text: "x"))
        let decoded = try MPTest.decoder.decode(MPOptionals.self, from: bytes)
        #expect(decoded == MPOptionals(number: nil, text: "x", point: nil, date: nil))
    }

    @Test func optionalsAtTopLevelAndInArrays() throws {
        let none: Int? = nil
        #expect(try MPTest.encoder.encode(none) == [0xc0])
        #expect(try MPTest.decoder.decode(Int?.self, from: [0xc0]) == nil)
        #expect(try MPTest.decoder.decode(Int?.self, from: [0x05]) == 5)
        let holes: [String?] = ["a", nil, "", nil]
        #expect(try MPTest.roundTrip(holes) == holes)
        let nested: [[Int?]?] = [nil, [nil, 1], []]
        #expect(try MPTest.roundTrip(nested) == nested)
    }

    // MARK: Arrays and dictionaries

    @Test func emptyAndLargeArrays() throws {
        #expect(try MPTest.roundTrip([Int]()) == [])
        #expect(try MPTest.roundTrip([MPPoint]()) == [])
        #expect(try MPTest.encoder.encode([String]()) == [0x90])

        let ints = (0..<70_000).map { $0 * 7 - 100_000 }
        let intBytes = try MPTest.encoder.encode(ints)
        #expect(Array(intBytes.prefix(5)) == MPTest.bytes("dd 00 01 11 70"))
        #expect(try MPTest.decoder.decode([Int].self, from: intBytes) == ints)

        // Structs go through unkeyed containers, so the header placeholder has to
        // grow from 1 to 5 bytes when the array closes.
        let points = (0..<70_000).map { MPPoint(x: $0, y: -$0) }
        let pointBytes = try MPTest.encoder.encode(points)
        #expect(Array(pointBytes.prefix(5)) == MPTest.bytes("dd 00 01 11 70"))
        #expect(try MPTest.decoder.decode([MPPoint].self, from: pointBytes) == points)

        let strings = (0..<65_536).map { String($0) }
        let stringBytes = try MPTest.encoder.encode(strings)
        #expect(Array(stringBytes.prefix(5)) == MPTest.bytes("dd 00 01 00 00"))
        #expect(try MPTest.decoder.decode([String].self, from: stringBytes) == strings)
    }

    @Test func arraysAtEveryHeaderBoundary() throws {
        for (count, header) in [(15, "9f"), (16, "dc 00 10"), (65_535, "dc ff ff"), (65_536, "dd 00 01 00 00")] {
            let headerBytes = MPTest.bytes(header)
            let points = (0..<count).map { MPPoint(x: $0, y: 0) }
            let bytes = try MPTest.encoder.encode(points)
            #expect(Array(bytes.prefix(headerBytes.count)) == headerBytes, "count \(count)")
            #expect(try MPTest.decoder.decode([MPPoint].self, from: bytes) == points)
            let flags = (0..<count).map { $0 % 3 == 0 }
            let flagBytes = try MPTest.encoder.encode(flags)
            #expect(Array(flagBytes.prefix(headerBytes.count)) == headerBytes, "count \(count)")
            #expect(try MPTest.decoder.decode([Bool].self, from: flagBytes) == flags)
        }
    }

    @Test func dictionariesWithStringAndIntKeys() throws {
        let byName = ["one": 1, "two": 2, "": 0, "ünï": -5]
        #expect(try MPTest.roundTrip(byName) == byName)
        let byNumber = [1: "a", -20: "b", 300: "c", Int.min: "min"]
        #expect(try MPTest.roundTrip(byNumber) == byNumber)
        // Int keys are written as their decimal strings.
        #expect(try MPTest.encoder.encode([7: true]) == MPTest.bytes("81 a1 37 c3"))
        let nested = ["a": [1: [MPPoint(x: 1, y: 2)]], "b": [:]]
        #expect(try MPTest.roundTrip(nested) == nested)
        #expect(try MPTest.roundTrip([String: Int]()) == [:])
    }

    @Test func mapsAtEveryHeaderBoundary() throws {
        for (count, header) in [(15, "8f"), (16, "de 00 10"), (65_535, "de ff ff"), (65_536, "df 00 01 00 00")] {
            let headerBytes = MPTest.bytes(header)
            var map: [String: Int] = [:]
            for index in 0..<count { map["k\(index)"] = index }
            let bytes = try MPTest.encoder.encode(map)
            #expect(Array(bytes.prefix(headerBytes.count)) == headerBytes, "count \(count)")
            #expect(try MPTest.decoder.decode([String: Int].self, from: bytes) == map)
        }
    }

    // MARK: Foundation types

    @Test func dates() throws {
        let dates = [
            Date(timeIntervalSince1970: 0),
            Date(timeIntervalSince1970: 1),
            Date(timeIntervalSince1970: 1_700_000_000.5),
            Date(timeIntervalSince1970: 1_700_000_000.123456),
            Date(timeIntervalSince1970: -1),
            Date(timeIntervalSince1970: -0.25),
            Date(timeIntervalSince1970: -2_208_988_800), // 1900-01-01
            Date(timeIntervalSince1970: 4_294_967_295), // last timestamp32 second
            Date(timeIntervalSince1970: 4_294_967_296), // first timestamp64-only second
            Date(timeIntervalSince1970: 17_179_869_184), // 2^34: needs timestamp96
            Date(timeIntervalSince1970: 253_402_300_799), // 9999-12-31T23:59:59Z
            Date.distantFuture,
            Date.distantPast,
            Date(timeIntervalSinceReferenceDate: 0),
        ]
        for date in dates {
            let decoded = try MPTest.roundTrip(date)
            #expect(decoded == date, "\(date.timeIntervalSince1970)")
        }
        #expect(try MPTest.roundTrip(dates) == dates)
    }

    @Test func datesNearTheReferenceDateKeepNanosecondPrecision() throws {
        // Doubles near 2001 resolve finer than a nanosecond, which the timestamp
        // extension cannot carry: the round trip is exact to the nanosecond.
        let date = Date(timeIntervalSinceReferenceDate: 0.123_456_789_123)
        let decoded = try MPTest.roundTrip(date)
        #expect(abs(decoded.timeIntervalSinceReferenceDate - date.timeIntervalSinceReferenceDate) < 1e-9)
    }

    @Test func data() throws {
        for count in [0, 1, 255, 256, 300, 65_535, 65_536, 70_000] {
            let data = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let bytes = try MPTest.encoder.encode(data)
            #expect(try MPTest.decoder.decode(Data.self, from: bytes) == data, "count \(count)")
            #expect(bytes.count - data.count == (count <= 255 ? 2 : count <= 65_535 ? 3 : 5), "count \(count)")
        }
        struct Blob: Codable, Equatable { var payload: Data; var list: [Data] }
        let blob = Blob(payload: Data(repeating: 7, count: 300), list: [Data(), Data([1])])
        #expect(try MPTest.roundTrip(blob) == blob)
    }

    @Test func uuidURLAndDecimal() throws {
        let uuid = UUID()
        #expect(try MPTest.roundTrip(uuid) == uuid)
        // UUID keeps its own Codable form: a 36-character string (str8).
        #expect(try MPTest.encoder.encode(uuid) == [0xd9, 36] + Array(uuid.uuidString.utf8))

        let urls = [URL(string: "https://example.com/a/b?c=d&e=%20f#g")!, URL(string: "file:///tmp/x")!,
                    URL(string: "relative/path", relativeTo: URL(string: "https://example.com/base/")!)!]
        for url in urls {
            let bytes = try MPTest.encoder.encode(url)
            let decoded = try MPTest.decoder.decode(URL.self, from: bytes)
            #expect(decoded.absoluteString == url.absoluteString)
            #expect(try MPTest.decoder.decode(String.self, from: bytes) == url.absoluteString)
        }

        let decimals = ["0", "-12345.6789", "3.14159265358979323846264338327950288", "1e-20", "99999999999999999999"]
            .map { Decimal(string: $0)! }
        for decimal in decimals {
            let bytes = try MPTest.encoder.encode(decimal)
            #expect(try MPTest.decoder.decode(String.self, from: bytes) == decimal.description)
            #expect(try MPTest.decoder.decode(Decimal.self, from: bytes) == decimal)
        }
        struct Money: Codable, Equatable { var amount: Decimal; var amounts: [Decimal]; var link: URL? }
        let money = Money(amount: Decimal(string: "10.05")!, amounts: decimals, link: urls[0])
        #expect(try MPTest.roundTrip(money) == money)
    }

    // MARK: Numbers

    @Test func everyIntegerWidthThroughKeyedContainers() throws {
        for value in [MPAllIntegers.minimum, .maximum, .zero, .boundaries] {
            #expect(try MPTest.roundTrip(value) == value)
        }
    }

    @Test func everyIntegerWidthThroughUnkeyedContainers() throws {
        for value in [MPAllIntegers.minimum, .maximum, .zero, .boundaries] {
            #expect(try MPTest.roundTrip(MPUnkeyedIntegers(value)) == MPUnkeyedIntegers(value))
        }
    }

    @Test func integerBoundariesAtTopLevel() throws {
        let signed: [Int64] = [
            .min, Int64(Int32.min) - 1, Int64(Int32.min), -32_769, -32_768, -129, -128, -33, -32, -1,
            0, 1, 127, 128, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296, .max,
        ]
        for value in signed {
            #expect(try MPTest.roundTrip(value) == value)
            #expect(try MPTest.roundTrip(Int(value)) == Int(value))
        }
        let unsigned: [UInt64] = [0, 127, 128, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296, .max]
        for value in unsigned {
            #expect(try MPTest.roundTrip(value) == value)
            #expect(try MPTest.roundTrip(UInt(value)) == UInt(value))
        }
        for value: Int8 in [.min, -33, -32, -1, 0, 127] { #expect(try MPTest.roundTrip(value) == value) }
        for value: Int16 in [.min, -129, -128, 255, 256, .max] { #expect(try MPTest.roundTrip(value) == value) }
        for value: Int32 in [.min, -32_769, 65_535, 65_536, .max] { #expect(try MPTest.roundTrip(value) == value) }
        for value: UInt8 in [0, 127, 128, .max] { #expect(try MPTest.roundTrip(value) == value) }
        for value: UInt16 in [0, 255, 256, .max] { #expect(try MPTest.roundTrip(value) == value) }
        for value: UInt32 in [0, 65_535, 65_536, .max] { #expect(try MPTest.roundTrip(value) == value) }
        #expect(try MPTest.roundTrip([Int8.min, 0, .max]) == [Int8.min, 0, .max])
        #expect(try MPTest.roundTrip([UInt16.max, 0]) == [UInt16.max, 0])
        #expect(try MPTest.roundTrip([Int64.min, .max]) == [Int64.min, .max])
        #expect(try MPTest.roundTrip([UInt64.max, 0]) == [UInt64.max, 0])
        #expect(try MPTest.roundTrip([UInt8.max, 0]) == [UInt8.max, 0])
        #expect(try MPTest.roundTrip([Int32.min, .max]) == [Int32.min, .max])
        #expect(try MPTest.roundTrip([UInt32.max]) == [UInt32.max])
    }

    @Test func int128WithinSixtyFourBits() throws {
        for value: Int128 in [Int128(Int64.min), -1, 0, Int128(UInt64.max)] {
            #expect(try MPTest.roundTrip(value) == value)
        }
        #expect(try MPTest.roundTrip(UInt128(UInt64.max)) == UInt128(UInt64.max))
        #expect(throws: EncodingError.self) { try MPTest.encoder.encode(Int128(UInt64.max) + 1) }
        #expect(throws: EncodingError.self) { try MPTest.encoder.encode(UInt128(UInt64.max) + 1) }
    }

    @Test func integersDecodeIntoAnyTypeThatHoldsThem() throws {
        // Width on the wire follows the value, not the Swift type it came from.
        let small = try MPTest.encoder.encode(Int64(100))
        #expect(try MPTest.decoder.decode(UInt8.self, from: small) == 100)
        #expect(try MPTest.decoder.decode(Int8.self, from: small) == 100)
        #expect(try MPTest.decoder.decode(UInt64.self, from: small) == 100)
        let negative = try MPTest.encoder.encode(Int8(-5))
        #expect(try MPTest.decoder.decode(Int64.self, from: negative) == -5)
        // int8..int64 formats holding non-negative values (other encoders write these) decode into unsigned types.
        #expect(try MPTest.decoder.decode(UInt8.self, from: MPTest.bytes("d3 00 00 00 00 00 00 00 ff")) == 255)
        #expect(try MPTest.decoder.decode(UInt64.self, from: MPTest.bytes("d0 05")) == 5)
        // Integers widen to floating point when exact.
        #expect(try MPTest.decoder.decode(Double.self, from: small) == 100)
        #expect(try MPTest.decoder.decode(Float.self, from: negative) == -5)
        #expect(try MPTest.decoder.decode(Double.self, from: MPTest.encoder.encode(Int64(1) << 53)) == 9_007_199_254_740_992)
        // float32 widens to Double; float64 narrows to Float when exact.
        #expect(try MPTest.decoder.decode(Double.self, from: MPTest.encoder.encode(Float(0.1))) == Double(Float(0.1)))
        #expect(try MPTest.decoder.decode(Float.self, from: MPTest.encoder.encode(1.5)) == 1.5)
    }

    @Test func floatingPointSpecialValues() throws {
        let doubles: [Double] = [0, -0.0, 1.5, .pi, .infinity, -.infinity, .greatestFiniteMagnitude,
                                 .leastNonzeroMagnitude, .leastNormalMagnitude, Double(bitPattern: 0x000f_ffff_ffff_ffff), Double(bitPattern: 0x800f_ffff_ffff_ffff)]
        for value in doubles {
            let decoded = try MPTest.roundTrip(value)
            #expect(decoded.bitPattern == value.bitPattern, "\(value)")
        }
        let floats: [Float] = [0, -0.0, 1.5, .infinity, -.infinity, .greatestFiniteMagnitude,
                               .leastNonzeroMagnitude, .leastNormalMagnitude, Float(bitPattern: 0x007f_ffff), Float(bitPattern: 0x8000_0001)]
        for value in floats {
            let decoded = try MPTest.roundTrip(value)
            #expect(decoded.bitPattern == value.bitPattern, "\(value)")
        }
        let negativeZero = try MPTest.roundTrip(-0.0)
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
        #expect(try MPTest.roundTrip(Double.nan).isNaN)
        #expect(try MPTest.roundTrip(Float.nan).isNaN)
        // NaN payloads survive bit for bit.
        let payloadNaN = Double(bitPattern: 0x7ff8_0000_dead_beef)
        #expect(try MPTest.roundTrip(payloadNaN).bitPattern == payloadNaN.bitPattern)
        let signalingFloat = Float(bitPattern: 0x7fa0_0001)
        #expect(try MPTest.roundTrip(signalingFloat).bitPattern == signalingFloat.bitPattern)
        // Subnormals inside structures and arrays.
        struct Pair: Codable, Equatable { var f: Float; var d: Double }
        let pair = Pair(f: .leastNonzeroMagnitude, d: .leastNonzeroMagnitude)
        #expect(try MPTest.roundTrip(pair) == pair)
        let decodedDoubles = try MPTest.roundTrip(doubles)
        #expect(decodedDoubles.map(\.bitPattern) == doubles.map(\.bitPattern))
        let decodedFloats = try MPTest.roundTrip(floats)
        #expect(decodedFloats.map(\.bitPattern) == floats.map(\.bitPattern))
    }

    @Test func scalarsThroughConcreteContainerOverloads() throws {
        let scalars = MPUnkeyedScalars(flag: true, text: "ßtring", double: -.infinity, float: .leastNonzeroMagnitude)
        #expect(try MPTest.roundTrip(scalars) == scalars)

        let values: [MPSingleScalar.Value] = [
            .bool(false), .string("single"), .double(-0.0), .float(3.5),
            .i8(.min), .i16(.min), .i32(.min), .i64(.min), .i(.min),
            .u8(.max), .u16(.max), .u32(.max), .u64(.max), .u(.max), .none,
        ]
        for value in values {
            var decoder = MessagePackDecoder()
            decoder.userInfo[MPSingleScalar.kindKey] = value.kind
            let bytes = try MPTest.encoder.encode(MPSingleScalar(value))
            let decoded = try decoder.decode(MPSingleScalar.self, from: bytes)
            #expect(decoded == MPSingleScalar(value), "\(value)")
        }
    }

    // MARK: Strings

    @Test func stringsAtEveryHeaderBoundary() throws {
        for (count, header) in [(0, "a0"), (31, "bf"), (32, "d9 20"), (255, "d9 ff"), (256, "da 01 00"),
                                (65_535, "da ff ff"), (65_536, "db 00 01 00 00")] {
            let string = MPTest.string(utf8Count: count)
            let bytes = try MPTest.encoder.encode(string)
            let headerBytes = MPTest.bytes(header)
            #expect(Array(bytes.prefix(headerBytes.count)) == headerBytes, "length \(count)")
            #expect(bytes.count == headerBytes.count + count)
            #expect(try MPTest.decoder.decode(String.self, from: bytes) == string)
        }
    }

    @Test func nonASCIIStrings() throws {
        let strings = ["é", "日本語テキスト", "emoji 👩‍👩‍👧‍👦 family", "\u{0}nul\u{0}", "Ω≈ç√∫", "𝄞 clef",
                       String(repeating: "€", count: 100)]
        for string in strings {
            #expect(try MPTest.roundTrip(string) == string)
        }
        #expect(try MPTest.roundTrip(strings) == strings)
        // The length in the header counts UTF-8 bytes, not characters.
        #expect(try MPTest.encoder.encode("€") == MPTest.bytes("a3 e2 82 ac"))
    }

    // MARK: Classes

    @Test func classInheritanceThroughSuperEncoder() throws {
        let dog = MPDog(name: "Rex", breed: "Collie")
        let bytes = try MPTest.encoder.encode(dog)
        // {"breed": "Collie", "super": {"name": "Rex", "legs": 4}}
        #expect(bytes == MPTest.bytes("82 a5 62 72 65 65 64 a6 43 6f 6c 6c 69 65 a5 73 75 70 65 72 82 a4 6e 61 6d 65 a3 52 65 78 a4 6c 65 67 73 04"))
        let decoded = try MPTest.decoder.decode(MPDog.self, from: bytes)
        #expect(decoded.name == "Rex" && decoded.legs == 4 && decoded.breed == "Collie")
    }

    @Test func classInheritanceThroughSuperEncoderForKey() throws {
        let bird = MPBird(name: "Tweety", wingspan: 0.25)
        let decoded = try MPTest.roundTrip(bird)
        #expect(decoded.name == "Tweety" && decoded.legs == 2 && decoded.wingspan == 0.25)
        struct Shape: Decodable { var base: [String: MPAny]; var wingspan: Double }
        let shape = try MPTest.decoder.decode(Shape.self, from: MPTest.encoder.encode(bird))
        #expect(shape.base.keys.sorted() == ["legs", "name"])
    }

    @Test func classInheritanceSharingOneEncoder() throws {
        let cat = MPCat(name: "Tom", indoor: true)
        let bytes = try MPTest.encoder.encode(cat)
        // Subclass and superclass keys merge into one map.
        #expect(bytes.first == 0x83)
        let decoded = try MPTest.decoder.decode(MPCat.self, from: bytes)
        #expect(decoded.name == "Tom" && decoded.indoor && decoded.legs == 4)
        let animals: [MPCat] = [cat, MPCat(name: "Felix", indoor: false)]
        let decodedAnimals = try MPTest.roundTrip(animals)
        #expect(decodedAnimals.map(\.name) == ["Tom", "Felix"])
    }

    @Test func everythingAtOnce() throws {
        #expect(try MPTest.roundTrip(MPEverything.sample) == .sample)
    }
}

/// Decodes any MessagePack value into a loose description, for checking shapes.
enum MPAny: Decodable, Equatable {
    case int(Int64), string(String), double(Double), bool(Bool), nil_, array([MPAny]), map([String: MPAny])

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: MPAnyKey.self) {
            var map: [String: MPAny] = [:]
            for key in container.allKeys { map[key.stringValue] = try container.decode(MPAny.self, forKey: key) }
            self = .map(map)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var array: [MPAny] = []
            while !container.isAtEnd { array.append(try container.decode(MPAny.self)) }
            self = .array(array)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() { self = .nil_ }
        else if let value = try? single.decode(Bool.self) { self = .bool(value) }
        else if let value = try? single.decode(Int64.self) { self = .int(value) }
        else if let value = try? single.decode(Double.self) { self = .double(value) }
        else { self = .string(try single.decode(String.self)) }
    }
}

struct MPAnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(_ stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.stringValue = String(intValue); self.intValue = intValue }
}
