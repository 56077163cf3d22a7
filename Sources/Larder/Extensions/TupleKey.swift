#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
/// 9. descending components (``Descending``, ``TupleComponent/descending(_:)``), in the reverse of
///    their inner components' order (kinds included: a descending tuple sorts before a descending
///    null).
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
/// | `0x68`        | descending component | the bitwise complement of the inner component's encoding followed by `0x00` |
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
/// ## Descending components
///
/// A descending component's payload is `~(e ‖ 0x00)`, where `e` is the inner component's
/// encoding: the body of the one-component nested tuple `(inner)`, every bit flipped. Why that
/// reverses the order exactly, whatever follows the component:
///
/// - The bodies `e ‖ 0x00` sort as the inner components do: they are the encodings of the
///   one-component tuples `(inner)` without their common first byte, and those sort by `inner`.
/// - They are prefix-free: no body is a proper prefix of another. Each kind's encoding is
///   self-delimiting (null, booleans, integers, doubles and dates have a length fixed by the type
///   byte; a nested tuple or descending component ends at its own end marker). A string or byte
///   string alone is not: `"a"` (`50 61 00`) is a prefix of `"a\u{0}"` (`50 61 00 FF 00`), which
///   is why the plain complement of `e` would not do (`~e` for `"a"` would sort before `~e` for
///   `"a\u{0}"` when nothing follows). The end marker fixes it: after a terminator a body has
///   `0x00`, where the longer string has the escape `0xFF`.
/// - So two different bodies differ at some byte inside both, the first such byte decides their
///   order, and complementing that byte reverses it. The bytes after the component are never
///   reached, so they cannot undo the reversal; equal bodies stay equal.
///
/// This holds for every kind, the cases where encodings go wrong included: integers of every
/// width (fixed length per type byte), `-0.0 < +0.0` and NaN last (fixed 8 bytes), dates at
/// `-0.0` made `+0.0` before encoding, strings with escaped NULs (above), nested tuples, and
/// descending components themselves: `.descending(.descending(x))` is complemented twice and
/// sorts as `x` does (it is still a different value from `x`). The decoder reads the payload
/// through the complement and finds its end as it finds a nested tuple's; a descending
/// component counts as a level of nesting toward the cap below.
///
/// Keys without descending components encode exactly as before. A store whose views or indexes
/// hold descending components needs a Larder that knows the type byte `0x68`: an older one
/// throws ``LarderError/Code/corruptValue`` where it decodes such a key.
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
    ///   a component, a string is not UTF-8, an integer or double is not in its canonical form, a
    ///   descending component holds other than exactly one component or lacks its end marker, or
    ///   tuples and descending components nest more than 256 deep.
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
