import Synchronization

/// The extensions' part of the write path: hands each change to the extensions that read its
/// collection (dependencies first), keeps what they note during the transaction, and collects
/// their changes for the commit's changeset.
final class ExtensionMaintenance: WriteParticipant {
    /// The extensions this transaction keeps up to date, dependencies first.
    let runtimes: [any ExtensionRuntime]
    private let registry: ExtensionRegistry
    /// The indexes each extension saw change, by extension name (views report them at commit),
    /// up to a limit the extension gives; `nil` for an extension that saw more.
    private var touched: [String: Set<YapDB.Index>?] = [:]
    /// Relationships extensions that asked for a garbage collection before the commit.
    private var collectionRequests: Set<String> = []
    /// Working state an extension keeps while one of its operations runs (the cascade of the
    /// delete rules), by key. Not forked: an operation does not span two callers of a group
    /// commit.
    var scratch: [String: AnyObject] = [:]
    /// The view trees' changes not yet applied, by the tree's database (not the view's name:
    /// `verifyExtensions()` rebuilds a view under its name into other databases).
    private var pendingTrees: [DatabaseHandle: PendingTreeChanges] = [:]

    init(registry: ExtensionRegistry) {
        self.registry = registry
        self.runtimes = registry.all
    }

    private init(copying other: ExtensionMaintenance) {
        registry = other.registry
        runtimes = other.runtimes
        touched = other.touched
        collectionRequests = other.collectionRequests
        pendingTrees = other.pendingTrees
    }

    func fork() -> ExtensionMaintenance {
        ExtensionMaintenance(copying: self)
    }

    // MARK: What extensions note

    /// Notes that extension `name` saw `index` change in this transaction. Past `limit` indexes
    /// the extension's are forgotten and ``touched(by:)`` answers `nil` (a bulk change, which
    /// a view reports as a reset: hashing every index would cost more than the report is worth).
    func noteTouched(_ index: YapDB.Index, by name: String, limit: Int) {
        switch touched[name] {
        case nil:
            touched[name] = .some([index])
        case .some(nil):
            return
        case .some(.some):
            touched[name]!!.insert(index)  // in place: no copy of the set is held meanwhile
            if touched[name]!!.count > limit { touched[name] = .some(nil) }
        }
    }

    /// The indexes extension `name` saw change in this transaction (none: empty), `nil` when
    /// they were more than the limit it gave.
    func touched(by name: String) -> Set<YapDB.Index>? {
        touched[name] ?? []
    }

    /// Beyond this many bytes of changes waiting for one tree, they are applied at once, so that
    /// a bulk write does not hold them all in memory. Tests lower it.
    static let pendingTreeByteLimit = Atomic<Int>(4 << 20)

    /// Notes that `key` must end up in the tree kept in `database` (`present`) or out of it;
    /// returns whether the changes waiting for that tree passed ``pendingTreeByteLimit``.
    func deferTreeChange(_ key: [UInt8], present: Bool, in database: DatabaseHandle) -> Bool {
        pendingTrees[database, default: PendingTreeChanges()].add(key, present: present) > Self.pendingTreeByteLimit.load(ordering: .relaxed)
    }

    /// Notes that the count of the group `groupKey` of the list whose tree is kept in `database`
    /// changes by `change`.
    func deferCountChange(ofGroupKey groupKey: [UInt8], by change: Int, in database: DatabaseHandle) {
        pendingTrees[database, default: PendingTreeChanges()].changeCount(ofGroupKey: groupKey, by: change)
    }

    /// The changes waiting for the list whose tree is kept in `database`, which are no longer
    /// waiting; `nil` when there are none.
    func takePendingTreeChanges(for database: DatabaseHandle) -> PendingTreeChanges? {
        guard !pendingTrees.isEmpty else { return nil }
        return pendingTrees.removeValue(forKey: database)
    }

    /// Forgets the changes waiting for the tree in `database` (it was emptied).
    func discardPendingTreeChanges(for database: DatabaseHandle) {
        pendingTrees[database] = nil
    }

    /// Asks for a garbage collection by the relationships extension `name` before the commit.
    func requestGarbageCollection(by name: String) {
        collectionRequests.insert(name)
    }

    /// Whether extension `name` asked for a garbage collection; forgets the request.
    func takeGarbageCollectionRequest(by name: String) -> Bool {
        collectionRequests.remove(name) != nil
    }

    // MARK: The write path

    var wantsChanges: Bool { !runtimes.isEmpty }

    func didChange(_ change: WriteChange, in txn: ReadWriteTransaction) throws {
        guard !runtimes.isEmpty else { return }
        for runtime in runtimes {
            switch change {
            case .row(let row):
                guard runtime.receives(row.index), row.objectChanged || (row.metadataChanged && runtime.readsMetadata) else { continue }
            case .removed(let index):
                guard runtime.receives(index) else { continue }
            case .cleared(let collection):
                guard runtime.collections?.contains(collection) ?? true else { continue }
            case .removedEverything:
                break
            }
            do {
                try runtime.apply(change, in: txn)
            } catch var error as LarderError {
                if error.extensionName == nil { error.extensionName = runtime.name }
                throw error
            }
        }
    }

    func closureDidReturn(in txn: ReadWriteTransaction) throws {
        for runtime in runtimes { try runtime.willFinish(in: txn) }
    }

    func willCommit(_ changes: inout Changeset, in txn: ReadWriteTransaction) throws {
        for runtime in runtimes {
            if let payload = try runtime.finish(in: txn) { changes.recordExtensionChanges(payload, named: runtime.name) }
        }
        guard !changes.isEmpty else { return }
        try markUnregisteredExtensionsStale(after: changes, in: txn.lmdb)
    }

    /// Marks stale the extensions recorded in the store that this process has not registered
    /// and whose collections `changes` touch: their next registration rebuilds them.
    private func markUnregisteredExtensionsStale(after changes: Changeset, in lmdb: LMDBTransaction) throws {
        for name in try ExtensionRecord.names(in: lmdb) where registry.runtime(named: name) == nil {
            guard var record = try ExtensionRecord.read(name, in: lmdb), !record.stale else { continue }
            let touched = changes.removedEverything
                || record.collections.map { !changes.changedCollections.isDisjoint(with: $0) } ?? !changes.changedCollections.isEmpty
            guard touched else { continue }
            record.stale = true
            try record.write(name, in: lmdb)
        }
    }
}

extension ReadWriteTransaction {
    /// The extensions' part of this transaction's write path.
    var extensionWork: ExtensionMaintenance { participants.extensions }
}

extension ChangedRow {
    /// Whether the object changed (written, touched or put back).
    var objectChanged: Bool { object != nil }
    /// Whether the metadata changed.
    var metadataChanged: Bool { metadata != nil }
    /// The metadata written, when the change wrote it; `.some(nil)` when it removed it.
    var writtenMetadata: CachedValueBox?? {
        switch metadata {
        case .written?: return .some(metadataBox)
        case .removed?: return .some(nil)
        default: return nil
        }
    }
}
