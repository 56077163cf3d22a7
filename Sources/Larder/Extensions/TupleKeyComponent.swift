#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Swift value usable as a component of a ``TupleKey``.
///
/// Larder conforms the standard integer types, `Bool`, `Double`, `Float`, `String`, `Substring`,
/// `Date`, `[UInt8]`, `TupleKey` (which nests), `TupleComponent`, and `Optional` (where `nil`
/// becomes `.null`).
public protocol TupleKeyComponent: Sendable {
    /// This value as a tuple component.
    var tupleComponent: TupleComponent { get }
}

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
