#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One typed component of a ``TupleKey``.
///
/// Components are equal when they encode to the same bytes, which is not always what Swift's own
/// `==` on the payload says: `.int(7) == .uint(7)`, `.double(-0.0) != .double(0.0)`, every NaN
/// equals every other NaN, and `.string("\u{E9}") != .string("e\u{301}")` although Swift's `String`
/// calls those two equal. See ``TupleKey`` for the order and the canonical forms.
public enum TupleComponent: Sendable, Hashable {
    /// The absence of a value; sorts before every other component.
    case null
    /// A boolean; `false` sorts before `true`.
    case bool(Bool)
    /// A signed integer. Shares one numeric order with ``uint(_:)``.
    case int(Int64)
    /// An unsigned integer. Shares one numeric order with ``int(_:)``; decoding yields `.uint`
    /// only for values above `Int64.max`.
    case uint(UInt64)
    /// A double, in IEEE 754 total order. Every NaN is stored as `Double.nan`.
    case double(Double)
    /// An instant, ordered by its time interval since the reference date.
    case date(Date)
    /// A string, ordered by its UTF-8 bytes (not by Swift's canonical-equivalence comparison).
    case string(String)
    /// A byte string, ordered byte by byte.
    case bytes([UInt8])
    /// A nested tuple, ordered component by component.
    case tuple([TupleComponent])
}

/// A tuple of typed components whose encoding sorts as the values do.
///
/// Views and secondary indexes keep their sort keys in LMDB databases that compare keys byte by
/// byte (shorter first on a tie). A `TupleKey` encodes to bytes whose byte order is the tuple's
/// value order, and decodes back exactly, so a range scan over the bytes is a range scan over the
/// values.
///
/// ```swift
/// let key = TupleKey("books", 42, 3.5, true)
/// let stored = key.bytes                        // put this in the index
/// let back = try TupleKey(decoding: stored)     // == key
/// TupleKey("books", 42) < TupleKey("books", 42, 0)   // true: a prefix sorts first
/// ```
///
/// ## Order
///
/// Tuples compare component by component; a tuple that is a prefix of another sorts first.
/// Components of different types compare by type, in this order:
///
/// 1. `null`
/// 2. booleans: `false < true`
/// 3. integers, signed and unsigned in one numeric order:
///    `Int64.min < … < -1 < 0 < 1 < … < Int64.max < … < UInt64.max`.
///    `.int(5)` and `.uint(5)` are the same value: same bytes, equal, same hash.
/// 4. doubles, in IEEE 754 total order: `-infinity < negatives < -0.0 < +0.0 < positives <
///    +infinity < NaN`. `-0.0` and `+0.0` are distinct values.
/// 5. dates, by `timeIntervalSinceReferenceDate` as a double.
/// 6. strings, by their UTF-8 bytes; `""` first, and a string sorts before its extensions.
/// 7. byte strings, by the same rule.
/// 8. nested tuples, by the rule for tuples.
///
/// Integers and doubles are separate types on purpose: every `Int64` and `UInt64` keeps its exact
/// value (a double holds integers exactly only up to 2⁵³), and each kind keeps a short, simple
/// encoding. So `.int(1)` sorts before `.double(0.5)`; an index that wants one numeric order must
/// store one kind.
///
/// ## Canonical forms
///
/// Equality is equality of the encoding, so values that encode alike are one value, and decoding
/// returns one representative of it:
///
/// - integers decode as `.int` when they fit in `Int64`, else as `.uint`;
/// - every NaN (negative, signalling, with any payload) encodes and decodes as `Double.nan`;
/// - a date at `-0.0` seconds is the same instant as `+0.0` and encodes as `+0.0`; a NaN date as
///   the date at `Double.nan`.
///
/// Decoding accepts only canonical bytes, so every valid encoding is the encoding of exactly one
/// value and `TupleKey(decoding: bytes).bytes == bytes`.
///
/// ## Encoding
///
/// Each component is a type byte followed by its payload. Type bytes leave gaps for later types.
///
/// | Type byte     | Component | Payload |
/// |---------------|-----------|---------|
/// | `0x00`        | end of a nested tuple | none |
/// | `0x08`        | null | none |
/// | `0x10`/`0x11` | false / true | none |
/// | `0x20`–`0x27` | negative integer of 8…1 bytes | the ones' complement of the magnitude, big-endian, in that many bytes |
/// | `0x28`        | zero | none |
/// | `0x29`–`0x30` | positive integer of 1…8 bytes | the value, big-endian, in that many bytes |
/// | `0x40`        | double | 8 bytes: the bit pattern with all bits flipped when negative, only the sign bit when not; big-endian |
/// | `0x48`        | date | 8 bytes: `timeIntervalSinceReferenceDate`, as a double |
/// | `0x50`        | string | the UTF-8 bytes, each `0x00` written `0x00 0xFF`, then `0x00` |
/// | `0x58`        | byte string | the bytes, escaped and terminated as strings are |
/// | `0x60`        | nested tuple | the components, then `0x00` |
///
/// Integers use as few bytes as their magnitude needs, and the type byte counts them, so small
/// numbers stay short and a longer positive number (larger) sorts after a shorter one, a longer
/// negative number (more negative) before a shorter one.
///
/// The end marker `0x00` sorts below every type byte, so a nested tuple sorts before its
/// extensions. Null has its own type byte (`0x08`) rather than `0x00`, so a null inside a nested
/// tuple cannot be mistaken for the end marker and needs no escape. The escape byte `0xFF` sorts
/// above every type byte, so `"a"` (whose terminator is followed by the next component, the end of
/// a nested tuple, or nothing) sorts before `"a\u{0}"`: `"a" < "a\u{0}" < "a\u{0}b" < "ab"`.
///
/// - Note: ``init(decoding:)`` refuses tuples nested more than 256 deep, deeper than any key
///   LMDB can store (511 bytes, two per level), so hostile input cannot build a value too deep to
///   release.
public struct TupleKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The components, first to last.
    public var components: [TupleComponent]

    /// A tuple of the given components.
    ///
    /// ```swift
    /// let key = TupleKey([.string("books"), .int(42), .null])
    /// ```
    public init(_ components: [TupleComponent]) {
        self.components = components
    }

    /// A tuple of Swift values, each converted by ``TupleKeyComponent/tupleComponent``.
    ///
    /// ```swift
    /// let key = TupleKey("books", 42, 3.5, true)
    /// let missing = TupleKey("books", Int?.none)   // ("books", null)
    /// ```
    public init(_ values: any TupleKeyComponent...) {
        self.components = values.map(\.tupleComponent)
    }

    /// The encoding: bytes whose byte-wise order is this tuple's value order.
    ///
    /// - Complexity: O(*n*) in the length of the encoding.
    public var bytes: [UInt8] {
        var buffer: [UInt8] = []
        encode(into: &buffer)
        return buffer
    }

    /// Appends the encoding to `buffer`, allocating nothing beyond the buffer's own growth.
    ///
    /// Each component's encoding is prefix-free, so keys can be built by appending: the bytes of
    /// `TupleKey(a, b)` are the bytes of `TupleKey(a)` followed by those of `TupleKey(b)`.
    ///
    /// - Complexity: O(*n*) in the length of the encoding.
    public func encode(into buffer: inout [UInt8]) {
        for component in components {
            component.encode(into: &buffer)
        }
    }

    /// Decodes what ``bytes`` produced.
    ///
    /// - Throws: ``LarderError`` with code ``LarderError/Code/corruptValue`` when `bytes` is not a
    ///   valid encoding: a component is cut short (truncated input, or a nested tuple without its
    ///   end marker), a type byte is unknown, an end marker appears outside a nested tuple (as
    ///   trailing bytes do), a `0x00` inside a string is followed by neither the `0xFF` escape nor
    ///   a component, a string is not UTF-8, an integer or double is not in its canonical form, or
    ///   tuples nest more than 256 deep.
    /// - Complexity: O(*n*) in the length of `bytes`.
    public init(decoding bytes: some Collection<UInt8>) throws {
        let decoded = try bytes.withContiguousStorageIfAvailable { buffer in
            try TupleKeyDecoder.decode(buffer)
        }
        if let decoded {
            self.init(decoded)
        } else {
            let copy = Array(bytes)
            self.init(try copy.withUnsafeBufferPointer { try TupleKeyDecoder.decode($0) })
        }
    }

    /// Whether `a` sorts before `b`: the value order, which is the order of their ``bytes``.
    ///
    /// - Complexity: O(*n*) in the length of the encodings; both are built to compare them.
    public static func < (a: TupleKey, b: TupleKey) -> Bool {
        a.bytes.lexicographicallyPrecedes(b.bytes)
    }

    /// Whether `a` and `b` encode to the same bytes (so `.int(7)` equals `.uint(7)`).
    public static func == (a: TupleKey, b: TupleKey) -> Bool {
        a.bytes == b.bytes
    }

    /// Hashes the encoding, so that equal keys hash alike whatever their cases.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes)
    }

    /// The components in parentheses, such as `("books", 42, 3.5, true, null)`.
    public var description: String {
        TupleComponent.describe(components)
    }
}

/// A Swift value usable as a component of a ``TupleKey``.
///
/// Larder conforms the standard integer types, `Bool`, `Double`, `Float`, `String`, `Substring`,
/// `Date`, `[UInt8]`, `TupleKey` (which nests), `TupleComponent`, and `Optional` (where `nil`
/// becomes `.null`).
public protocol TupleKeyComponent: Sendable {
    /// This value as a tuple component.
    var tupleComponent: TupleComponent { get }
}

// MARK: - Equality by encoding

extension TupleComponent {
    /// Whether `a` and `b` encode to the same bytes; see ``TupleComponent`` for what that means.
    public static func == (a: TupleComponent, b: TupleComponent) -> Bool {
        a.encoded == b.encoded
    }

    /// Hashes the encoding, so that equal components hash alike whatever their cases.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(encoded)
    }

    /// This component's encoding on its own.
    var encoded: [UInt8] {
        var buffer: [UInt8] = []
        encode(into: &buffer)
        return buffer
    }
}

// MARK: - Encoding

/// The type bytes of the encoding (see the table on ``TupleKey``).
enum TupleTypeByte {
    static let nestedEnd: UInt8 = 0x00
    static let null: UInt8 = 0x08
    static let `false`: UInt8 = 0x10
    static let `true`: UInt8 = 0x11
    /// Zero; `zero - n` starts a negative integer of `n` bytes, `zero + n` a positive one.
    static let zero: UInt8 = 0x28
    static let integers: ClosedRange<UInt8> = (zero - 8)...(zero + 8)
    static let double: UInt8 = 0x40
    static let date: UInt8 = 0x48
    static let string: UInt8 = 0x50
    static let bytes: UInt8 = 0x58
    static let nestedStart: UInt8 = 0x60
    /// Follows a `0x00` that belongs to a string's content; above every type byte, so that a
    /// string sorts before its extensions.
    static let escape: UInt8 = 0xFF

    /// Whether `byte` may follow a complete component: a type byte or the end of a nested tuple.
    static func canFollowComponent(_ byte: UInt8) -> Bool {
        switch byte {
        case Self.nestedEnd, Self.null, Self.false, Self.true, Self.double, Self.date, Self.string, Self.bytes,
            Self.nestedStart:
            true
        default:
            Self.integers.contains(byte)
        }
    }
}

extension TupleComponent {
    /// Appends this component's encoding to `buffer`.
    func encode(into buffer: inout [UInt8]) {
        switch self {
        case .null:
            buffer.append(TupleTypeByte.null)
        case .bool(let value):
            buffer.append(value ? TupleTypeByte.true : TupleTypeByte.false)
        case .int(let value):
            if value < 0 {
                Self.appendNegative(magnitude: value.magnitude, to: &buffer)
            } else {
                Self.appendNonNegative(UInt64(value), to: &buffer)
            }
        case .uint(let value):
            Self.appendNonNegative(value, to: &buffer)
        case .double(let value):
            buffer.append(TupleTypeByte.double)
            Self.appendBigEndian(Self.orderedBits(of: value), to: &buffer)
        case .date(let date):
            buffer.append(TupleTypeByte.date)
            // -0.0 + 0.0 is +0.0: one instant, one encoding.
            let interval = date.timeIntervalSinceReferenceDate + 0.0
            Self.appendBigEndian(Self.orderedBits(of: interval), to: &buffer)
        case .string(let string):
            buffer.append(TupleTypeByte.string)
            Self.appendEscaped(string.utf8, to: &buffer)
        case .bytes(let bytes):
            buffer.append(TupleTypeByte.bytes)
            Self.appendEscaped(bytes, to: &buffer)
        case .tuple(let components):
            buffer.append(TupleTypeByte.nestedStart)
            for component in components {
                component.encode(into: &buffer)
            }
            buffer.append(TupleTypeByte.nestedEnd)
        }
    }

    /// The number of bytes `value` needs with its leading zero bytes dropped.
    static func significantByteCount(_ value: UInt64) -> Int {
        (UInt64.bitWidth - value.leadingZeroBitCount + 7) / 8
    }

    private static func appendNonNegative(_ value: UInt64, to buffer: inout [UInt8]) {
        let count = significantByteCount(value)
        buffer.append(TupleTypeByte.zero + UInt8(count))
        appendLowBytes(value, count: count, to: &buffer)
    }

    /// Writes the ones' complement of the magnitude, so a larger magnitude (a smaller number)
    /// gives smaller bytes.
    private static func appendNegative(magnitude: UInt64, to buffer: inout [UInt8]) {
        let count = significantByteCount(magnitude)
        buffer.append(TupleTypeByte.zero - UInt8(count))
        appendLowBytes(~magnitude, count: count, to: &buffer)
    }

    /// Appends the low `count` bytes of `value`, most significant first.
    private static func appendLowBytes(_ value: UInt64, count: Int, to buffer: inout [UInt8]) {
        for index in stride(from: count - 1, through: 0, by: -1) {
            buffer.append(UInt8(truncatingIfNeeded: value >> (index * 8)))
        }
    }

    private static func appendBigEndian(_ value: UInt64, to buffer: inout [UInt8]) {
        appendLowBytes(value, count: 8, to: &buffer)
    }

    private static func appendEscaped(_ bytes: some Collection<UInt8>, to buffer: inout [UInt8]) {
        // Most strings hold no NUL: copy them whole.
        let copied = bytes.withContiguousStorageIfAvailable { contiguous -> Bool in
            guard !contiguous.contains(0) else { return false }
            buffer.append(contentsOf: contiguous)
            return true
        } ?? false
        if !copied {
            for byte in bytes {
                buffer.append(byte)
                if byte == 0 {
                    buffer.append(TupleTypeByte.escape)
                }
            }
        }
        buffer.append(0)
    }

    private static let signBit: UInt64 = 1 << 63

    /// The bits of `value` rearranged so that unsigned order is IEEE total order: negatives have
    /// every bit flipped (a larger magnitude sorts first), the rest only the sign bit (so they sort
    /// above the negatives). Every NaN becomes `Double.nan` first.
    static func orderedBits(of value: Double) -> UInt64 {
        let bits = value.isNaN ? Double.nan.bitPattern : value.bitPattern
        return bits & signBit != 0 ? ~bits : bits | signBit
    }

    /// The inverse of ``orderedBits(of:)``.
    static func double(fromOrderedBits ordered: UInt64) -> Double {
        Double(bitPattern: ordered & signBit != 0 ? ordered & ~signBit : ~ordered)
    }
}

// MARK: - Decoding

/// Reads an encoding front to back, checking every length and every byte before using it.
struct TupleKeyDecoder {
    /// Deeper than any key LMDB stores: 511 bytes hold at most 255 levels of two bytes each.
    static let maximumNesting = 256

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The components `bytes` encodes.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [TupleComponent] {
        var decoder = TupleKeyDecoder(bytes)
        return try decoder.readComponents(depth: 0)
    }

    private static func corrupt(_ message: String, at offset: Int) -> LarderError {
        LarderError(.corruptValue, "Not a tuple key: \(message) at byte \(offset).", operation: "TupleKey(decoding:)")
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" + digits : digits)
    }

    /// Reads components up to the end of the input (at depth 0) or up to and including the end
    /// marker of the nested tuple being read.
    private mutating func readComponents(depth: Int) throws -> [TupleComponent] {
        var components: [TupleComponent] = []
        while position < bytes.count {
            let start = position
            let type = bytes[position]
            position += 1
            switch type {
            case TupleTypeByte.nestedEnd:
                guard depth > 0 else {
                    throw Self.corrupt("an end marker (0x00) outside a nested tuple", at: start)
                }
                return components
            case TupleTypeByte.nestedStart:
                guard depth < Self.maximumNesting else {
                    throw Self.corrupt("tuples nested more than \(Self.maximumNesting) deep", at: start)
                }
                components.append(.tuple(try readComponents(depth: depth + 1)))
            default:
                components.append(try readScalar(type: type, at: start))
            }
        }
        guard depth == 0 else {
            throw Self.corrupt("a nested tuple without its end marker", at: position)
        }
        return components
    }

    private mutating func readScalar(type: UInt8, at start: Int) throws -> TupleComponent {
        switch type {
        case TupleTypeByte.null:
            return .null
        case TupleTypeByte.false:
            return .bool(false)
        case TupleTypeByte.true:
            return .bool(true)
        case TupleTypeByte.integers:
            return try readInteger(type: type, at: start)
        case TupleTypeByte.double:
            let value = TupleComponent.double(fromOrderedBits: try readUInt64(count: 8, at: start))
            guard !value.isNaN || value.bitPattern == Double.nan.bitPattern else {
                throw Self.corrupt("a NaN other than the canonical one", at: start)
            }
            return .double(value)
        case TupleTypeByte.date:
            let interval = TupleComponent.double(fromOrderedBits: try readUInt64(count: 8, at: start))
            guard !interval.isNaN || interval.bitPattern == Double.nan.bitPattern else {
                throw Self.corrupt("a date at a NaN other than the canonical one", at: start)
            }
            guard interval.bitPattern != (-0.0 as Double).bitPattern else {
                throw Self.corrupt("a date at -0.0 rather than +0.0", at: start)
            }
            return .date(Date(timeIntervalSinceReferenceDate: interval))
        case TupleTypeByte.string:
            let utf8 = try readEscaped(at: start)
            guard let string = String(validating: utf8, as: UTF8.self) else {
                throw Self.corrupt("a string that is not valid UTF-8", at: start)
            }
            return .string(string)
        case TupleTypeByte.bytes:
            return .bytes(try readEscaped(at: start))
        default:
            throw Self.corrupt("unknown type byte \(Self.hex(type))", at: start)
        }
    }

    private mutating func readInteger(type: UInt8, at start: Int) throws -> TupleComponent {
        if type == TupleTypeByte.zero {
            return .int(0)
        }
        let isNegative = type < TupleTypeByte.zero
        let count = Int(isNegative ? TupleTypeByte.zero - type : type - TupleTypeByte.zero)
        let stored = try readUInt64(count: count, at: start)
        // The high bytes a shorter encoding would drop: zeros for a positive number, ones for
        // the complement of a negative one's magnitude.
        let mask: UInt64 = count == 8 ? .max : (1 << (count * 8)) - 1
        let magnitude = isNegative ? ~stored & mask : stored
        guard TupleComponent.significantByteCount(magnitude) == count else {
            throw Self.corrupt("an integer with a redundant leading byte", at: start)
        }
        if !isNegative {
            return magnitude <= UInt64(Int64.max) ? .int(Int64(magnitude)) : .uint(magnitude)
        }
        guard magnitude <= Int64.min.magnitude else {
            throw Self.corrupt("a negative integer below Int64.min", at: start)
        }
        return .int(Int64(truncatingIfNeeded: 0 &- magnitude))
    }

    /// Reads `count` bytes (at most 8) as a big-endian number.
    private mutating func readUInt64(count: Int, at start: Int) throws -> UInt64 {
        guard bytes.count - position >= count else {
            throw Self.corrupt("a component cut short", at: start)
        }
        var value: UInt64 = 0
        for _ in 0..<count {
            value = value << 8 | UInt64(bytes[position])
            position += 1
        }
        return value
    }

    /// Reads the content of a string or byte string up to and including its terminator.
    private mutating func readEscaped(at start: Int) throws -> [UInt8] {
        var content: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            guard byte == 0 else {
                content.append(byte)
                continue
            }
            guard position < bytes.count else { return content }
            let next = bytes[position]
            if next == TupleTypeByte.escape {
                content.append(0)
                position += 1
            } else if TupleTypeByte.canFollowComponent(next) {
                return content
            } else {
                throw Self.corrupt("0x00 followed by \(Self.hex(next)), neither the 0xFF escape nor a component", at: position - 1)
            }
        }
        throw Self.corrupt("a string or byte string without its terminator", at: start)
    }
}

// MARK: - Description

extension TupleComponent {
    /// `components` in parentheses, comma-separated.
    static func describe(_ components: [TupleComponent]) -> String {
        "(" + components.map(\.rendered).joined(separator: ", ") + ")"
    }

    /// This component as it would read in source: strings quoted, bytes in hex.
    private var rendered: String {
        switch self {
        case .null: "null"
        case .bool(let value): String(value)
        case .int(let value): String(value)
        case .uint(let value): String(value)
        case .double(let value): String(value)
        case .date(let date): "date(\(date.timeIntervalSinceReferenceDate))"
        case .string(let string): String(reflecting: string)
        case .bytes(let bytes):
            "<" + bytes.map { String($0 >> 4, radix: 16) + String($0 & 0x0F, radix: 16) }.joined() + ">"
        case .tuple(let components): Self.describe(components)
        }
    }
}

// MARK: - Conformances

extension TupleComponent: TupleKeyComponent {
    /// The component itself.
    public var tupleComponent: TupleComponent { self }
}

extension TupleKey: TupleKeyComponent {
    /// The tuple, nested as one component.
    public var tupleComponent: TupleComponent { .tuple(components) }
}

extension Optional: TupleKeyComponent where Wrapped: TupleKeyComponent {
    /// The wrapped value's component, or `.null` for `nil`.
    public var tupleComponent: TupleComponent { self?.tupleComponent ?? .null }
}

extension String: TupleKeyComponent {
    /// `.string(self)`.
    public var tupleComponent: TupleComponent { .string(self) }
}

extension Substring: TupleKeyComponent {
    /// `.string` of the substring's characters.
    public var tupleComponent: TupleComponent { .string(String(self)) }
}

extension Bool: TupleKeyComponent {
    /// `.bool(self)`.
    public var tupleComponent: TupleComponent { .bool(self) }
}

extension Int: TupleKeyComponent {
    /// `.int(self)`.
    public var tupleComponent: TupleComponent { .int(Int64(self)) }
}

extension Int8: TupleKeyComponent {
    /// `.int(self)`.
    public var tupleComponent: TupleComponent { .int(Int64(self)) }
}

extension Int16: TupleKeyComponent {
    /// `.int(self)`.
    public var tupleComponent: TupleComponent { .int(Int64(self)) }
}

extension Int32: TupleKeyComponent {
    /// `.int(self)`.
    public var tupleComponent: TupleComponent { .int(Int64(self)) }
}

extension Int64: TupleKeyComponent {
    /// `.int(self)`.
    public var tupleComponent: TupleComponent { .int(self) }
}

extension UInt: TupleKeyComponent {
    /// `.uint(self)`, which equals `.int` of the same value.
    public var tupleComponent: TupleComponent { .uint(UInt64(self)) }
}

extension UInt8: TupleKeyComponent {
    /// `.uint(self)`, which equals `.int` of the same value.
    public var tupleComponent: TupleComponent { .uint(UInt64(self)) }
}

extension UInt16: TupleKeyComponent {
    /// `.uint(self)`, which equals `.int` of the same value.
    public var tupleComponent: TupleComponent { .uint(UInt64(self)) }
}

extension UInt32: TupleKeyComponent {
    /// `.uint(self)`, which equals `.int` of the same value.
    public var tupleComponent: TupleComponent { .uint(UInt64(self)) }
}

extension UInt64: TupleKeyComponent {
    /// `.uint(self)`, which equals `.int` of the same value.
    public var tupleComponent: TupleComponent { .uint(self) }
}

extension Double: TupleKeyComponent {
    /// `.double(self)`.
    public var tupleComponent: TupleComponent { .double(self) }
}

extension Float: TupleKeyComponent {
    /// `.double` of the same value (every `Float` is exactly a `Double`).
    public var tupleComponent: TupleComponent { .double(Double(self)) }
}

extension Date: TupleKeyComponent {
    /// `.date(self)`.
    public var tupleComponent: TupleComponent { .date(self) }
}

extension Array: TupleKeyComponent where Element == UInt8 {
    /// `.bytes(self)`.
    public var tupleComponent: TupleComponent { .bytes(self) }
}
