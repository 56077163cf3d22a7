#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
