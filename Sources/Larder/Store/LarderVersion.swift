/// The version of this library and of the store format it writes.
public enum LarderVersion {
    /// The library's semantic version: the one place it is written (the `larder` tool prints it).
    /// Between releases it is the next release's with `-dev`, matching the top section of
    /// CHANGELOG.md (a test checks the two agree); a release tag `vX.Y.Z` sets it to `X.Y.Z`.
    public static let string = "0.2.0-dev"
    /// The newest store format this library reads and writes, which a new store records: 3
    /// (the change log's payloads as MessagePack `bin`). Stores of formats 1 and 2 (Larder 0.1,
    /// without and with checksummed values) open and read, and their first commit raises them
    /// to 3 (Documentation/StorageLayout.md).
    public static var storeFormat: UInt32 { StoreFormat.current }
}
