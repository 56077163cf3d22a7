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

    public var format: ArchiveFormat { .messagePack }

    public func archive(_ value: Value, into bytes: inout [UInt8]) throws {
        try encoder.encode(value, into: &bytes)
    }

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

    public var format: ArchiveFormat { .json }

    public func archive(_ value: Value, into bytes: inout [UInt8]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        bytes.append(contentsOf: try encoder.encode(value))
    }

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
