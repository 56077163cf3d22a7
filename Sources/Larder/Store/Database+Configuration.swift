extension Database {
    /// How a store is opened. Every property has a default that suits most programs.
    ///
    /// ```swift
    /// var configuration = Database.Configuration()
    /// configuration.durability = .noMetaSync
    /// let db = try Database(path: "/var/lib/app/store", configuration: configuration)
    /// ```
    ///
    /// Environment-wide settings (all but the cache limits) are taken from the first `Database`
    /// that opens a file in the process; later ones share the open environment as it is.
    public struct Configuration: Sendable {
        /// What a crash can lose; see ``Durability``. Default ``Durability/full``.
        public var durability: Durability = .full
        /// The size of the memory map when the store is created, in bytes. The map grows by
        /// itself (doubling) whenever a write needs more, so this only sets where it starts.
        /// Default 16 MiB.
        public var initialMapSize: Int = 16 << 20
        /// The most transactions that may be live at once across every process that opens the
        /// store. Default 1024.
        public var maxReaders: Int = 1024
        /// Permission bits for the files the store creates. Default `0o600` (owner only); a new
        /// store directory gets the matching search bits (`0o700`).
        public var fileMode: UInt32 = 0o600
        /// Keep the store in one file at `path` (plus `path-lock`) instead of a directory.
        /// An existing regular file at `path` is always opened this way, except a file named
        /// `data.mdb`, which is a directory store's data file and opens that store. Default `false`.
        public var singleFile: Bool = false
        /// Open the store for reading only (LMDB's `RDONLY` environment flag): nothing is created, and every
        /// write (and every extension registration) throws ``LarderError/Code/readOnly``. It
        /// reads stores on read-only media and stores whose files this process may not write.
        ///
        /// - Warning: where the lock file cannot be written either (read-only media without one,
        ///   or a lock file of another user), the store is read without LMDB's reader table: a
        ///   writer in another process is not told about this process's snapshots and may reuse
        ///   their pages. Read such a store only while nothing writes it. Default `false`.
        public var readOnly: Bool = false
        /// What ``Database/init(path:configuration:)`` checks before it lets anything read an
        /// existing store (see ``OpenVerification``). LMDB trusts its file: a damaged page can
        /// make it assert (the process stops) or return bytes that are not what was written.
        /// Default ``OpenVerification/none``.
        public var verification: OpenVerification = .none
        /// How many commits the change log keeps at least, so that other processes (and
        /// connections that fell behind) can learn exactly what changed. The older commits leave
        /// in batches of a sixteenth of the limit (at least 1): the log holds up to
        /// `changeLogLimit + changeLogLimit / 16 - 1` commits, and a commit deletes old entries
        /// only once a batch has gathered, which keeps the log's first pages out of most
        /// commits. A process that falls further behind than the log reaches empties its caches
        /// and its observers receive a reset (``Changeset/isReset``). At least 1. Default 1000.
        public var changeLogLimit: Int = 1000
        /// How many bytes the change log may take in the file, as the pages its tree occupies:
        /// beyond it the oldest commits leave the log even when fewer than ``changeLogLimit``
        /// are kept (the newest always stays), so that a run of large commits (with
        /// ``keepsValueHistory``, each one holds its values) cannot grow the store without
        /// bound. `nil` caps by count alone. Like ``changeLogLimit`` it is the writer's own
        /// setting. Positive. Default 32 MiB.
        public var changeLogByteLimit: Int? = 32 << 20
        /// How many undo steps the store keeps (see ``DatabaseAccess/write(undoable:_:)-gdvd``);
        /// recording a step beyond it drops the oldest. Like ``changeLogLimit`` it is the writer's
        /// own setting. At least 0 (0 keeps none). Default 100.
        public var undoLimit: Int = 100
        /// Whether each commit's change log entry also keeps the values the commit left: for every
        /// object and metadata value it inserted or updated, the bytes stored after the commit,
        /// so that ``ReadTransaction/history(ofObjectAt:)`` can return earlier values (not only
        /// which commits changed an index) for as long as the log keeps the commit
        /// (``changeLogLimit``). Removals and cleared collections are recorded as such, with no
        /// values. Like ``changeLogLimit`` it is the writer's own setting: a process that writes
        /// with it off records no values, whatever others do. Default `false`.
        ///
        /// - Note: Every changed value is written twice, once to the store and once to the log:
        ///   the bytes written per commit about double, and the log holds up to
        ///   ``changeLogLimit`` commits' worth of values. A commit's log entry is one LMDB value,
        ///   so a commit of very large values makes one equally large entry.
        public var keepsValueHistory: Bool = false
        /// How often, while something observes the database (``Database/changes(inCollection:)``),
        /// the process looks for commits of other processes. The check reads one value from
        /// shared memory; the log is read only when something was committed. Default 100 ms.
        public var changePollInterval: Duration = .milliseconds(100)
        /// The most decoded objects each new connection keeps (``Connection/objectCacheLimit``).
        /// 0 turns the cache off. Default 250.
        public var objectCacheLimit: Int = 250
        /// The most decoded metadata values each new connection keeps
        /// (``Connection/metadataCacheLimit``). 0 turns the cache off. Default 250.
        public var metadataCacheLimit: Int = 250
        /// Whether each new connection keeps an identity map of the class instances it loads
        /// (``Connection/keepsIdentityMap``), so that loading an index again returns the instance
        /// already loaded while it is alive. The database's own `read` and `write` do not.
        /// Default `false`.
        public var keepsIdentityMap: Bool = false
        /// Whether every object and metadata value written carries a CRC-32C checksum of its
        /// bytes in its framing, so that a read of a value damaged on disk (a flipped bit, a torn
        /// write) throws ``LarderError/Code/corrupted`` instead of returning wrong data, and
        /// ``Database/checkStructure()`` reports it (``StructureProblem/Kind/checksumMismatch``).
        /// Like ``changeLogLimit`` it is the writer's own setting: it applies to the values this
        /// process writes, and reads verify a checksum wherever there is one, whatever the setting.
        /// Values written without a checksum stay as they are until they are written again.
        /// Default `false`.
        ///
        /// The first checksummed value raises the store's format version from 1 to 2: a Larder
        /// older than the one that added checksums refuses to open the store
        /// (``LarderError/Code/newerFormatVersion``) rather than misread its values. Each value
        /// grows by 5 bytes; the cost in time is measured in the Performance guide.
        ///
        /// - Note: Without checksums, damage inside a value's payload that still decodes is not
        ///   detected: the read returns different data and the structure check says nothing.
        public var checksumsValues: Bool = false
        /// Told every ``DatabaseEvent`` of this `Database` as it happens: opening and closing, map
        /// growth, stale readers cleared, cache resets, each commit (group size, changed rows,
        /// duration, durability) and each failed write. `nil` (the default) costs nothing: no
        /// event is built. The `LarderAdapters` product has handlers for swift-log and
        /// swift-metrics.
        ///
        /// ```swift
        /// configuration.onEvent = { event in
        ///     if case .mapGrew(let old, let new) = event { print("map: \(old) -> \(new) bytes") }
        /// }
        /// ```
        ///
        /// The handler runs on the thread where the event happens (the writing thread, the
        /// database's writer thread for asynchronous writes, a reading thread for cache resets),
        /// sometimes while that thread's LMDB transaction is still open, and never under a lock
        /// of Larder's. So it must be quick and must not block: hand the event on (a log call, a
        /// metric, a continuation's `yield`) rather than wait for anything. It may read the store,
        /// but must not write to it synchronously (the write could wait for the very commit that
        /// is telling it); an asynchronous write started from a `Task` is fine. Each `Database`
        /// has its own handler: a later `Database` on the same store in the process is told about
        /// the map and the readers too when it sets one.
        public var onEvent: (@Sendable (DatabaseEvent) -> Void)?

        /// The default configuration.
        public init() {}
    }
}
