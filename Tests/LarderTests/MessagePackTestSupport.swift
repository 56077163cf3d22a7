import Foundation
import Synchronization
import Testing
@testable import Larder

// Fixtures and helpers shared by the MessagePack test files. Every type is
// prefixed with "MP" so it cannot collide with other test files in LarderTests.

enum MPTest {
    static let encoder = MessagePackEncoder()
    static let decoder = MessagePackDecoder()

    static func roundTrip<T: Codable>(_ value: T, as type: T.Type = T.self) throws -> T {
        try decoder.decode(T.self, from: encoder.encode(value))
    }

    /// Bytes from a hex string such as "cd 01 00" (spaces ignored).
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        precondition(digits.count % 2 == 0, "odd hex string \(hex)")
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined(separator: " ")
    }

    /// A string of exactly `count` UTF-8 bytes.
    static func string(utf8Count count: Int) -> String {
        String(repeating: "x", count: count)
    }

    /// Decodes and returns the `DecodingError` that must be thrown.
    static func decodingError<T: Decodable>(_ type: T.Type, from bytes: [UInt8],
                                            sourceLocation: SourceLocation = #_sourceLocation) -> DecodingError? {
        do {
            let value = try decoder.decode(type, from: bytes)
            Issue.record("Expected a DecodingError but decoded \(value)", sourceLocation: sourceLocation)
            return nil
        } catch let error as DecodingError {
            return error
        } catch {
            Issue.record("Expected a DecodingError but got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    static func pathStrings(_ path: [any CodingKey]) -> [String] {
        path.map(\.stringValue)
    }
}

extension DecodingError {
    var mpContext: DecodingError.Context? {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context),
             .keyNotFound(_, let context), .dataCorrupted(let context):
            return context
        @unknown default:
            return nil
        }
    }

    var mpIsDataCorrupted: Bool {
        if case .dataCorrupted = self { return true }
        return false
    }

    var mpIsTypeMismatch: Bool {
        if case .typeMismatch = self { return true }
        return false
    }
}

// MARK: Fixtures

struct MPPerson: Codable, Equatable {
    var name: String
    var age: Int
    var score: Double
    var active: Bool
    var created: Date
    var tags: [String]

    static let ada = MPPerson(name: "Ada Lovelace", age: 36, score: 98.25, active: true,
                              created: Date(timeIntervalSince1970: 1_700_000_000.5), tags: ["math", "engines"])
    static let grace = MPPerson(name: "Grace Hopper", age: 85, score: -1.5, active: false,
                                created: Date(timeIntervalSince1970: -2_000_000_000), tags: [])
}

struct MPPoint: Codable, Equatable {
    var x: Int
    var y: Int
}

struct MPCompany: Codable, Equatable {
    var name: String
    var founder: MPPerson
    var staff: [MPPerson]
    var offices: [String: MPPoint]
    var matrix: [[Int]]
    var parent: MPPoint?
    var rating: MPRating
    var color: MPColor
    var level: MPLevel
}

enum MPColor: String, Codable, Equatable, CaseIterable {
    case red, green, blue
}

enum MPLevel: Int, Codable, Equatable {
    case low = 1
    case high = 1_000
}

enum MPRating: Codable, Equatable {
    case unrated
    case stars(Int)
    case review(author: String, score: Double, tags: [String])
    case pair(MPPoint, MPPoint?)
}

struct MPAllIntegers: Codable, Equatable {
    var i8: Int8
    var i16: Int16
    var i32: Int32
    var i64: Int64
    var i: Int
    var u8: UInt8
    var u16: UInt16
    var u32: UInt32
    var u64: UInt64
    var u: UInt

    static let minimum = MPAllIntegers(i8: .min, i16: .min, i32: .min, i64: .min, i: .min,
                                       u8: .min, u16: .min, u32: .min, u64: .min, u: .min)
    static let maximum = MPAllIntegers(i8: .max, i16: .max, i32: .max, i64: .max, i: .max,
                                       u8: .max, u16: .max, u32: .max, u64: .max, u: .max)
    static let zero = MPAllIntegers(i8: 0, i16: 0, i32: 0, i64: 0, i: 0, u8: 0, u16: 0, u32: 0, u64: 0, u: 0)
    static let boundaries = MPAllIntegers(i8: -33, i16: -129, i32: -32_769, i64: -2_147_483_649, i: 4_294_967_296,
                                          u8: 128, u16: 256, u32: 65_536, u64: 4_294_967_296, u: 4_294_967_295)
}

/// Encodes every integer width through the concrete (non-generic) overloads of
/// an unkeyed container, which synthesized code never calls.
struct MPUnkeyedIntegers: Codable, Equatable {
    var values: MPAllIntegers

    init(_ values: MPAllIntegers) { self.values = values }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(values.i8)
        try container.encode(values.i16)
        try container.encode(values.i32)
        try container.encode(values.i64)
        try container.encode(values.i)
        try container.encode(values.u8)
        try container.encode(values.u16)
        try container.encode(values.u32)
        try container.encode(values.u64)
        try container.encode(values.u)
    }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        values = MPAllIntegers(
            i8: try container.decode(Int8.self), i16: try container.decode(Int16.self),
            i32: try container.decode(Int32.self), i64: try container.decode(Int64.self),
            i: try container.decode(Int.self), u8: try container.decode(UInt8.self),
            u16: try container.decode(UInt16.self), u32: try container.decode(UInt32.self),
            u64: try container.decode(UInt64.self), u: try container.decode(UInt.self))
        #expect(container.isAtEnd)
    }
}

/// The non-integer scalars through the concrete overloads of an unkeyed container.
struct MPUnkeyedScalars: Codable, Equatable {
    var flag: Bool
    var text: String
    var double: Double
    var float: Float
    var missing: Bool // written as nil

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(flag)
        try container.encode(text)
        try container.encode(double)
        try container.encode(float)
        try container.encodeNil()
    }

    init(flag: Bool, text: String, double: Double, float: Float) {
        self.flag = flag
        self.text = text
        self.double = double
        self.float = float
        self.missing = true
    }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        #expect(container.count == 5)
        flag = try container.decode(Bool.self)
        text = try container.decode(String.self)
        double = try container.decode(Double.self)
        float = try container.decode(Float.self)
        missing = try container.decodeNil()
        #expect(container.isAtEnd)
    }
}

/// Chooses the type its single value container reads and writes from `userInfo`,
/// so each concrete single-value overload can be exercised.
struct MPSingleScalar: Codable, Equatable {
    static let kindKey = CodingUserInfoKey(rawValue: "MPSingleScalar.kind")!

    enum Value: Equatable {
        case bool(Bool), string(String), double(Double), float(Float)
        case i8(Int8), i16(Int16), i32(Int32), i64(Int64), i(Int)
        case u8(UInt8), u16(UInt16), u32(UInt32), u64(UInt64), u(UInt)
        case none

        var kind: String {
            switch self {
            case .bool: "bool"
            case .string: "string"
            case .double: "double"
            case .float: "float"
            case .i8: "i8"
            case .i16: "i16"
            case .i32: "i32"
            case .i64: "i64"
            case .i: "i"
            case .u8: "u8"
            case .u16: "u16"
            case .u32: "u32"
            case .u64: "u64"
            case .u: "u"
            case .none: "none"
            }
        }
    }

    var value: Value

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch value {
        case .bool(let v): try container.encode(v)
        case .string(let v): try container.encode(v)
        case .double(let v): try container.encode(v)
        case .float(let v): try container.encode(v)
        case .i8(let v): try container.encode(v)
        case .i16(let v): try container.encode(v)
        case .i32(let v): try container.encode(v)
        case .i64(let v): try container.encode(v)
        case .i(let v): try container.encode(v)
        case .u8(let v): try container.encode(v)
        case .u16(let v): try container.encode(v)
        case .u32(let v): try container.encode(v)
        case .u64(let v): try container.encode(v)
        case .u(let v): try container.encode(v)
        case .none: try container.encodeNil()
        }
    }

    init(_ value: Value) { self.value = value }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        switch decoder.userInfo[Self.kindKey] as? String {
        case "bool": value = .bool(try container.decode(Bool.self))
        case "string": value = .string(try container.decode(String.self))
        case "double": value = .double(try container.decode(Double.self))
        case "float": value = .float(try container.decode(Float.self))
        case "i8": value = .i8(try container.decode(Int8.self))
        case "i16": value = .i16(try container.decode(Int16.self))
        case "i32": value = .i32(try container.decode(Int32.self))
        case "i64": value = .i64(try container.decode(Int64.self))
        case "i": value = .i(try container.decode(Int.self))
        case "u8": value = .u8(try container.decode(UInt8.self))
        case "u16": value = .u16(try container.decode(UInt16.self))
        case "u32": value = .u32(try container.decode(UInt32.self))
        case "u64": value = .u64(try container.decode(UInt64.self))
        case "u": value = .u(try container.decode(UInt.self))
        case "none":
            guard container.decodeNil() else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected nil")
            }
            value = .none
        default:
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "no kind in userInfo")
        }
    }
}

/// Optionals as synthesized code writes them: absent when nil.
struct MPOptionals: Codable, Equatable {
    var number: Int?
    var text: String?
    var point: MPPoint?
    var date: Date?
}

/// Optionals written explicitly as nil with `encodeNil(forKey:)`.
struct MPExplicitNils: Codable, Equatable {
    var number: Int?
    var text: String?

    enum CodingKeys: String, CodingKey { case number, text }

    init(number: Int?, text: String?) {
        self.number = number
        self.text = text
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let number { try container.encode(number, forKey: .number) } else { try container.encodeNil(forKey: .number) }
        if let text { try container.encode(text, forKey: .text) } else { try container.encodeNil(forKey: .text) }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Both keys are always present; nil is a value here, not an absence.
        #expect(container.contains(.number))
        #expect(container.contains(.text))
        number = try container.decodeNil(forKey: .number) ? nil : try container.decode(Int.self, forKey: .number)
        text = try container.decodeNil(forKey: .text) ? nil : try container.decode(String.self, forKey: .text)
    }
}

/// Class hierarchy using `superEncoder()` / `superDecoder()` (the "super" key).
class MPAnimal: Codable {
    let name: String
    let legs: Int

    init(name: String, legs: Int) {
        self.name = name
        self.legs = legs
    }

    enum CodingKeys: String, CodingKey { case name, legs }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(legs, forKey: .legs)
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        legs = try container.decode(Int.self, forKey: .legs)
    }
}

final class MPDog: MPAnimal {
    let breed: String

    init(name: String, breed: String) {
        self.breed = breed
        super.init(name: name, legs: 4)
    }

    enum DogKeys: String, CodingKey { case breed }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DogKeys.self)
        try container.encode(breed, forKey: .breed)
        try super.encode(to: container.superEncoder())
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DogKeys.self)
        breed = try container.decode(String.self, forKey: .breed)
        try super.init(from: container.superDecoder())
    }
}

/// Uses `superEncoder(forKey:)` and writes another key after the super value,
/// which closes the super encoder's slot implicitly.
final class MPBird: MPAnimal {
    let wingspan: Double

    init(name: String, wingspan: Double) {
        self.wingspan = wingspan
        super.init(name: name, legs: 2)
    }

    enum BirdKeys: String, CodingKey { case base, wingspan }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: BirdKeys.self)
        try super.encode(to: container.superEncoder(forKey: .base))
        try container.encode(wingspan, forKey: .wingspan)
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: BirdKeys.self)
        wingspan = try container.decode(Double.self, forKey: .wingspan)
        try super.init(from: container.superDecoder(forKey: .base))
    }
}

/// Shares one encoder with its superclass, so both request a keyed container
/// from the same encoder and their keys merge into one map.
final class MPCat: MPAnimal {
    let indoor: Bool

    init(name: String, indoor: Bool) {
        self.indoor = indoor
        super.init(name: name, legs: 4)
    }

    enum CatKeys: String, CodingKey { case indoor }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CatKeys.self)
        try container.encode(indoor, forKey: .indoor)
        try super.encode(to: encoder)
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CatKeys.self)
        indoor = try container.decode(Bool.self, forKey: .indoor)
        try super.init(from: decoder)
    }
}

/// Records the coding path every time it is encoded or decoded.
struct MPPathProbe: Codable, Equatable {
    static let logKey = CodingUserInfoKey(rawValue: "MPPathProbe.log")!

    final class Log: Sendable {
        let paths = Mutex<[[String]]>([])
        func record(_ path: [any CodingKey]) { paths.withLock { $0.append(MPTest.pathStrings(path)) } }
        var all: [[String]] { paths.withLock { $0 } }
    }

    var id: Int

    init(id: Int) { self.id = id }

    func encode(to encoder: any Encoder) throws {
        (encoder.userInfo[Self.logKey] as? Log)?.record(encoder.codingPath)
        var container = encoder.singleValueContainer()
        try container.encode(id)
    }

    init(from decoder: any Decoder) throws {
        (decoder.userInfo[Self.logKey] as? Log)?.record(decoder.codingPath)
        id = try decoder.singleValueContainer().decode(Int.self)
    }
}

/// Everything at once, for truncation and interop tests.
struct MPEverything: Codable, Equatable {
    var integers: MPAllIntegers
    var text: String
    var data: Data
    var date: Date
    var url: URL
    var decimal: Decimal
    var uuid: UUID
    var company: MPCompany
    var optional: Int?
    var floats: [Float]
    var doubles: [Double]

    static let sample = MPEverything(
        integers: .boundaries, text: "héllo wörld ✓",
        data: Data([0, 1, 2, 0xfe, 0xff]),
        date: Date(timeIntervalSince1970: 1_234_567_890.25),
        url: URL(string: "https://example.com/path?q=1#frag")!,
        decimal: Decimal(string: "-12345.6789")!,
        uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
        company: MPTestCompany.make(),
        optional: nil,
        floats: [1.5, -0.25, .infinity],
        doubles: [0.1, -2e300, .leastNonzeroMagnitude])
}

enum MPTestCompany {
    static func make() -> MPCompany {
        MPCompany(
            name: "Analytical Engines Ltd",
            founder: .ada,
            staff: [.ada, .grace],
            offices: ["london": MPPoint(x: 1, y: 2), "paris": MPPoint(x: -3, y: 4)],
            matrix: [[1, 2, 3], [], [-1]],
            parent: nil,
            rating: .review(author: "Babbage", score: 4.5, tags: ["gears"]),
            color: .green,
            level: .high)
    }
}
