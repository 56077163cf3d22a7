/// What one run of a followed view reads (``ViewObservation``): the sections its range shows
/// as of one commit, and what changed since the commit of the element before.
struct ViewSnapshot<Object: Codable & Sendable>: Sendable {
    var sections: [ViewPage<Object>.Section]
    /// The indexes whose object or metadata changed since the element before.
    var changed: Set<YapDB.Index> = []
    /// Collections cleared since the element before: every item of theirs may have changed.
    var cleared: Set<ExactString> = []
    /// Whether the changes since the element before are unknown, or the view was rebuilt.
    var isReset = false

    /// Reads `handle`'s `groups` (every group when `nil`) as far as `range` shows them, and what
    /// changed after commit `since` (nothing to compare with when `nil`).
    static func read<Metadata>(
        _ handle: ViewHandle<Object, Metadata>, groups: [String]?, range: ViewRange, since: UInt64?, in txn: ReadTransaction
    ) throws -> ViewSnapshot {
        let reader = try txn[handle]
        var sections: [ViewPage<Object>.Section] = []
        for group in try groups ?? reader.groups() {
            let count = try reader.numberOfItems(inGroup: group)
            let positions = range.positions(inGroupOf: count)
            let items = positions.isEmpty ? [] : try reader.objects(inGroup: group, positions: positions).map { ViewPage<Object>.Item(index: $0.index, object: $0.object) }
            sections.append(ViewPage<Object>.Section(group: group, numberOfItems: count, positions: positions, items: items))
        }
        var snapshot = ViewSnapshot(sections: sections)
        guard let since else {
            snapshot.isReset = true
            return snapshot
        }
        let commit = txn.lastCommit
        guard since < commit else {
            snapshot.isReset = since > commit
            return snapshot
        }
        guard let changesets = try txn.database.shared.changeHub.changesets(after: since, through: commit, in: txn.lmdb) else {
            snapshot.isReset = true  // the log no longer has them
            return snapshot
        }
        let resets = [ExtensionPayload.rebuilt, ExtensionPayload.removed, ExtensionPayload.dropped]
        for changeset in changesets {
            if changeset.isReset || changeset.extensionChanges(named: handle.name).contains(where: resets.contains) {
                snapshot.isReset = true
                return snapshot
            }
            changeset.forEachChange { index, _ in snapshot.changed.insert(index) }
            snapshot.cleared.formUnion(changeset.cleared)
            if changeset.removedEverything { snapshot.isReset = true }
        }
        return snapshot
    }

    /// Whether the object or metadata at `index` may have changed since the element before.
    func mayHaveChanged(_ index: YapDB.Index) -> Bool {
        changed.contains(index) || (!cleared.isEmpty && cleared.contains(ExactString(index.collection)))
    }
}
