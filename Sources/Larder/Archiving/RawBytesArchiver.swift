/// Stores `[UInt8]` as the bytes themselves (format ``ArchiveFormat/raw``).
public struct RawBytesArchiver: Archiver {
    /// Creates the archiver.
    public init() {}
    /// Values are written as ``ArchiveFormat/raw``.
    public var format: ArchiveFormat { .raw }
    /// Appends `value`'s bytes unchanged.
    /// - Throws: nothing; the signature is the protocol's.
    public func archive(_ value: [UInt8], into bytes: inout [UInt8]) throws { bytes.append(contentsOf: value) }
    /// A copy of the stored bytes.
    /// - Throws: ``LarderError`` with ``LarderError/Code/unknownFormat`` when the value was stored
    ///   in another format than ``ArchiveFormat/raw``.
    public func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> [UInt8] {
        try RawBytesArchiver.check(format, [UInt8].self)
        return [UInt8](bytes)
    }

    static func check(_ format: ArchiveFormat, _ type: Any.Type) throws {
        guard format == .raw else {
            throw LarderError(.unknownFormat, "the value is stored as \(format), not as raw bytes, so it does not read as \(type)")
        }
    }
}

extension Array: Saveable where Element == UInt8 {
    /// Byte arrays are stored as they are.
    public static var archiver: RawBytesArchiver { RawBytesArchiver() }
}
