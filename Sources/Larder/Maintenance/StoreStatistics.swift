/// Figures about a store as a whole, read in one transaction by ``Database/statistics()``.
public struct StoreStatistics: Sendable, Hashable {
    /// The store format version recorded in the store.
    public let formatVersion: UInt32
    /// The size of the memory map this process uses now, in bytes. It is an upper bound the map
    /// grows past by itself, not the size of the file.
    public let mapSize: Int
    /// The bytes of the map in use: the pages up to the last one written, free pages included.
    public let usedBytes: Int
    /// The size of the data file on the disk, in bytes (`nil` if it cannot be read).
    public let fileSize: Int?
    /// LMDB's page size, in bytes.
    public let pageSize: Int
    /// The longest `collection ‖ 0x00 ‖ key` the store accepts, in bytes.
    public let maxKeySize: Int
    /// The number of reader slots the environment has (``Database/Configuration/maxReaders`` of
    /// the first process that opened it).
    public let maxReaders: Int
    /// The number of objects, in every collection.
    public let objectCount: Int
    /// The number of metadata values.
    public let metadataCount: Int
    /// The number of collections that hold at least one object.
    public let collectionCount: Int
    /// The number of commits the change log holds now.
    public let changeLogEntries: Int
    /// The number of the last commit (0 before the first).
    public let lastCommit: UInt64
    /// LMDB's id of the last transaction committed, by any process (it counts commits that
    /// change nothing Larder numbers, such as extension registrations, too).
    public let lastTransactionID: Int
    /// Whether the store is one data file (``Database/Configuration/singleFile``) rather than a
    /// directory.
    public let isSingleFile: Bool
    /// The path of the data file.
    public let dataFile: String
}
