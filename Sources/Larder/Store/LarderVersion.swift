/// The version of this library and of the store format it writes.
public enum LarderVersion {
    /// The library's semantic version.
    public static let string = "0.1.0"
    /// The newest store format this library reads and the one it writes.
    public static var storeFormat: UInt32 { Environment.formatVersion }
}
