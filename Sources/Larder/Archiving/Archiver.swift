/// A codec for one value type: value to bytes and back, with the format tag it writes.
///
/// Archivers are small `Sendable` values. Larder frames what ``archive(_:into:)`` appends with a
/// one-byte ``ArchiveFormat`` and hands ``unarchive(_:format:)`` the stored payload and that tag,
/// so an archiver can read several formats (the Codable archivers read both MessagePack and JSON).
///
/// ```swift
/// struct CelsiusArchiver: Archiver {
///     var format: ArchiveFormat { .custom(0x40) }
///     func archive(_ value: Double, into bytes: inout [UInt8]) throws {
///         withUnsafeBytes(of: value.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
///     }
///     func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Double {
///         guard format == self.format, bytes.count == 8 else {
///             throw LarderError(.decodingFailed, "not a temperature")
///         }
///         return Double(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)))
///     }
/// }
/// ```
///
/// A connection's cache hands a decoded value only to reads with an archiver of the same type
/// as the one that decoded or wrote it (and, for a ``PolymorphicArchiver``, the same registered
/// types), so a cached read returns or throws what decoding the stored bytes would. Instances of
/// one archiver type are taken to read alike; make an archiver type `Hashable` if its instances
/// can decode the same bytes differently, and equal instances then share cached values.
public protocol Archiver<Value>: Sendable {
    /// The type this archiver reads and writes.
    associatedtype Value

    /// The tag stored in front of what ``archive(_:into:)`` writes.
    var format: ArchiveFormat { get }

    /// Appends the bytes of `value` to `bytes` (which may already hold the framing byte).
    /// - Throws: any error; Larder reports it as ``LarderError/Code/encodingFailed``.
    func archive(_ value: Value, into bytes: inout [UInt8]) throws

    /// Reads a value from `bytes`, a payload written in `format`.
    ///
    /// `bytes` may point into the store's memory map: read it, do not keep it.
    /// - Throws: any error; Larder reports it as ``LarderError/Code/decodingFailed`` (a
    ///   ``LarderError`` you throw is passed on with the index added).
    func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Value
}
