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
    /// A component that sorts in the reverse of its own order: `.descending(.int(2))` sorts
    /// before `.descending(.int(1))`. Every descending component sorts after every ascending one.
    /// ``Descending`` makes one from a Swift value; see ``TupleKey`` for the encoding.
    ///
    /// `.descending(.descending(x))` sorts as `x` does but is a different component (it encodes
    /// differently and does not equal `x`).
    indirect case descending(TupleComponent)
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
        case .descending(let inner): "descending(\(inner.rendered))"
        }
    }
}
