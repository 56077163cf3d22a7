#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes values that have a fixed MessagePack form (numbers, strings, Bool, and
/// the Foundation types with special wire forms) when they reach an encoder
/// through a generic `encode<T>` call.
///
/// Generic calls are how most values arrive (`Array.encode(to:)` calls the generic
/// `encode(_:)` for every element), so the dispatch compares metatypes, which is
/// a pointer comparison, instead of using dynamic casts.
enum MessagePackScalarEncoding {
    /// Writes `value` and returns true if `T` is a scalar type; returns false (and
    /// writes nothing) for every other type.
    /// - Throws: `EncodingError.invalidValue` for a value with no MessagePack form
    ///   (a non-finite `Date`, an `Int128` beyond 64 bits, a string over 4 GiB).
    @inline(__always)
    static func write<T: Encodable>(
        _ value: T, into writer: inout MessagePackWriter, codingPath: () -> [any CodingKey]
    ) throws -> Bool {
        if T.self == String.self {
            try writeString(unsafeBitCast(value, to: String.self), into: &writer, codingPath: codingPath)
        } else if T.self == Int.self {
            writer.writeInt(Int64(unsafeBitCast(value, to: Int.self)))
        } else if T.self == Double.self {
            writer.writeDouble(unsafeBitCast(value, to: Double.self))
        } else if T.self == Bool.self {
            writer.writeBool(unsafeBitCast(value, to: Bool.self))
        } else if T.self == Date.self {
            try writeDate(unsafeBitCast(value, to: Date.self), into: &writer, codingPath: codingPath)
        } else if T.self == Data.self {
            try writeData(unsafeBitCast(value, to: Data.self), into: &writer, codingPath: codingPath)
        } else {
            return try writeRareScalar(value, into: &writer, codingPath: codingPath)
        }
        return true
    }

    /// The less common scalar types, kept out of line so the hot checks above stay small.
    private static func writeRareScalar<T: Encodable>(
        _ value: T, into writer: inout MessagePackWriter, codingPath: () -> [any CodingKey]
    ) throws -> Bool {
        if T.self == Int64.self {
            writer.writeInt(unsafeBitCast(value, to: Int64.self))
        } else if T.self == UInt64.self {
            writer.writeUInt(unsafeBitCast(value, to: UInt64.self))
        } else if T.self == Int32.self {
            writer.writeInt(Int64(unsafeBitCast(value, to: Int32.self)))
        } else if T.self == UInt32.self {
            writer.writeUInt(UInt64(unsafeBitCast(value, to: UInt32.self)))
        } else if T.self == Float.self {
            writer.writeFloat(unsafeBitCast(value, to: Float.self))
        } else if T.self == UInt.self {
            writer.writeUInt(UInt64(unsafeBitCast(value, to: UInt.self)))
        } else if T.self == Int16.self {
            writer.writeInt(Int64(unsafeBitCast(value, to: Int16.self)))
        } else if T.self == UInt16.self {
            writer.writeUInt(UInt64(unsafeBitCast(value, to: UInt16.self)))
        } else if T.self == Int8.self {
            writer.writeInt(Int64(unsafeBitCast(value, to: Int8.self)))
        } else if T.self == UInt8.self {
            writer.writeUInt(UInt64(unsafeBitCast(value, to: UInt8.self)))
        } else if T.self == URL.self {
            try writeString(unsafeBitCast(value, to: URL.self).absoluteString, into: &writer, codingPath: codingPath)
        } else if T.self == Decimal.self {
            try writeString(unsafeBitCast(value, to: Decimal.self).description, into: &writer, codingPath: codingPath)
        } else if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *), T.self == Int128.self {
            try writeInt128(unsafeBitCast(value, to: Int128.self), into: &writer, codingPath: codingPath)
        } else if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *), T.self == UInt128.self {
            try writeUInt128(unsafeBitCast(value, to: UInt128.self), into: &writer, codingPath: codingPath)
        } else {
            return try writeScalarArray(value, into: &writer, codingPath: codingPath)
        }
        return true
    }

    /// Arrays of the most common scalars, written exactly as `Array.encode(to:)`
    /// would write them but without an unkeyed container per array.
    private static func writeScalarArray<T: Encodable>(
        _ value: T, into writer: inout MessagePackWriter, codingPath: () -> [any CodingKey]
    ) throws -> Bool {
        if T.self == [String].self {
            let array = unsafeBitCast(value, to: [String].self)
            try writeArrayHeader(array.count, into: &writer, codingPath: codingPath)
            for (index, element) in array.enumerated() {
                try writeString(element, into: &writer, codingPath: { codingPath() + [MessagePackCodingKey(index: index)] })
            }
        } else if T.self == [Int].self {
            let array = unsafeBitCast(value, to: [Int].self)
            try writeArrayHeader(array.count, into: &writer, codingPath: codingPath)
            for element in array { writer.writeInt(Int64(element)) }
        } else if T.self == [Double].self {
            let array = unsafeBitCast(value, to: [Double].self)
            try writeArrayHeader(array.count, into: &writer, codingPath: codingPath)
            for element in array { writer.writeDouble(element) }
        } else if T.self == [Bool].self {
            let array = unsafeBitCast(value, to: [Bool].self)
            try writeArrayHeader(array.count, into: &writer, codingPath: codingPath)
            for element in array { writer.writeBool(element) }
        } else if T.self == [Float].self {
            let array = unsafeBitCast(value, to: [Float].self)
            try writeArrayHeader(array.count, into: &writer, codingPath: codingPath)
            for element in array { writer.writeFloat(element) }
        } else if T.self == [Int64].self {
            let array = unsafeBitCast(value, to: [Int64].self)
            try writeArrayHeader(array.count, into: &writer, codingPath: codingPath)
            for element in array { writer.writeInt(element) }
        } else if T.self == [UInt64].self {
            let array = unsafeBitCast(value, to: [UInt64].self)
            try writeArrayHeader(array.count, into: &writer, codingPath: codingPath)
            for element in array { writer.writeUInt(element) }
        } else if T.self == [Int32].self {
            let array = unsafeBitCast(value, to: [Int32].self)
            try writeArrayHeader(array.count, into: &writer, codingPath: codingPath)
            for element in array { writer.writeInt(Int64(element)) }
        } else if T.self == [UInt32].self {
            let array = unsafeBitCast(value, to: [UInt32].self)
            try writeArrayHeader(array.count, into: &writer, codingPath: codingPath)
            for element in array { writer.writeUInt(UInt64(element)) }
        } else if T.self == [UInt8].self {
            let array = unsafeBitCast(value, to: [UInt8].self)
            try writeArrayHeader(array.count, into: &writer, codingPath: codingPath)
            for element in array { writer.writeUInt(UInt64(element)) }
        } else {
            return false
        }
        return true
    }

    static func writeArrayHeader(
        _ count: Int, into writer: inout MessagePackWriter, codingPath: () -> [any CodingKey]
    ) throws {
        guard writer.writeArrayHeader(count) else {
            throw EncodingError.invalidValue(count, EncodingError.Context(
                codingPath: codingPath(),
                debugDescription: "An array with \(count) elements exceeds the MessagePack limit of 4294967295."))
        }
    }

    static func writeString(
        _ value: String, into writer: inout MessagePackWriter, codingPath: () -> [any CodingKey]
    ) throws {
        guard writer.writeString(value) else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath(),
                debugDescription: "String of \(value.utf8.count) UTF-8 bytes exceeds the MessagePack str32 limit of 4294967295 bytes."))
        }
    }

    static func writeDate(
        _ value: Date, into writer: inout MessagePackWriter, codingPath: () -> [any CodingKey]
    ) throws {
        guard let (seconds, nanoseconds) = MessagePackTimestamp.components(of: value) else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath(),
                debugDescription: "Date with timeIntervalSinceReferenceDate \(value.timeIntervalSinceReferenceDate) cannot be represented as a MessagePack timestamp."))
        }
        writer.writeTimestamp(seconds: seconds, nanoseconds: nanoseconds)
    }

    static func writeData(
        _ value: Data, into writer: inout MessagePackWriter, codingPath: () -> [any CodingKey]
    ) throws {
        let written = value.withUnsafeBytes { writer.writeBinary($0) }
        guard written else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath(),
                debugDescription: "Data of \(value.count) bytes exceeds the MessagePack bin32 limit of 4294967295 bytes."))
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    static func writeInt128(
        _ value: Int128, into writer: inout MessagePackWriter, codingPath: () -> [any CodingKey]
    ) throws {
        if let small = Int64(exactly: value) {
            writer.writeInt(small)
        } else if let small = UInt64(exactly: value) {
            writer.writeUInt(small)
        } else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath(),
                debugDescription: "Int128 value \(value) does not fit in MessagePack's 64-bit integers."))
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    static func writeUInt128(
        _ value: UInt128, into writer: inout MessagePackWriter, codingPath: () -> [any CodingKey]
    ) throws {
        guard let small = UInt64(exactly: value) else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath(),
                debugDescription: "UInt128 value \(value) does not fit in MessagePack's 64-bit integers."))
        }
        writer.writeUInt(small)
    }
}
