#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value that generated archivers write and read directly, in the form its `Codable`
/// conformance has through ``MessagePackEncoder``.
///
/// The scalars (`String`, `Bool`, the integer types, `Double`, `Float`, `Date`, `Data`, `UUID`),
/// arrays and optionals of fields, and every type with `@Archived` (of `LarderMacros`) conform.
/// Generated code calls these requirements; other code has no need to. A conformance written by
/// hand reads a nested field with ``MessagePackFieldReader/readNested(_:)`` (or
/// `MessagePackFieldReader.read(_:forKey:)`), not by calling `init(messagePack:)` itself, so
/// that the reader's nesting count drops again when the nested value ends.
public protocol MessagePackField: Codable {
    /// Appends the value.
    /// - Throws: `EncodingError.invalidValue` when the value has no MessagePack form (a
    ///   non-finite `Date`, a string over 4 GiB), as ``MessagePackEncoder`` does.
    func writeMessagePack(to writer: inout MessagePackFieldWriter) throws
    /// Reads the value at the reader's position and moves past it.
    /// - Throws: `DecodingError` when the value there is not a `Self`.
    init(messagePack reader: inout MessagePackFieldReader) throws
}

extension String: MessagePackField {
    /// Writes a str.
    /// - Throws: `EncodingError.invalidValue` when the value has no MessagePack form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) throws { try writer.writeString(self) }
    /// Reads a str.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readString() }
}

extension Bool: MessagePackField {
    /// Writes true or false.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) { writer.writeBool(self) }
    /// Reads true or false.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readBool() }
}

extension Double: MessagePackField {
    /// Writes a float64.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) { writer.writeDouble(self) }
    /// Reads a float, or an integer it holds exactly.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readDouble() }
}

extension Float: MessagePackField {
    /// Writes a float32.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) { writer.writeFloat(self) }
    /// Reads a float32, a float64 it holds exactly, or an integer it holds exactly.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readFloat() }
}

extension Int: MessagePackField {
    /// Writes the smallest integer form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) { writer.writeSigned(Int64(self)) }
    /// Reads any integer that fits.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readInteger(Int.self) }
}

extension Int8: MessagePackField {
    /// Writes the smallest integer form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) { writer.writeSigned(Int64(self)) }
    /// Reads any integer that fits.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readInteger(Int8.self) }
}

extension Int16: MessagePackField {
    /// Writes the smallest integer form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) { writer.writeSigned(Int64(self)) }
    /// Reads any integer that fits.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readInteger(Int16.self) }
}

extension Int32: MessagePackField {
    /// Writes the smallest integer form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) { writer.writeSigned(Int64(self)) }
    /// Reads any integer that fits.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readInteger(Int32.self) }
}

extension Int64: MessagePackField {
    /// Writes the smallest integer form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) { writer.writeSigned(Int64(self)) }
    /// Reads any integer that fits.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readInteger(Int64.self) }
}

extension UInt: MessagePackField {
    /// Writes the smallest integer form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) { writer.writeUnsigned(UInt64(self)) }
    /// Reads any integer that fits.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readInteger(UInt.self) }
}

extension UInt8: MessagePackField {
    /// Writes the smallest integer form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) { writer.writeUnsigned(UInt64(self)) }
    /// Reads any integer that fits.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readInteger(UInt8.self) }
}

extension UInt16: MessagePackField {
    /// Writes the smallest integer form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) { writer.writeUnsigned(UInt64(self)) }
    /// Reads any integer that fits.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readInteger(UInt16.self) }
}

extension UInt32: MessagePackField {
    /// Writes the smallest integer form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) { writer.writeUnsigned(UInt64(self)) }
    /// Reads any integer that fits.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readInteger(UInt32.self) }
}

extension UInt64: MessagePackField {
    /// Writes the smallest integer form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) { writer.writeUnsigned(UInt64(self)) }
    /// Reads any integer that fits.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readInteger(UInt64.self) }
}

extension Date: MessagePackField {
    /// Writes the timestamp extension (type -1) in its smallest layout.
    /// - Throws: `EncodingError.invalidValue` when the value has no MessagePack form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) throws { try writer.writeDate(self) }
    /// Reads the timestamp extension in any layout.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readDate() }
}

extension Data: MessagePackField {
    /// Writes a bin.
    /// - Throws: `EncodingError.invalidValue` when the value has no MessagePack form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) throws { try writer.writeData(self) }
    /// Reads a bin (a copy: never a view of the store's memory).
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readData() }
}

extension UUID: MessagePackField {
    /// Writes the str of `uuidString`, as `UUID`'s `Codable` form is.
    /// - Throws: `EncodingError.invalidValue` when the value has no MessagePack form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) throws { try writer.writeString(uuidString) }
    /// Reads a str that is a UUID.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws { self = try reader.readUUID() }
}

extension Array: MessagePackField where Element: MessagePackField {
    /// Writes an array of the elements.
    /// - Throws: `EncodingError.invalidValue` when an element has no MessagePack form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) throws {
        try writer.writeArrayHeader(count)
        for element in self { try writer.writeNested(element) }
    }

    /// Reads an array of elements.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws {
        let count = try reader.readArrayHeader()
        self = []
        // The count was checked against the bytes that remain, so this is bounded by them.
        reserveCapacity(count)
        for _ in 0..<count {
            append(try reader.readNested(Element.self))
        }
    }
}

extension Optional: MessagePackField where Wrapped: MessagePackField {
    /// Writes nil or the value (an optional property that is nil is left out of its map instead;
    /// this form is for optional elements of arrays).
    /// - Throws: `EncodingError.invalidValue` when an element has no MessagePack form.
    public func writeMessagePack(to writer: inout MessagePackFieldWriter) throws {
        if let self { try self.writeMessagePack(to: &writer) } else { writer.writeNil() }
    }

    /// Reads nil or a value.
    /// - Throws: `DecodingError` when the value there is not one.
    public init(messagePack reader: inout MessagePackFieldReader) throws {
        self = try reader.readNil() ? nil : reader.readNested(Wrapped.self)
    }
}
