/// How often a connection's caches answered a read, and how often they did not (so the value
/// was read from the store and decoded).
public struct CacheStatistics: Sendable, Equatable {
    /// Object reads answered by the object cache.
    public var objectHits = 0
    /// Object reads that decoded the stored bytes.
    public var objectMisses = 0
    /// Metadata reads answered by the metadata cache.
    public var metadataHits = 0
    /// Metadata reads that decoded the stored bytes.
    public var metadataMisses = 0
    /// Times the caches were emptied because the changes since they were filled were not known
    /// (see ``Changeset/isReset``).
    public var flushes = 0

    /// No hits, no misses.
    public init() {}
}

/// The decoded objects and metadata of one connection, valid at one commit.
///
/// Entries belong to the commit ``commit``: a transaction whose snapshot is at that commit may
/// use them; one at a newer commit first brings the cache forward by removing what the commits in
/// between changed (from the process's recent changesets, else the change log); one at an older
/// commit (a pinned snapshot) does not use the cache at all. Every operation checks the commit
/// under the lock, so concurrent transactions of one connection at different snapshots never see
/// each other's values.
///
/// Values are shared between the transactions of the connection as they were decoded (or written):
/// cache value types, or classes that are never mutated.
final class ConnectionCache: @unchecked Sendable {  // state guarded by `lock`
    enum Half { case object, metadata }

    /// An index with its hash computed once: a read that misses looks it up, then stores it.
    struct Key: Hashable {
        let index: YapDB.Index
        let hash: Int

        init(_ index: YapDB.Index) {
            self.index = index
            self.hash = index.hashValue
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        static func == (a: Key, b: Key) -> Bool { a.hash == b.hash && a.index == b.index }
    }

    /// Beyond this many commits to catch up on, emptying the cache is cheaper than reading them.
    static let catchUpLimit: UInt64 = 256

    private let lock = ConditionLock()
    private var objects: LRUCache<Key, Any>
    private var metadata: LRUCache<Key, Any>
    private var commit: UInt64 = 0
    /// The LMDB id of a snapshot known to be at `commit` (LMDB ids change on every commit).
    private var snapshotID = -1
    private var statistics = CacheStatistics()

    init(objectLimit: Int, metadataLimit: Int) {
        objects = LRUCache(limit: objectLimit)
        metadata = LRUCache(limit: metadataLimit)
    }

    var objectLimit: Int {
        get { lock.withLock { objects.limit } }
        set { lock.withLock { objects.limit = newValue } }
    }

    var metadataLimit: Int {
        get { lock.withLock { metadata.limit } }
        set { lock.withLock { metadata.limit = newValue } }
    }

    var currentStatistics: CacheStatistics { lock.withLock { statistics } }
    var counts: (objects: Int, metadata: Int) { lock.withLock { (objects.count, metadata.count) } }

    /// Brings the cache to the snapshot `snapshotID` and returns the snapshot's commit and whether
    /// the transaction may use the cache.
    ///
    /// - Parameters:
    ///   - readCommit: reads the snapshot's commit number (called only when `snapshotID` is new).
    ///   - changesets: the changesets after the first commit through the second, or `nil` when
    ///     they are not all known.
    func prepare(
        snapshotID: Int, readCommit: () throws -> UInt64,
        changesets: (_ after: UInt64, _ through: UInt64) throws -> [Changeset]?
    ) throws -> (commit: UInt64, usable: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if snapshotID == self.snapshotID { return (commit, true) }
        let snapshotCommit = try readCommit()
        if snapshotCommit < commit { return (snapshotCommit, false) }
        if snapshotCommit > commit, objects.count + metadata.count > 0 {
            if snapshotCommit - commit <= Self.catchUpLimit, let missed = try changesets(commit, snapshotCommit) {
                for changeset in missed { apply(changeset) }
            } else {
                flush()
            }
        }
        commit = snapshotCommit
        self.snapshotID = snapshotID
        return (snapshotCommit, true)
    }

    /// The cached value at `index`, if the cache is at `commit`; counts a hit or a miss.
    func value<T>(_ half: Half, at index: Key, commit: UInt64?, as type: T.Type) -> T? {
        lock.lock()
        defer { lock.unlock() }
        var found: T?
        if let commit, commit == self.commit {
            found = (half == .object ? objects.value(for: index) : metadata.value(for: index)) as? T
        }
        switch (half, found != nil) {
        case (.object, true): statistics.objectHits += 1
        case (.object, false): statistics.objectMisses += 1
        case (.metadata, true): statistics.metadataHits += 1
        case (.metadata, false): statistics.metadataMisses += 1
        }
        return found
    }

    /// Keeps `value`, decoded at `commit`, unless the cache has moved to another commit meanwhile.
    func remember(_ value: Any, _ half: Half, at index: Key, commit: UInt64) {
        lock.withLock {
            guard commit == self.commit else { return }
            if half == .object { objects.set(value, for: index) } else { metadata.set(value, for: index) }
        }
    }

    /// Moves the cache across a commit this connection made: removes what `changeset` changed,
    /// keeps the values written (so a read after a write is a hit), and moves to the new commit.
    /// Does nothing if the cache was not at the commit the write started from.
    func commitWrites(_ changeset: Changeset, from previous: UInt64, snapshotID: Int, objects written: [(YapDB.Index, Any)], metadata writtenMetadata: [(YapDB.Index, Any)]) {
        lock.withLock {
            guard commit == previous else { return }
            apply(changeset)
            for (index, value) in written { objects.set(value, for: Key(index)) }
            for (index, value) in writtenMetadata { metadata.set(value, for: Key(index)) }
            commit = changeset.commit
            self.snapshotID = snapshotID
        }
    }

    private func apply(_ changeset: Changeset) {
        if changeset.isReset || changeset.removedEverything {
            flush()
            return
        }
        if !changeset.clearedCollections.isEmpty {
            let cleared = changeset.clearedCollections
            objects.removeAll { cleared.contains($0.index.collection) }
            metadata.removeAll { cleared.contains($0.index.collection) }
        }
        changeset.forEachChange { index, change in
            let key = Key(index)
            if change.object != nil { objects.removeValue(for: key) }
            if change.metadata != nil { metadata.removeValue(for: key) }
        }
    }

    private func flush() {
        objects.removeAll()
        metadata.removeAll()
        statistics.flushes += 1
    }
}
