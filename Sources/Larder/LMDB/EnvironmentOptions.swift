/// How an ``Environment`` opens and runs its LMDB handle: what the LMDB layer needs to know of a
/// store's configuration, and nothing more. The Store layer builds it from the user's settings.
struct EnvironmentOptions: Sendable {
    /// When a commit reaches the disk.
    enum SyncMode: Sendable, Equatable {
        /// Each commit flushes its data pages and its meta page before it returns.
        case full
        /// Each commit flushes its data pages; its meta page waits for the next commit's flush
        /// (`MDB_NOMETASYNC`).
        case noMetaSync
        /// ``noMetaSync`` plus a background flush of the last meta page every `interval`, when a
        /// commit happened since the last one (see ``SyncTimer``).
        case deferred(interval: Duration)
    }

    /// The map size to open with, in bytes (the map grows on demand).
    var mapSize: Int
    /// The reader slots of a new lock file.
    var maxReaders: Int
    /// The permission bits of files (and directories) the environment creates.
    var fileMode: UInt32
    /// Whether the store is one data file (beside its lock file) rather than a directory.
    var singleFile: Bool
    /// Whether the environment opens read-only (`MDB_RDONLY`): no write transaction can begin.
    var readOnly: Bool
    /// When commits reach the disk.
    var syncMode: SyncMode
    /// The format version this program writes, and where the store records it.
    var format: Format

    /// Where a store records the version of its format, and the newest version this program
    /// reads and writes: a new store records it, an open refuses a store with a newer one. The
    /// versions' history belongs to the layer above (``StoreFormat``).
    struct Format: Sendable {
        /// The key of the version in the `larder` database (a 4-byte big-endian value).
        var key: String
        /// The newest version.
        var current: UInt32
    }
}
