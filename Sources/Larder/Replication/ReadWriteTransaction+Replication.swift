// A replica's two uses of a write transaction: applying a commit of its primary, and capturing
// what a rehearsed write changed, to ship it. Both are built on the store's restore primitives
// (``ReadWriteTransaction/restoring(_:)``), not inside the transaction class.

extension ReadWriteTransaction {
    /// Applies `commit`, made on the primary, as a replica does: every collection or the
    /// collections it empties, then each row's bytes. Goes through the counts, the changeset,
    /// the cache and the extensions like any write; as with an undo, nothing derives further
    /// writes (delete rules, garbage collection), since what they did on the replica that made
    /// the commit is among its rows. A row whose bytes are already there is a touch.
    /// - Throws: ``LarderError`` for a row whose collection or key is not valid, or from LMDB.
    package func apply(_ commit: ReplicatedCommit) throws {
        participants.first(ReplicaGuard.self)?.allowApplication()
        try restoring {
            if commit.removedEverything { try removeAllObjectsInAllCollections() }
            for collection in commit.cleared { try removeAllObjects(inCollection: collection) }
            for row in commit.rows {
                try restoreRow(YapDB.Index(collection: row.collection, key: row.key), object: row.object, metadata: row.metadata,
                               touchingObject: row.objectChanged, touchingMetadata: row.metadataChanged)
            }
        }
        for info in commit.info { recordCommitInfo(info) }
    }

    /// What this transaction changed, as a replica ships it to its primary: the bytes each
    /// changed index holds now, and what it emptied. Completes the closure first (garbage
    /// collection, the commit information), as a commit would.
    package func replicatedCommit() throws -> ReplicatedCommit {
        try completeClosure()
        let changes = recordedChangeset()
        var commit = ReplicatedCommit()
        commit.removedEverything = changes.removedEverything
        commit.cleared = changes.clearedCollectionsInByteOrder
        var rows: [ReplicatedCommit.Row] = []
        rows.reserveCapacity(changes.entryCount)
        var failure: (any Error)?
        changes.forEachChange { index, change in
            guard failure == nil else { return }
            do {
                let image = try StorageKey.with(collection: index.collection, key: index.key, maxKeySize: maxKeySize, operation: "replicate") {
                    try storedImage(at: $0)
                }
                rows.append(ReplicatedCommit.Row(
                    collection: index.collection, key: index.key, object: image.object, metadata: image.metadata,
                    objectChanged: change.object != nil, metadataChanged: change.metadata != nil))
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        commit.rows = rows.sorted { YapDB.Index(collection: $0.collection, key: $0.key) < YapDB.Index(collection: $1.collection, key: $1.key) }
        commit.info = changes.commitInfos
        return commit
    }
}
