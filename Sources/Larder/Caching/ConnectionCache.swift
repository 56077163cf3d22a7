import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
///
/// With ``keepsIdentityMap``, object reads also go through an ``IdentityMap`` of the class instances
/// handed out, which moves across commits with the object cache: a class instance found in either
/// is the one in the map, so a read returns the same instance whichever of them answers it.
@usableFromInline
final class ConnectionCache: Sendable {
    enum Half {
        case object, metadata

        var bit: UInt8 { self == .object ? 1 : 2 }
    }

    /// An index with its hash computed once: a read that misses looks it up, then stores it.
    struct Key: Hashable {
        let index: YapDB.Index
        let hash: Int

        init(_ index: YapDB.Index) {
            self.index = index
            self.hash = NameHash.hash(index.collection, index.key, seed: 0)
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }

        /// The dictionary's hash of a key whose hash is computed once, when the key is made
        /// (``NameHash``, seeded per process): mixed with the dictionary's seed, not hashed again.
        func _rawHashValue(seed: Int) -> Int { hash ^ seed }
        static func == (a: Key, b: Key) -> Bool { a.hash == b.hash && a.index == b.index }
    }

    /// A decoded value with the archiver that decoded (or wrote) it: it answers only reads with
    /// that archiver, as another one might read the stored bytes differently, or not at all.
    ///
    /// A class, so that moving one in and out of the cache is a reference count, not a copy of
    /// two existentials through their value witnesses (callgrind: ~500 instructions per hit).
    @usableFromInline
    final class Entry {
        @usableFromInline let value: CachedValueBox
        let archiver: ArchiverIdentity

        init(value: CachedValueBox, archiver: ArchiverIdentity) {
            self.value = value
            self.archiver = archiver
        }
    }

    /// Beyond this many commits to catch up on, emptying the cache is cheaper than reading them.
    static let catchUpLimit: UInt64 = 256

    fileprivate struct State: @unchecked Sendable {  // holds decoded values of any type, which the connection's transactions share on any thread (see above)
        var objects: LRUCache<Key, Entry>
        var metadata: LRUCache<Key, Entry>
        var commit: UInt64 = 0
        /// The LMDB id of a snapshot known to be at `commit` (LMDB ids change on every commit), -1
        /// when none is known.
        var snapshotID = -1
        var statistics = CacheStatistics()
        var identityMapOn: Bool
        var identities = IdentityMap()
        /// The ``MigrationRegistry/generation`` the cached values were decoded under.
        var migrationsGeneration = 0
    }

    private let state: Mutex<State>
    /// The thread running an ``IdentityRefreshable/refresh(from:)`` under the lock, 0 when none:
    /// that thread must not take the lock again (it would deadlock).
    private let refreshingThread = Atomic<UInt>(0)
    /// Which halves keep nothing (``Half/bit``), readable without the lock: a read of such a half
    /// skips the cache altogether — no lock, no hashed key, no boxed value. Written under the lock.
    private let keepingNothing = Atomic<UInt8>(0)
    /// Misses of reads that skipped the cache, counted here as they never take the lock.
    private let skippedObjectMisses = Atomic<Int>(0)
    private let skippedMetadataMisses = Atomic<Int>(0)

    init(objectLimit: Int, metadataLimit: Int, keepsIdentityMap: Bool = false) {
        state = Mutex(State(objects: LRUCache(limit: objectLimit), metadata: LRUCache(limit: metadataLimit), identityMapOn: keepsIdentityMap))
        locked { updateKeepingNothing($0) }
    }

    var objectLimit: Int {
        get { locked { $0.objects.limit } }
        set {
            locked { state in
                state.objects.limit = newValue
                updateKeepingNothing(state)
            }
        }
    }

    var metadataLimit: Int {
        get { locked { $0.metadata.limit } }
        set {
            locked { state in
                state.metadata.limit = newValue
                updateKeepingNothing(state)
            }
        }
    }

    /// Whether `half` keeps nothing: its limit is 0 and, for objects, the identity map is off. A
    /// read may then skip the cache (and report its miss with ``countSkippedMiss(_:)``).
    @inline(__always)
    func keepsNothing(_ half: Half) -> Bool {
        keepingNothing.load(ordering: .relaxed) & half.bit != 0
    }

    /// Counts the miss of a read that skipped the cache because ``keepsNothing(_:)``.
    @inline(__always)
    func countSkippedMiss(_ half: Half) {
        if half == .object {
            skippedObjectMisses.wrappingAdd(1, ordering: .relaxed)
        } else {
            skippedMetadataMisses.wrappingAdd(1, ordering: .relaxed)
        }
    }

    /// Sets ``keepingNothing`` from `state`; called under the lock whenever a limit or the
    /// identity map changes, so that it never says "nothing" while the half could hold a value.
    private func updateKeepingNothing(_ state: borrowing State) {
        var bits: UInt8 = 0
        if state.objects.limit == 0, !state.identityMapOn { bits |= Half.object.bit }
        if state.metadata.limit == 0 { bits |= Half.metadata.bit }
        keepingNothing.store(bits, ordering: .relaxed)
    }

    /// Whether object reads go through the identity map; turning it off empties the map.
    var keepsIdentityMap: Bool {
        get { locked { $0.identityMapOn } }
        set {
            locked { state in
                state.identityMapOn = newValue
                if !newValue { state.identities.removeAll() }
                updateKeepingNothing(state)
            }
        }
    }

    var currentStatistics: CacheStatistics {
        var statistics = locked { $0.statistics }
        statistics.objectMisses += skippedObjectMisses.load(ordering: .relaxed)
        statistics.metadataMisses += skippedMetadataMisses.load(ordering: .relaxed)
        return statistics
    }
    var counts: (objects: Int, metadata: Int, identities: Int) { locked { ($0.objects.count, $0.metadata.count, $0.identities.count) } }

    /// Runs `body` holding the lock, after checking that this thread is not refreshing an
    /// instance under it.
    @inline(__always)
    private func locked<R, E: Error>(_ body: (inout sending State) throws(E) -> sending R) throws(E) -> sending R {
        checkNotRefreshing()
        return try state.withLock(body)
    }

    @inline(__always)
    private func checkNotRefreshing() {
        let refreshing = refreshingThread.load(ordering: .relaxed)
        guard refreshing != 0 else { return }
        precondition(refreshing != Self.currentThread(), "Larder misuse: IdentityRefreshable.refresh(from:) used the connection whose load called it. Copy the new state only; use the connection after the load returns.")
    }

    private static func currentThread() -> UInt {
        #if canImport(Darwin) || canImport(Musl)  // pthread_t is a pointer there, an integer in Glibc
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    /// Brings the cache to the snapshot `snapshotID` and returns the snapshot's commit and whether
    /// the transaction may use the cache.
    ///
    /// - Parameters:
    ///   - snapshotID: the LMDB id of the snapshot, `nil` when it is not known for sure (see
    ///     ``LMDBTransaction/snapshotID``): the commit is then read, and no id is kept for it.
    ///   - readCommit: reads the snapshot's commit number (called only when `snapshotID` is new
    ///     or `nil`).
    ///   - changesets: the changesets after the first commit through the second, or `nil` when
    ///     they are not all known.
    ///
    /// Also returns why the cache was emptied on the way, `nil` when it was not (or held nothing).
    func prepare(
        snapshotID: Int?, migrationsGeneration: Int, readCommit: () throws -> UInt64,
        changesets: (_ after: UInt64, _ through: UInt64) throws -> [Changeset]?
    ) throws -> (commit: UInt64, usable: Bool, emptied: Emptying?) {
        try locked { state in
            var emptied: Emptying?
            // Values decoded before a declaration of versions changed may be ones it migrates.
            if state.migrationsGeneration != migrationsGeneration {
                if !state.isEmpty {
                    state.flush()
                    emptied = .flushed(.valueMigrationsRegistered)
                }
                state.migrationsGeneration = migrationsGeneration
            }
            let (commit, usable) = try state.moveForward(snapshotID: snapshotID, readCommit: readCommit, changesets: changesets, emptied: &emptied)
            return (commit, usable, emptied)
        }
    }

    /// Why ``prepare(snapshotID:migrationsGeneration:readCommit:changesets:)`` emptied the cache.
    enum Emptying: Equatable {
        /// The changes since the cache was filled were not known (``Changeset/isReset``).
        case changesUnknown
        /// On purpose (``DatabaseEvent/cachesFlushed(commit:reason:)``).
        case flushed(CacheFlushReason)
    }

    /// Empties the cache and brings it back to `commit`, older than its own: a commit it moved
    /// to was never published (see ``Database/ReadRestart``).
    func rewind(toCommit commit: UInt64) {
        locked { state in
            guard commit < state.commit else { return }
            state.flush()
            state.commit = commit
            state.snapshotID = -1
        }
    }

    /// The cached value at `index`, if the cache is at `commit` and it was decoded (or written)
    /// with `archiver`; counts a hit or a miss.
    ///
    /// With the identity map on, an object is looked up there first, for a transaction at
    /// `identityCommit` (`commit`, or the commit of a snapshot older than the cache's, which may
    /// share the instances no commit since has changed). A class instance from the object cache is
    /// returned only when the map has no live instance at `index` (and then it becomes the map's),
    /// so both paths agree on the instance.
    func value<T>(_ half: Half, at index: Key, commit: UInt64?, identityCommit: UInt64? = nil, archiver: ArchiverIdentity, as type: T.Type) -> T? {
        // Leaves the lock as every cached value does (see `State`).
        nonisolated(unsafe) var found: T?
        locked { state in
            if half == .object, state.identityMapOn, let identityCommit, identityCommit <= state.commit,
               let instance = state.identities.current(at: index, readAt: identityCommit) as? T {
                state.statistics.identityMapHits += 1
                found = instance
            } else if let commit, commit == state.commit {
                if half == .metadata {
                    found = state.metadata.value(for: index).flatMap { $0.archiver == archiver ? $0.value.value(as: T.self) : nil }
                } else if let entry = state.objects.value(for: index), entry.archiver == archiver, let cached = entry.value.value(as: T.self) {
                    found = cached
                    if state.identityMapOn, let instance = IdentityMap.classInstance(cached) {
                        // A live entry that was not current above is stale (due for its refresh) or
                        // of another type: decode, and let `remember` settle which instance to return.
                        if state.identities.live(at: index) != nil {
                            found = nil
                        } else {
                            state.identities.set(instance, at: index, since: commit)
                        }
                    }
                }
            }
            switch (half, found != nil) {
            case (.object, true): state.statistics.objectHits += 1
            case (.object, false): state.statistics.objectMisses += 1
            case (.metadata, true): state.statistics.metadataHits += 1
            case (.metadata, false): state.statistics.metadataMisses += 1
            }
        }
        return found
    }

    /// The cached value at `index` for a typed read through the shells of ``ReadTransaction``:
    /// like ``value(_:at:commit:identityCommit:archiver:as:)`` without the identity map, and not
    /// generic, so that a read that hits looks up no generic metadata. Returns `nil` without
    /// counting anything when the identity map is on (the caller then takes the general path),
    /// else the value (still to be cast by the caller) or a counted miss.
    func typedLookup(_ half: Half, at index: Key, commit: UInt64, archiver: ArchiverIdentity) -> TypedLookup? {
        // Leaves the lock as every cached value does (see `State`).
        nonisolated(unsafe) var found: Entry?
        let general = locked { state -> Bool in
            if half == .object, state.identityMapOn { return true }
            if commit == state.commit {
                let entry = half == .object ? state.objects.value(for: index) : state.metadata.value(for: index)
                if let entry, entry.archiver == archiver { found = entry }
            }
            switch (half, found != nil) {
            case (.object, true): state.statistics.objectHits += 1
            case (.object, false): state.statistics.objectMisses += 1
            case (.metadata, true): state.statistics.metadataHits += 1
            case (.metadata, false): state.statistics.metadataMisses += 1
            }
            return false
        }
        if general { return nil }
        return found.map { .hit($0) } ?? .miss
    }

    /// What ``typedLookup(_:at:commit:archiver:)`` found.
    enum TypedLookup {
        case hit(Entry)
        case miss
    }

    /// Keeps `value`, decoded at `commit`, unless the cache has moved to another commit meanwhile,
    /// and returns what the read returns: `value`, or with the identity map on and `value` a
    /// class instance, the instance the map has for `index` (refreshed from `value` if stale).
    func remember<T>(_ value: T, _ half: Half, at index: Key, commit: UInt64, archiver: ArchiverIdentity) -> T {
        // Enters and leaves the lock as every cached value does (see `State`).
        nonisolated(unsafe) var result = value
        locked { state in
            guard commit == state.commit else { return }
            guard half == .object else {
                state.metadata.set(Entry(value: CachedValue(value), archiver: archiver), for: index)
                return
            }
            guard state.identityMapOn, let decoded = IdentityMap.classInstance(value) else {
                state.objects.set(Entry(value: CachedValue(value), archiver: archiver), for: index)
                return
            }
            switch state.identities.adopt(decoded, at: index, commit: commit, as: T.self) {
            case .existing(let instance):
                result = instance as! T  // `adopt` checked the type
            case .refresh(let instance):
                refreshingThread.store(Self.currentThread(), ordering: .relaxed)
                IdentityMap.refresh(instance, from: decoded)
                refreshingThread.store(0, ordering: .relaxed)
                state.statistics.identityMapRefreshes += 1
                result = instance as! T  // of the decoded type, so `T`
            case .fresh:
                break
            }
            state.objects.set(Entry(value: CachedValue(result), archiver: archiver), for: index)
        }
        return result
    }

    /// Moves the cache across a commit this connection made: removes what `changeset` changed,
    /// keeps the values written (so a read after a write is a hit), and moves to the new commit.
    /// Does nothing if the cache was not at the commit the write started from.
    /// With the identity map on, a class instance written becomes the map's entry for its index.
    func commitWrites(
        _ changeset: Changeset, from previous: UInt64, snapshotID: Int,
        objects written: [YapDB.Index: WrittenValue], metadata writtenMetadata: [YapDB.Index: WrittenValue]
    ) {
        locked { state in
            guard state.commit == previous else { return }
            state.apply(changeset)
            // The changeset removed every written key above; of more values than the cache keeps,
            // any `limit` of them are as good as the last `limit` (and cost no entry each).
            let keeping = state.identityMapOn ? written.count : min(written.count, state.objects.limit)
            for (index, value) in written.prefix(keeping) {
                let key = Key(index)
                state.objects.set(Entry(value: value.value, archiver: value.writer), for: key)
                if state.identityMapOn, let instance = IdentityMap.classInstance(value.value.anyValue) { state.identities.set(instance, at: key, since: changeset.commit) }
            }
            for (index, value) in writtenMetadata.prefix(state.metadata.limit) { state.metadata.set(Entry(value: value.value, archiver: value.writer), for: Key(index)) }
            state.commit = changeset.commit
            state.snapshotID = snapshotID
        }
    }
}

extension ConnectionCache.State {
    /// ``ConnectionCache/prepare(snapshotID:migrationsGeneration:readCommit:changesets:)``, under the lock.
    /// Sets `emptied` when it empties the cache (an unknown change outweighs the other reasons).
    mutating func moveForward(
        snapshotID: Int?, readCommit: () throws -> UInt64,
        changesets: (_ after: UInt64, _ through: UInt64) throws -> [Changeset]?, emptied: inout ConnectionCache.Emptying?
    ) throws -> (commit: UInt64, usable: Bool) {
        if let snapshotID, snapshotID == self.snapshotID { return (commit, true) }
        let snapshotCommit = try readCommit()
        if snapshotCommit < commit { return (snapshotCommit, false) }
        if snapshotCommit == commit {
            // The same commit through another snapshot (a commit of no object, or an id not
            // known): the entries hold; an id known for sure may stand for it from now on.
            if let snapshotID { self.snapshotID = snapshotID }
            return (commit, true)
        }
        if !isEmpty {
            if snapshotCommit - commit > ConnectionCache.catchUpLimit {
                flush()
                emptied = .flushed(.manyCommitsBehind)
            } else if let missed = try changesets(commit, snapshotCommit) {
                for changeset in missed where !isEmpty {
                    apply(changeset)
                    if isEmpty, emptied != .changesUnknown, changeset.isReset || changeset.removedEverything {
                        emptied = changeset.isReset ? .changesUnknown : .flushed(.everythingRemoved)
                    }
                }
            } else {
                flush()
                emptied = .changesUnknown
            }
        }
        commit = snapshotCommit
        self.snapshotID = snapshotID ?? -1
        return (snapshotCommit, true)
    }

    mutating func apply(_ changeset: Changeset) {
        if changeset.isReset || changeset.removedEverything {
            flush()
            return
        }
        let held = objects.count + metadata.count + identities.count
        // An empty cache has nothing to invalidate: a bulk write into one costs no lookup per key.
        guard held > 0 else { return }
        if !changeset.cleared.isEmpty {
            // By the collections' bytes: the twin of a cleared collection keeps its values.
            objects.removeAll { changeset.isCleared(ExactString($0.index.collection)) }
            metadata.removeAll { changeset.isCleared(ExactString($0.index.collection)) }
            identities.removeAll { changeset.isCleared(ExactString($0.index.collection)) }
        }
        let tracksIdentities = !identities.isEmpty
        if !tracksIdentities, changeset.entryCount > held {
            // More changes than values held: one pass over the cache asks the changeset instead
            // of one removal per changed key.
            objects.removeAll { changeset.hasObjectChange(for: $0.index) }
            metadata.removeAll { changeset.hasMetadataChange(for: $0.index) }
            return
        }
        changeset.forEachChange { index, change in
            let key = ConnectionCache.Key(index)
            if let objectChange = change.object {
                objects.removeValue(for: key)
                if tracksIdentities { identities.objectChanged(at: key, removed: objectChange == .removed) }
            }
            if change.metadata != nil { metadata.removeValue(for: key) }
        }
    }

    /// Whether the cache holds nothing to empty.
    var isEmpty: Bool {
        objects.count + metadata.count + identities.count == 0
    }

    mutating func flush() {
        objects.removeAll()
        metadata.removeAll()
        identities.removeAll()
        statistics.flushes += 1
    }
}
