/// A type whose MessagePack form is written and read by code generated for it (`@Archived`, in
/// the `LarderMacros` product), and so a `Saveable` type archived by ``GeneratedArchiver``.
///
/// Conform through `@Archived`; the requirements are what the macro generates, and their bytes
/// must equal what the type's `Codable` conformance writes through `MessagePackEncoder`.
public protocol ArchivedMessagePack: MessagePackField, Saveable where ValueArchiver == GeneratedArchiver<Self> {}

extension ArchivedMessagePack {
    /// The generated archiver.
    public static var archiver: GeneratedArchiver<Self> { GeneratedArchiver() }
}
