#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The types the decoder reads directly instead of through their own
/// `init(from:)`: numbers, strings, Bool, the Foundation types with special
/// wire forms, and arrays of the most common scalars.
///
/// Classifying first (metatype comparisons, which are pointer comparisons)
/// keeps "not a scalar" out of the error path: some environments, Swift
/// Testing among them, capture a backtrace for every thrown error.
enum MessagePackScalarKind {
    case string, int, double, bool, date, data
    case int64, uint64, int32, uint32, float, uint, int16, uint16, int8, uint8
    case url, decimal, int128, uint128
    case stringArray, intArray, doubleArray, boolArray, floatArray
    case int64Array, uint64Array, int32Array, uint32Array, uint8Array

    /// Nil for every type that decodes itself through `init(from:)`.
    @inline(__always)
    init?<T>(_ type: T.Type) {
        if T.self == String.self { self = .string }
        else if T.self == Int.self { self = .int }
        else if T.self == Double.self { self = .double }
        else if T.self == Bool.self { self = .bool }
        else if T.self == Date.self { self = .date }
        else if T.self == Data.self { self = .data }
        else if let kind = Self.rareKind(T.self) { self = kind }
        else { return nil }
    }

    /// The less common types, kept out of line so the hot checks above stay small.
    private static func rareKind<T>(_ type: T.Type) -> MessagePackScalarKind? {
        if T.self == Int64.self { return .int64 }
        if T.self == UInt64.self { return .uint64 }
        if T.self == Int32.self { return .int32 }
        if T.self == UInt32.self { return .uint32 }
        if T.self == Float.self { return .float }
        if T.self == UInt.self { return .uint }
        if T.self == Int16.self { return .int16 }
        if T.self == UInt16.self { return .uint16 }
        if T.self == Int8.self { return .int8 }
        if T.self == UInt8.self { return .uint8 }
        if T.self == URL.self { return .url }
        if T.self == Decimal.self { return .decimal }
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
            if T.self == Int128.self { return .int128 }
            if T.self == UInt128.self { return .uint128 }
        }
        // Array metadata is looked up (in a locked cache) on every mention of
        // `[String].self`; the table below does it once per process.
        let type = ObjectIdentifier(T.self)
        for (arrayType, kind) in arrayKinds where arrayType == type { return kind }
        return nil
    }

    /// The arrays of scalars, by type.
    private static let arrayKinds: [(ObjectIdentifier, MessagePackScalarKind)] = [
        (ObjectIdentifier([String].self), .stringArray), (ObjectIdentifier([Int].self), .intArray),
        (ObjectIdentifier([Double].self), .doubleArray), (ObjectIdentifier([Bool].self), .boolArray),
        (ObjectIdentifier([Float].self), .floatArray), (ObjectIdentifier([Int64].self), .int64Array),
        (ObjectIdentifier([UInt64].self), .uint64Array), (ObjectIdentifier([Int32].self), .int32Array),
        (ObjectIdentifier([UInt32].self), .uint32Array), (ObjectIdentifier([UInt8].self), .uint8Array),
    ]
}
