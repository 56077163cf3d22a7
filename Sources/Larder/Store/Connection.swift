import Synchronization

/// A connection to a ``Database``: the handle through which one part of a program reads and
/// writes, with its own caches of decoded objects and metadata and, when asked, a pinned snapshot.
///
/// A connection is `Sendable` and may be used from several threads; its transactions behave as
/// the database's do, and it has the same conveniences (``DatabaseAccess``: asynchronous reads
/// and writes, undoable writes, undo and redo, typed reads and writes, observation).
///
/// ```swift
/// let connection = db.newConnection()
/// let count = try connection.read { try $0.numberOfKeys(inCollection: "products") }
/// ```
///
/// ## Caches
/// Objects and metadata a connection decodes are kept in two least-recently-used caches
/// (``objectCacheLimit``, ``metadataCacheLimit``), so reading them again decodes nothing. The
/// caches never serve a stale value: at the start of each transaction the connection removes what
/// the commits since its last transaction changed, whichever connection or process made them.
/// Values it writes go into its cache as written. ``cacheStatistics`` counts hits and misses.
/// With ``keepsIdentityMap``, loading an index again returns the class instance already loaded.
///
/// ## Pinned snapshots
/// A user interface wants a stable view of the store that moves forward only when it is ready:
/// ``pinSnapshot()`` keeps the connection's reads on one snapshot, ``advanceSnapshot()`` moves them
/// to the newest commit in one step and returns the changesets skipped. The guide
/// `Documentation/Changes.md` shows the pattern.
public final class Connection: DatabaseAccess {
    /// The database this connection belongs to.
    public let database: Database
    let core: ConnectionCore

    init(database: Database) {
        self.database = database
        let configuration = database.configuration
        self.core = ConnectionCore(
            objectCacheLimit: configuration.objectCacheLimit, metadataCacheLimit: configuration.metadataCacheLimit,
            keepsIdentityMap: configuration.keepsIdentityMap)
    }

    deinit {
        core.unpin(database.environment)
    }

    /// Runs `body` in a read-only transaction (see ``DatabaseAccess``).
    /// With a pinned snapshot, `body` reads the pinned snapshot.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin.
    public func read<R>(_ body: (ReadTransaction) throws -> R) throws -> R {
        try database.performRead(on: core, body)
    }

    /// Runs `body` in a read-only transaction from asynchronous code. A read transaction never
    /// waits for writers, so this runs on the calling task.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin.
    public func read<R: Sendable>(_ body: @Sendable (ReadTransaction) throws -> R) async throws -> R {
        try database.performRead(on: core, body)
    }

    /// Runs `body` in a read-write transaction on the calling thread (see ``DatabaseAccess``).
    /// A write always starts from the newest commit, pinned snapshot or not.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin or commit.
    public func write<R>(_ body: (ReadWriteTransaction) throws -> R) throws -> R {
        try database.performWrite(on: core, body)
    }

    /// Runs `body` in a read-write transaction on the writer thread, committed together with
    /// other asynchronous writes waiting at the same time (see ``DatabaseAccess``).
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin or commit.
    public func write<R: Sendable>(_ body: @escaping @Sendable (ReadWriteTransaction) throws -> R) async throws -> R {
        try await database.enqueueWrite(on: core, body)
    }

    // MARK: Caches

    /// The most decoded objects this connection keeps; 0 turns the cache off. Changing it takes
    /// effect at once (lowering it evicts the least recently used).
    public var objectCacheLimit: Int {
        get { core.cache.objectLimit }
        set { core.cache.objectLimit = newValue }
    }

    /// The most decoded metadata values this connection keeps; 0 turns the cache off.
    public var metadataCacheLimit: Int {
        get { core.cache.metadataLimit }
        set { core.cache.metadataLimit = newValue }
    }

    /// Hits and misses of this connection's caches since it was created (the database's own
    /// `read` and `write` count theirs in ``Database/cacheStatistics``).
    public var cacheStatistics: CacheStatistics { core.cache.currentStatistics }

    /// Whether this connection keeps an identity map: while an instance of a class it loaded is
    /// alive, loading the same index again returns that same instance. Starts as
    /// ``Database/Configuration/keepsIdentityMap`` (default `false`); turning it off forgets the
    /// instances.
    ///
    /// ```swift
    /// connection.keepsIdentityMap = true
    /// let a = try connection.read { try $0.object(forKey: "n1", inCollection: "notes", as: Note.self) }
    /// let b = try connection.read { try $0.object(forKey: "n1", inCollection: "notes", as: Note.self) }
    /// // a === b while `a` is alive
    /// ```
    ///
    /// The map holds instances weakly and applies to the point reads of objects (`object`,
    /// `objects(forKeys:)`, `row`, `read(_:key:)`, references); enumerations and metadata do not
    /// go through it. It follows every commit as the object cache does:
    /// - A commit that changes an index (in this connection, another one, or another process)
    ///   drops its instance, so the next load returns a new one; an ``IdentityRefreshable``
    ///   instance is kept instead and refreshed in place at the next load of the index.
    /// - An instance this connection writes becomes the one loads return, once committed (when
    ///   the write keeps its values for the cache: ``objectCacheLimit`` above 0 and no more
    ///   values written than it).
    /// - When the changes are not known (``Changeset/isReset``) the map is emptied.
    /// - A pinned snapshot older than the map's commit neither returns nor records its instances.
    ///
    /// The object cache holds its instances strongly as it holds any value, so up to
    /// ``objectCacheLimit`` recently used instances live on after you release them; set the limit
    /// to 0 for a map that keeps nothing alive. One instance is shared by every transaction of the
    /// connection, on whichever thread: use the connection from one thread (or actor) when the
    /// class is not thread-safe.
    public var keepsIdentityMap: Bool {
        get { core.cache.keepsIdentityMap }
        set { core.cache.keepsIdentityMap = newValue }
    }

    // MARK: Pinned snapshot

    /// Keeps this connection's reads on the snapshot of the newest commit, until
    /// ``advanceSnapshot()`` or ``unpinSnapshot()``. Does nothing if a snapshot is already pinned.
    ///
    /// Reads of a pinned snapshot run one at a time. A pinned snapshot keeps the pages it sees
    /// from being reused, so the file grows while it lasts under heavy writing: advance it when
    /// the user interface has caught up.
    /// - Throws: ``LarderError`` when no read transaction can begin (``LarderError/Code/readersFull``).
    public func pinSnapshot() throws {
        _ = try database.whileOpen("pinSnapshot") { try core.pin(database.environment, hub: database.shared.changeHub, returningSkipped: false) }
    }

    /// Moves the pinned snapshot to the newest commit (pinning one if none is) and returns the
    /// changesets of the commits it moved across, in order. When the change log no longer has
    /// them all, they are one reset (``Changeset/isReset``).
    ///
    /// ```swift
    /// let changes = try connection.advanceSnapshot()
    /// if changes.hasChange(inCollection: "products") { reloadProducts() }
    /// ```
    /// - Throws: ``LarderError`` when no read transaction can begin or the log is damaged.
    /// - Precondition: not called inside a read of this connection.
    public func advanceSnapshot() throws -> [Changeset] {
        try database.whileOpen("advanceSnapshot") {
            try core.pin(database.environment, hub: database.shared.changeHub, returningSkipped: true)
        }
    }

    /// Lets this connection's reads see the newest commit again.
    /// - Precondition: not called inside a read of this connection.
    public func unpinSnapshot() {
        core.unpin(database.environment)
    }

    /// The commit of the pinned snapshot, `nil` when none is pinned.
    public var pinnedCommit: UInt64? { core.pinnedCommit }
}
