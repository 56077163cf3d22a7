/// The format byte at the front of every stored object and metadata value.
///
/// Because each value names its own format, any tool can tell how to read it, and a collection
/// can move from one format to another value by value. Larder reserves `0x00`–`0x3F` (`0x3F`
/// starts the checksum framing of ``Database/Configuration/checksumsValues`` and is never a
/// format); use ``custom(_:)`` (`0x40`–`0xFF`) for your own archivers.
public struct ArchiveFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The byte stored in front of the value.
    public let rawValue: UInt8
    /// The format with tag `rawValue`, whether or not an archiver reads it.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// MessagePack (https://msgpack.org), written by the default Codable archiver.
    public static let messagePack = ArchiveFormat(rawValue: 0x01)
    /// UTF-8 JSON, written by ``JSONArchiver``.
    public static let json = ArchiveFormat(rawValue: 0x02)
    /// Bytes stored as they are (`[UInt8]`, `Data`).
    public static let raw = ArchiveFormat(rawValue: 0x03)

    /// A format tag for your own archiver.
    /// - Precondition: `tag` is `0x40` or more (lower tags are Larder's).
    public static func custom(_ tag: UInt8) -> ArchiveFormat {
        precondition(tag >= 0x40, "Larder misuse: custom archive format tags start at 0x40; 0x00-0x3F are reserved")
        return ArchiveFormat(rawValue: tag)
    }

    /// The format's name: `messagePack`, `json`, `raw`, or `custom(0x..)` with its tag in hex.
    public var description: String {
        switch self {
        case .messagePack: "messagePack"
        case .json: "json"
        case .raw: "raw"
        default: "custom(0x" + String(rawValue, radix: 16) + ")"
        }
    }
}
