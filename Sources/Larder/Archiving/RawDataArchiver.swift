#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Stores `Data` as the bytes themselves (format ``ArchiveFormat/raw``).
public struct RawDataArchiver: Archiver {
    /// Creates the archiver.
    public init() {}
    /// Values are written as ``ArchiveFormat/raw``.
    public var format: ArchiveFormat { .raw }
    /// Appends `value`'s bytes unchanged.
    /// - Throws: nothing; the signature is the protocol's.
    public func archive(_ value: Data, into bytes: inout [UInt8]) throws { bytes.append(contentsOf: value) }
    /// A copy of the stored bytes as `Data`.
    /// - Throws: ``LarderError`` with ``LarderError/Code/unknownFormat`` when the value was stored
    ///   in another format than ``ArchiveFormat/raw``.
    public func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Data {
        try RawBytesArchiver.check(format, Data.self)
        return Data(bytes)
    }
}

extension Data: Saveable {
    /// `Data` is stored as it is.
    public static var archiver: RawDataArchiver { RawDataArchiver() }
}
