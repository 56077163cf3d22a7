#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads values that have a fixed MessagePack form when they are requested
/// through a generic `decode<T>` call (which is how `Array` and `Dictionary`
/// decode their elements), once `MessagePackScalarKind` has classified `T`.
enum MessagePackScalarDecoding {
    /// Reads a `T` whose kind `MessagePackScalarKind(T.self)` returned.
    ///
    /// `kind` must describe `T` exactly: the value is reinterpreted as `T`.
    @inline(__always)
    static func read<T>(
        _ type: T.Type, kind: MessagePackScalarKind, from reader: MessagePackReader, at offset: inout Int
    ) throws(MessagePackReadError) -> T {
        switch kind {
        case .string: return unsafeBitCast(try reader.readString(at: &offset), to: T.self)
        case .int: return unsafeBitCast(try reader.readInteger(Int.self, at: &offset), to: T.self)
        case .double: return unsafeBitCast(try reader.readDouble(at: &offset), to: T.self)
        case .bool: return unsafeBitCast(try reader.readBool(at: &offset), to: T.self)
        case .date: return unsafeBitCast(try readDate(from: reader, at: &offset), to: T.self)
        case .data: return unsafeBitCast(try reader.readBinary(at: &offset), to: T.self)
        default: return try readRare(T.self, kind: kind, from: reader, at: &offset)
        }
    }

    /// The less common kinds, kept out of line so the hot cases above stay small.
    private static func readRare<T>(
        _ type: T.Type, kind: MessagePackScalarKind, from reader: MessagePackReader, at offset: inout Int
    ) throws(MessagePackReadError) -> T {
        switch kind {
        case .string, .int, .double, .bool, .date, .data:
            return try read(T.self, kind: kind, from: reader, at: &offset)
        case .int64: return unsafeBitCast(try reader.readInteger(Int64.self, at: &offset), to: T.self)
        case .uint64: return unsafeBitCast(try reader.readInteger(UInt64.self, at: &offset), to: T.self)
        case .int32: return unsafeBitCast(try reader.readInteger(Int32.self, at: &offset), to: T.self)
        case .uint32: return unsafeBitCast(try reader.readInteger(UInt32.self, at: &offset), to: T.self)
        case .float: return unsafeBitCast(try reader.readFloat(at: &offset), to: T.self)
        case .uint: return unsafeBitCast(try reader.readInteger(UInt.self, at: &offset), to: T.self)
        case .int16: return unsafeBitCast(try reader.readInteger(Int16.self, at: &offset), to: T.self)
        case .uint16: return unsafeBitCast(try reader.readInteger(UInt16.self, at: &offset), to: T.self)
        case .int8: return unsafeBitCast(try reader.readInteger(Int8.self, at: &offset), to: T.self)
        case .uint8: return unsafeBitCast(try reader.readInteger(UInt8.self, at: &offset), to: T.self)
        case .url: return unsafeBitCast(try readURL(from: reader, at: &offset), to: T.self)
        case .decimal: return unsafeBitCast(try readDecimal(from: reader, at: &offset), to: T.self)
        case .int128:
            guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { throw .unsupportedOnThisPlatform }
            return unsafeBitCast(try readInt128(from: reader, at: &offset), to: T.self)
        case .uint128:
            guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { throw .unsupportedOnThisPlatform }
            return unsafeBitCast(try readUInt128(from: reader, at: &offset), to: T.self)
        case .stringArray:
            return unsafeBitCast(try readArray(String.self, from: reader, at: &offset) { reader, offset throws(MessagePackReadError) in
                try reader.readString(at: &offset)
            }, to: T.self)
        case .intArray: return unsafeBitCast(try readIntegerArray(Int.self, from: reader, at: &offset), to: T.self)
        case .doubleArray:
            return unsafeBitCast(try readArray(Double.self, from: reader, at: &offset) { reader, offset throws(MessagePackReadError) in
                try reader.readDouble(at: &offset)
            }, to: T.self)
        case .boolArray:
            return unsafeBitCast(try readArray(Bool.self, from: reader, at: &offset) { reader, offset throws(MessagePackReadError) in
                try reader.readBool(at: &offset)
            }, to: T.self)
        case .floatArray:
            return unsafeBitCast(try readArray(Float.self, from: reader, at: &offset) { reader, offset throws(MessagePackReadError) in
                try reader.readFloat(at: &offset)
            }, to: T.self)
        case .int64Array: return unsafeBitCast(try readIntegerArray(Int64.self, from: reader, at: &offset), to: T.self)
        case .uint64Array: return unsafeBitCast(try readIntegerArray(UInt64.self, from: reader, at: &offset), to: T.self)
        case .int32Array: return unsafeBitCast(try readIntegerArray(Int32.self, from: reader, at: &offset), to: T.self)
        case .uint32Array: return unsafeBitCast(try readIntegerArray(UInt32.self, from: reader, at: &offset), to: T.self)
        case .uint8Array: return unsafeBitCast(try readIntegerArray(UInt8.self, from: reader, at: &offset), to: T.self)
        }
    }

    private static func readIntegerArray<Element: FixedWidthInteger>(
        _ type: Element.Type, from reader: MessagePackReader, at offset: inout Int
    ) throws(MessagePackReadError) -> [Element] {
        try readArray(Element.self, from: reader, at: &offset) { reader, offset throws(MessagePackReadError) in
            try reader.readInteger(Element.self, at: &offset)
        }
    }

    private static func readArray<Element>(
        _ type: Element.Type, from reader: MessagePackReader, at offset: inout Int,
        _ readElement: (MessagePackReader, inout Int) throws(MessagePackReadError) -> Element
    ) throws(MessagePackReadError) -> [Element] {
        var position = offset
        let count = try reader.readArrayHeader(at: &position)
        var elements: [Element] = []
        // `count` was checked against the remaining input, so this is bounded by it.
        elements.reserveCapacity(count)
        for index in 0..<count {
            do throws(MessagePackReadError) {
                elements.append(try readElement(reader, &position))
            } catch {
                throw .element(index: index, type: Element.self, underlying: error)
            }
        }
        offset = position
        return elements
    }

    static func readDate(from reader: MessagePackReader, at offset: inout Int) throws(MessagePackReadError) -> Date {
        let (seconds, nanoseconds) = try reader.readTimestamp(at: &offset)
        return MessagePackTimestamp.date(seconds: seconds, nanoseconds: nanoseconds)
    }

    static func readURL(from reader: MessagePackReader, at offset: inout Int) throws(MessagePackReadError) -> URL {
        let start = offset
        let string = try reader.readString(at: &offset)
        guard let url = URL(string: string) else {
            offset = start
            throw .invalidValue("Invalid URL string \"\(string)\"", offset: start)
        }
        return url
    }

    static func readDecimal(from reader: MessagePackReader, at offset: inout Int) throws(MessagePackReadError) -> Decimal {
        let start = offset
        let string = try reader.readString(at: &offset)
        guard let decimal = Decimal(string: string) else {
            offset = start
            throw .invalidValue("Invalid Decimal string \"\(string)\"", offset: start)
        }
        return decimal
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    static func readInt128(from reader: MessagePackReader, at offset: inout Int) throws(MessagePackReadError) -> Int128 {
        switch try reader.readInteger(at: &offset) {
        case .nonNegative(let value): return Int128(value)
        case .negative(let value): return Int128(value)
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    static func readUInt128(from reader: MessagePackReader, at offset: inout Int) throws(MessagePackReadError) -> UInt128 {
        let start = offset
        switch try reader.readInteger(at: &offset) {
        case .nonNegative(let value):
            return UInt128(value)
        case .negative(let value):
            offset = start
            throw .numberOutOfRange("Number \(value) does not fit in UInt128", offset: start)
        }
    }
}
