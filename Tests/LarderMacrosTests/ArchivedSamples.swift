import Foundation
import LarderMacros

// Types that use `@Archived` as a user would, covering every way a property can be archived:
// scalars, optionals (nil left out), arrays, arrays of optionals, nested archived types (called
// directly), raw-value enums, a renamed and reordered `CodingKeys`, a constant `Codable` skips,
// a recursive final class, and types without a generated archiver (through `Codable`).

@Archived
struct Inner: Codable, Equatable, Sendable {
    var label: String
    var weight: Double
    var code: Int8
}

@Archived
enum Colour: String, Codable, Equatable, Sendable, CaseIterable {
    case red, green, blue = "BLUE"
}

@Archived
enum Level: Int, Codable, Equatable, Sendable, CaseIterable {
    case low = -1, middle = 5, high = 1000
}

/// No `@Archived`: archived through `Codable` inside archived types.
struct Plain: Codable, Equatable, Sendable {
    var counts: [String: Int]
    var set: Set<Int>
}

/// No `@Archived` and no raw value: `Codable`'s keyed form of an enum.
enum Shape: Codable, Equatable, Sendable {
    case circle(radius: Double)
    case square
}

@Archived
struct Record: Codable, Equatable, Sendable {
    var id: UUID
    var name: String
    var nickname: String?
    var count: Int
    var big: UInt64
    var small: Int16
    var unsigned: UInt32
    var ratio: Float
    var score: Double?
    var tags: [String]
    var maybe: [Int?]
    var when: Date
    var blob: Data
    var inner: Inner
    var inners: [Inner]
    var optionalInner: Optional<Inner>
    var colour: Colour
    var level: Level?
    var plain: Plain
    var plainOptional: Plain?
    var shape: Shape
    var flag: Bool
    private(set) var constant: String = "archived, with a default"
    var computed: Int { count * 2 }
    static let shared = 0
}

@Archived
struct Renamed: Codable, Equatable, Sendable {
    var first: Int
    var second: String?
    var `default`: Bool
    var skipped: Int = 7

    // Reordered and renamed: the map follows this order and these strings.
    enum CodingKeys: String, CodingKey {
        case second = "2nd"
        case `default`
        case first = "premier \"one\""
    }
}

@Archived
final class Node: Codable, Equatable, @unchecked Sendable {
    // @unchecked: the tests never mutate a node after building it.
    var name: String
    var children: [Node]
    var parentName: String?

    init(name: String, children: [Node], parentName: String?) {
        self.name = name
        self.children = children
        self.parentName = parentName
    }

    static func == (lhs: Node, rhs: Node) -> Bool {
        lhs.name == rhs.name && lhs.children == rhs.children && lhs.parentName == rhs.parentName
    }
}

@Archived
public struct Empty: Codable, Equatable, Sendable {
    public init() {}
}

/// The numbered layout: each entry under its field's number (one byte up to 127, more above, a
/// negative one), a retired number (4) no case uses, and an optional.
@Archived(layout: .numbered)
struct Reading: Codable, Equatable, Sendable {
    var sensor: String
    var celsius: Double
    var note: String?
    var inner: Inner
    var tags: [String]
    var count: Int

    enum CodingKeys: Int, CodingKey {
        case sensor = 1
        case celsius = 2
        case note = 3
        case inner = 200
        case tags = -7
        case count = 0x10
    }
}

/// `Reading` as it was before it took numbers: the same fields, written under their names.
@Archived
struct ReadingByName: Codable, Equatable, Sendable {
    var sensor: String
    var celsius: Double
    var note: String?
    var inner: Inner
    var tags: [String]
    var count: Int
}

/// `CodingKeys: Int` with implicit numbers, in the named layout: written with names, read by
/// name or number.
@Archived
struct ImplicitlyNumbered: Codable, Equatable, Sendable {
    var a: Int
    var b: String
    var c: Bool

    enum CodingKeys: Int, CodingKey {
        case a
        case b = 10
        case c
    }
}
