/// The stored form of a polymorphic value: the MessagePack array `[type name, value]`, where the
/// value is the concrete type's own MessagePack encoding, inline (see StorageLayout.md).
///
/// A MessagePack tool reads it as a two-element array without knowing anything of Larder.
enum PolymorphicEnvelope {
    /// The bytes that open the envelope of a value registered as `name`: the array header and
    /// the name. Computed once per registered type.
    static func opening(for name: String) -> [UInt8] {
        var writer = MessagePackWriter()
        _ = writer.writeArrayHeader(2)
        let fits = writer.writeString(name)
        precondition(fits, "Larder misuse: a polymorphic type name longer than MessagePack's 4 GiB limit")
        return writer.bytes
    }

    /// The stored type name and the bytes of the value it names.
    ///
    /// - Throws: ``LarderError/Code/unknownFormat`` when `format` is not MessagePack;
    ///   ``LarderError/Code/decodingFailed`` when `bytes` are not an envelope. `reading` names
    ///   the type asked for, for the message.
    static func open(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat, reading: String) throws -> (name: String, value: UnsafeRawBufferPointer) {
        guard format == .messagePack else {
            throw LarderError(.unknownFormat, "the value is stored as \(format), but a polymorphic value (read as \(reading)) is stored as MessagePack")
        }
        let reader = MessagePackReader(bytes: bytes)
        var offset = 0
        guard let count = try? reader.readArrayHeader(at: &offset), count == 2,
              let name = try? reader.readString(at: &offset), offset < bytes.count else {
            throw LarderError(.decodingFailed, "the stored value is not a polymorphic value (a MessagePack array [type name, value]), so it does not read as \(reading)")
        }
        return (name, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
    }
}
