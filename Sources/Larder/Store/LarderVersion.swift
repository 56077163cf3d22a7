/// The version of this library and of the store format it writes.
public enum LarderVersion {
    /// The library's semantic version.
    public static let string = "0.1.0"
    /// The newest store format this library reads and writes. A new store records format 1,
    /// and keeps it until the first checksummed value is written
    /// (``Database/Configuration/checksumsValues``), which records format 2.
    public static var storeFormat: UInt32 { Environment.formatVersion }
}
