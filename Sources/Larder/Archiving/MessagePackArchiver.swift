#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The default archiver of `Codable` values: MessagePack, readable by any MessagePack library.
///
/// Reads values stored as MessagePack or JSON, so a collection can switch formats.
public struct MessagePackArchiver<Value: Codable>: Archiver {
    // No stored coders: every typed read makes one of these, and a coder's empty `userInfo`
    // costs its construction (callgrind: ~130 instructions per cached read). The coders keep
    // their working memory in a pool, so making one per value costs nothing more.

    /// Creates the archiver.
    public init() {}

    /// Values are written as ``ArchiveFormat/messagePack``.
    public var format: ArchiveFormat { .messagePack }

    /// Appends `value` encoded as MessagePack by `MessagePackEncoder`.
    /// - Throws: `EncodingError` when `value`'s `encode(to:)` throws or holds a value MessagePack
    ///   cannot represent (a non-finite `Date`).
    public func archive(_ value: Value, into bytes: inout [UInt8]) throws {
        try MessagePackEncoder().encode(value, into: &bytes)
    }

    /// Decodes a value stored as MessagePack or JSON.
    /// - Throws: `DecodingError` when the bytes are not a valid `Value`; ``LarderError`` with
    ///   ``LarderError/Code/unknownFormat`` for any other `format`.
    public func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Value {
        try CodableFormats.decode(Value.self, from: bytes, format: format, messagePack: MessagePackDecoder())
    }
}
