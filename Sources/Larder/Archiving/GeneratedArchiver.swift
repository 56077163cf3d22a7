/// The archiver of an ``ArchivedMessagePack`` type (or of any `MessagePackField`): its generated
/// code, in the MessagePack form its `Codable` conformance has (``MessagePackArchiver`` writes
/// the same bytes and reads what this one writes, and the other way round).
///
/// Values stored as JSON (by ``JSONArchiver``) are read through `Codable`, as
/// ``MessagePackArchiver`` reads them.
public struct GeneratedArchiver<Value: MessagePackField>: Archiver {
    /// Creates the archiver.
    public init() {}

    /// Values are written as ``ArchiveFormat/messagePack``.
    public var format: ArchiveFormat { .messagePack }

    /// Appends `value`'s MessagePack map; on failure `bytes` is left as it was.
    /// - Throws: `EncodingError.invalidValue` when a property has no MessagePack form, and what a
    ///   property encoded through `Codable` throws.
    public func archive(_ value: Value, into bytes: inout [UInt8]) throws {
        let originalCount = bytes.count
        // The array moves into the writer and back, so appends never copy it.
        var writer = MessagePackFieldWriter(bytes: [])
        swap(&writer.bytes, &bytes)
        do {
            try value.writeMessagePack(to: &writer)
        } catch {
            swap(&writer.bytes, &bytes)
            bytes.removeSubrange(originalCount...)
            throw error
        }
        swap(&writer.bytes, &bytes)
    }

    /// Reads a value stored as MessagePack (by either path) or JSON.
    ///
    /// The bytes are read in one pass and refused as `MessagePackDecoder` refuses them (lengths,
    /// the reserved byte, nesting deeper than 512, trailing bytes, values of the wrong kind; the
    /// values of unknown keys are checked whole as they are skipped), so both paths refuse the
    /// same damaged input.
    /// - Throws: `DecodingError` when the bytes are not a valid `Value`; ``LarderError`` with
    ///   ``LarderError/Code/unknownFormat`` for a format neither MessagePack nor JSON.
    public func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Value {
        guard format == .messagePack else {
            return try MessagePackArchiver<Value>().unarchive(bytes, format: format)
        }
        var reader = MessagePackFieldReader(bytes: bytes)
        let value = try Value(messagePack: &reader)
        try reader.finish()
        return value
    }
}
