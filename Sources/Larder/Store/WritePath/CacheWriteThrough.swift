/// The cache's part of the write path: keeps the values a transaction writes, so that the
/// connection that wrote them finds them in its cache after the commit without decoding.
///
/// A transaction that writes more values than the cache holds is a bulk write: it stops keeping
/// them, and the commit only invalidates.
final class CacheWriteThrough: WriteParticipant {
    typealias Written = WrittenValue

    /// Written values beyond this many are not kept.
    private let limit: Int
    private var objects: [YapDB.Index: Written] = [:]
    private var metadata: [YapDB.Index: Written] = [:]
    /// Set once the transaction has written more values than the cache keeps.
    private var isOff = false

    init(limit: Int) {
        self.limit = limit
    }

    func fork() -> CacheWriteThrough {
        let copy = CacheWriteThrough(limit: limit)
        copy.objects = objects
        copy.metadata = metadata
        copy.isOff = isOff
        return copy
    }

    var wantsChanges: Bool { !isOff }

    func didChange(_ change: WriteChange, in txn: ReadWriteTransaction) throws {
        guard !isOff else { return }
        switch change {
        case .row(let row):
            let owner = ObjectIdentifier(txn.core)
            if let change = row.object, !keep(change, row.writtenObjectBox, by: row.objectArchiver, at: row.index, owner: owner, in: &objects) { return stop() }
            if let change = row.metadata, !keep(change, row.metadataBox, by: row.metadataArchiver, at: row.index, owner: owner, in: &metadata) { return stop() }
        case .removed(let index):
            objects[index] = nil
            metadata[index] = nil
        case .cleared(let collection):
            objects = objects.filter { !ExactString.bytesEqual($0.key.collection, collection) }
            metadata = metadata.filter { !ExactString.bytesEqual($0.key.collection, collection) }
        case .removedEverything:
            objects.removeAll()
            metadata.removeAll()
        }
    }

    /// Keeps what `change` wrote at `index` in `table` (or forgets the index when its bytes
    /// changed without a value at hand). Returns `false`, keeping nothing, when the table is full.
    private func keep(_ change: ValueChange, _ value: CachedValueBox?, by archiver: (any Archiver)?, at index: YapDB.Index, owner: ObjectIdentifier, in table: inout [YapDB.Index: Written]) -> Bool {
        switch change {
        case .written:
            guard let value, let archiver else { return true }
            if table.count >= limit && table[index] == nil { return false }
            table[index] = Written(owner: owner, value: value, writer: ArchiverIdentity(archiver))
        case .removed, .restored:
            // Most writes remove metadata that nobody wrote in the transaction: skip the lookup.
            if !table.isEmpty { table[index] = nil }
        case .touched:
            break
        }
        return true
    }

    /// Forgets the written values: the transaction writes more than the cache keeps.
    private func stop() {
        objects.removeAll()
        metadata.removeAll()
        isOff = true
    }

    func didCommit(_ commit: CommitReceipt) {
        var seen = Set<ObjectIdentifier>()
        let cores = commit.cores.filter { seen.insert(ObjectIdentifier($0)).inserted }
        for core in cores {
            let owner = ObjectIdentifier(core)
            // With one writer (every write but a group commit of several connections), every
            // value kept is its own.
            let mine = cores.count == 1 ? (objects, metadata)
                : (objects.filter { $0.value.owner == owner }, metadata.filter { $0.value.owner == owner })
            core.cache.commitWrites(commit.changeset, from: commit.previous, snapshotID: commit.snapshotID,
                                    objects: mine.0, metadata: mine.1)
        }
    }
}
