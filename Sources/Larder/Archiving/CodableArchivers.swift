#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The default archiver of `Codable` values: MessagePack, readable by any MessagePack library.
///
/// Reads values stored as MessagePack or JSON, so a collection can switch formats.
public struct MessagePackArchiver<Value: Codable>: Archiver {
    private let encoder = MessagePackEncoder()
    private let decoder = MessagePackDecoder()

    /// Creates the archiver.
    public init() {}

    /// Values are written as ``ArchiveFormat/messagePack``.
    public var format: ArchiveFormat { .messagePack }

    /// Appends `value` encoded as MessagePack by ``MessagePackEncoder``.
    /// - Throws: `EncodingError` when `value`'s `encode(to:)` throws or holds a value MessagePack
    ///   cannot represent (a non-finite `Date`).
    public func archive(_ value: Value, into bytes: inout [UInt8]) throws {
        try encoder.encode(value, into: &bytes)
    }

    /// Decodes a value stored as MessagePack or JSON.
    /// - Throws: `DecodingError` when the bytes are not a valid `Value`; ``LarderError`` with
    ///   ``LarderError/Code/unknownFormat`` for any other `format`.
    public func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Value {
        try CodableFormats.decode(Value.self, from: bytes, format: format, messagePack: decoder)
    }
}

/// An archiver of `Codable` values as UTF-8 JSON (Foundation's `JSONEncoder`), for people who
/// want stored values readable as text. Slower than ``MessagePackArchiver``.
///
/// Reads values stored as JSON or MessagePack.
public struct JSONArchiver<Value: Codable>: Archiver {
    /// Creates the archiver.
    public init() {}

    /// Values are written as ``ArchiveFormat/json``.
    public var format: ArchiveFormat { .json }

    /// Appends `value` as UTF-8 JSON, keys sorted.
    /// - Throws: `EncodingError` when `value` does not encode as JSON (a non-finite `Double`, say).
    public func archive(_ value: Value, into bytes: inout [UInt8]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        bytes.append(contentsOf: try encoder.encode(value))
    }

    /// Decodes a value stored as JSON or MessagePack.
    /// - Throws: `DecodingError` when the bytes are not a valid `Value`; ``LarderError`` with
    ///   ``LarderError/Code/unknownFormat`` for any other `format`.
    public func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Value {
        try CodableFormats.decode(Value.self, from: bytes, format: format, messagePack: MessagePackDecoder())
    }
}

/// Decoding shared by the Codable archivers: the stored tag picks the decoder.
enum CodableFormats {
    static func decode<Value: Decodable>(
        _ type: Value.Type, from bytes: UnsafeRawBufferPointer, format: ArchiveFormat, messagePack: MessagePackDecoder
    ) throws -> Value {
        switch format {
        case .messagePack:
            return try messagePack.decode(type, from: bytes)
        case .json:
            return try JSONDecoder().decode(type, from: Data(bytes))
        default:
            throw LarderError(.unknownFormat, "the value is stored as \(format), which a Codable archiver of \(Value.self) does not read")
        }
    }
}
