/// What a relationships extension keeps while a write attempt runs: whether it owes a garbage
/// collection before the commit, and the queue of the deletion cascade it is carrying out.
final class RelationshipsWriteState: ExtensionWriteState {
    /// Set when a reference to a garbage-collected collection went away.
    var collectionRequested = false
    /// The cascade of the delete rules while one runs (``RelationshipsRuntime``). Not forked: a
    /// cascade runs inside one caller of a group commit.
    var cascade: RelationshipsRuntime.CascadeQueue?

    init() {}

    func fork() -> any ExtensionWriteState {
        let copy = RelationshipsWriteState()
        copy.collectionRequested = collectionRequested
        return copy
    }
}
