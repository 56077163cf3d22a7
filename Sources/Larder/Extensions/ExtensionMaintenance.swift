import Synchronization

/// The extensions' part of the write path: hands each change to the extensions that read its
/// collection (dependencies first), keeps what they note during the transaction, and collects
/// their changes for the commit's changeset.
final class ExtensionMaintenance: WriteParticipant {
    /// The extensions this transaction keeps up to date, dependencies first.
    let runtimes: [any ExtensionRuntime]
    private let registry: ExtensionRegistry
    /// The items each list (view or filtered view) saw change, with their item keys before the
    /// transaction and now, by extension name (lists report them at commit), up to a limit the
    /// list gives; `nil` for a list that saw more. Extension names are told apart by their bytes,
    /// as everywhere.
    private var touched: [ExactString: [YapDB.Index: TouchedItem]?] = [:]
    /// The bytes at an index just before the transaction changed them (see ``willChange(_:at:in:)``),
    /// until the change is handed to the extensions.
    private var previous: (index: YapDB.Index, image: StoredImage)?
    /// The previous object and metadata of the change being handed out, decoded, by the type
    /// decoded and the half (`nil`: none, or not of that type): several extensions of one type
    /// decode them once. Rarely more than two, so a list.
    private var previousValues: [(type: ObjectIdentifier, metadata: Bool, value: Any?)] = []
    /// Whether some extension derives its entries again from previous values.
    private let keepsPreviousImages: Bool
    /// Whether some extension that keeps previous images reads metadata.
    private let keepsPreviousMetadata: Bool
    /// Relationships extensions that asked for a garbage collection before the commit.
    private var collectionRequests: Set<ExactString> = []
    /// Working state an extension keeps while one of its operations runs (the cascade of the
    /// delete rules), by key. Not forked: an operation does not span two callers of a group
    /// commit.
    var scratch: [ExactString: AnyObject] = [:]
    /// The view trees' changes not yet applied, by the tree's database (not the view's name:
    /// `verifyExtensions()` rebuilds a view under its name into other databases).
    private var pendingTrees: [DatabaseHandle: PendingTreeChanges] = [:]
    /// The full-text searches' postings not yet written, by the search's `postings` database
    /// (like ``pendingTrees``, not by name).
    private var pendingPostings: [DatabaseHandle: FullTextPendingPostings] = [:]

    init(registry: ExtensionRegistry) {
        self.registry = registry
        self.runtimes = registry.all
        keepsPreviousImages = runtimes.contains { $0.derivesFromPreviousValues }
        keepsPreviousMetadata = runtimes.contains { $0.derivesFromPreviousValues && $0.readsMetadata }
    }

    private init(copying other: ExtensionMaintenance) {
        registry = other.registry
        runtimes = other.runtimes
        keepsPreviousImages = other.keepsPreviousImages
        keepsPreviousMetadata = other.keepsPreviousMetadata
        touched = other.touched
        collectionRequests = other.collectionRequests
        pendingTrees = other.pendingTrees
        pendingPostings = other.pendingPostings
    }

    func fork() -> ExtensionMaintenance {
        ExtensionMaintenance(copying: self)
    }

    // MARK: What extensions note

    /// Notes that list `name` moved `index` from item key `old` to `new` (`nil`: out of the
    /// list) in this transaction; the first change of an index keeps its `old` as the key before
    /// the transaction. Past `limit` indexes the list's are forgotten and ``touched(by:)`` answers
    /// `nil` (a bulk change, which a view reports as a reset: itemizing it would cost more than
    /// the report is worth).
    func noteTouched(_ index: YapDB.Index, by name: String, from old: [UInt8]?, to new: [UInt8]?, limit: Int) {
        let name = ExactString(name)
        switch touched[name] {
        case nil:
            touched[name] = .some([index: TouchedItem(before: old, now: new)])
        case .some(nil):
            return
        case .some(.some):
            // In place: no copy of the dictionary is held meanwhile.
            if touched[name]!![index] != nil {
                touched[name]!![index]!.now = new
            } else {
                touched[name]!![index] = TouchedItem(before: old, now: new)
                if touched[name]!!.count > limit { touched[name] = .some(nil) }
            }
        }
    }

    /// Notes that list `name` changed too much in this transaction to itemize (a reset).
    func noteReset(by name: String) {
        touched[ExactString(name)] = .some(nil)
    }

    /// The items list `name` saw change in this transaction (none: empty), `nil` when they were
    /// more than the limit it gave.
    func touched(by name: String) -> [YapDB.Index: TouchedItem]? {
        touched[ExactString(name)] ?? [:]
    }

    // MARK: Previous values

    /// The bytes at `index` as they were before the change being handed to the extensions: those
    /// the write path showed ``willChange(_:at:in:)`` before changing them, or, for a change that
    /// did not change the bytes (a touch), the bytes stored now.
    /// - Throws: LMDB failures.
    func previousImage(of index: YapDB.Index, in txn: ReadWriteTransaction) throws -> StoredImage {
        if let previous, previous.index == index { return previous.image }
        return try StorageKey.with(collection: index.collection, key: index.key, maxKeySize: txn.maxKeySize, operation: "extension") {
            try txn.storedImage(at: $0, metadata: keepsPreviousMetadata)
        }
    }

    /// The previous object (or metadata, `metadata`) at `index` as a `T`, decoded once per change
    /// and type; `nil` when there was none or it is not a `T`.
    /// - Throws: a damaged stored value (``LarderError/Code/corruptValue``), LMDB failures.
    func previousValue<T: Codable>(_ type: T.Type, metadata: Bool, at index: YapDB.Index, in txn: ReadWriteTransaction) throws -> T? {
        let type = ObjectIdentifier(T.self)
        for known in previousValues where known.type == type && known.metadata == metadata {
            return known.value.flatMap { $0 as? T }  // stored as a T under T's identifier
        }
        let image = try previousImage(of: index, in: txn)
        let decoded: T?
        do {
            decoded = try (metadata ? image.metadata : image.object).flatMap { try txn.extensionValue(T.self, stored: $0, metadata: metadata, at: index) }
        } catch var error as LarderError where error.recoverySuggestion == LarderError.Advice.damaged {
            // The extensions find what they derived from the value by deriving it again from
            // the old bytes, so a damaged value cannot be replaced under them.
            error.recoverySuggestion = LarderError.Advice.damagedUnderExtensions
            throw error
        }
        previousValues.append((type, metadata, decoded.map { $0 as Any }))
        return decoded
    }

    /// The object (or metadata, `metadata`) at `row`'s index as the change left it, as a `T`: the
    /// value it wrote, the stored one when it restored it, the previous one when it left it as it
    /// was (a touch, or the other half changed); `nil` when there is none or it is not a `T`.
    /// - Throws: as ``previousValue(_:metadata:at:in:)``.
    func value<T: Codable>(_ type: T.Type, metadata: Bool, after row: ChangedRow, in txn: ReadWriteTransaction) throws -> T? {
        switch metadata ? row.metadata : row.object {
        case nil, .touched?:
            return try previousValue(T.self, metadata: metadata, at: row.index, in: txn)
        default:
            return metadata ? try txn.extensionMetadata(T.self, at: row.index, written: row.writtenMetadata)
                : try txn.extensionObject(T.self, at: row.index, written: row.writtenObjectBox)
        }
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

    /// Takes out the waiting postings of the full-text search whose postings are kept in
    /// `database` (empty when there are none); give them back with ``storePendingPostings(_:for:)``.
    func takePendingPostings(for database: DatabaseHandle) -> FullTextPendingPostings {
        guard !pendingPostings.isEmpty else { return FullTextPendingPostings() }
        return pendingPostings.removeValue(forKey: database) ?? FullTextPendingPostings()
    }

    /// Keeps `pending` as the waiting postings of the search whose postings are kept in
    /// `database` (nothing when it holds nothing).
    func storePendingPostings(_ pending: FullTextPendingPostings, for database: DatabaseHandle) {
        if pending.hasPostings || pending.statistics != nil { pendingPostings[database] = pending }
    }

    /// Asks for a garbage collection by the relationships extension `name` before the commit.
    func requestGarbageCollection(by name: String) {
        collectionRequests.insert(ExactString(name))
    }

    /// Whether extension `name` asked for a garbage collection; forgets the request.
    func takeGarbageCollectionRequest(by name: String) -> Bool {
        collectionRequests.remove(ExactString(name)) != nil
    }

    // MARK: The write path

    var wantsChanges: Bool { !runtimes.isEmpty }

    var wantsBeforeImages: Bool { keepsPreviousImages }

    /// A bulk removal (a collection cleared, everything removed) needs no images: the extensions
    /// find their entries of the removed objects themselves.
    var wantsBeforeImagesOfBulkRemovals: Bool { false }

    func willChange(_ index: YapDB.Index, at storageKey: UnsafeRawBufferPointer, in txn: ReadWriteTransaction) throws {
        previous = (index, try txn.storedImage(at: storageKey, metadata: keepsPreviousMetadata))
    }

    func didChange(_ change: WriteChange, in txn: ReadWriteTransaction) throws {
        guard !runtimes.isEmpty else { return }
        defer {
            previous = nil
            if !previousValues.isEmpty { previousValues.removeAll(keepingCapacity: true) }
        }
        for runtime in runtimes {
            switch change {
            case .row(let row):
                guard runtime.receives(row.index), row.objectChanged || (row.metadataChanged && runtime.readsMetadata) else { continue }
            case .removed(let index):
                guard runtime.receives(index) else { continue }
            case .cleared(let collection):
                guard runtime.collections?.contains(ExactString(collection)) ?? true else { continue }
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
            let changed = changes.changedCollectionNames
            let touched = changes.removedEverything
                || record.collections.map { !changed.isDisjoint(with: $0.lazy.map { ExactString($0) }) } ?? !changed.isEmpty
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
