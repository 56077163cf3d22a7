/// A part of the write path: something every write transaction keeps informed of what it does.
///
/// A ``ReadWriteTransaction`` stores values and keeps the collection counts and the changeset;
/// everything else that a write sets off is a participant: the extensions, undo capture, the
/// cache's write-through and the change log. The transaction names none of them. It tells them,
/// in order:
///
/// 1. before it first changes the bytes at an index, if they ask for it
///    (``wantsBeforeImages``, ``willChange(_:at:in:)``): the bytes are still the old ones;
/// 2. each change as it makes it (``didChange(_:in:)``), in the order it makes them, so that a
///    participant that defers its work to the commit can keep the full list;
/// 3. that the caller's closure has returned (``closureDidReturn(in:)``): the last moment at which a
///    participant may still change objects (garbage collection does), and when an undo step is
///    recorded;
/// 4. that the commit is about to happen (``willCommit(_:in:)``), after the counts are written:
///    participants write their own state and add to the changeset, in order;
/// 5. that LMDB has committed (``didCommit(_:)``), outside the write transaction.
///
/// A participant lives for one LMDB write transaction. A group commit runs each caller in a
/// nested transaction on a ``fork()`` of the participants and keeps the fork only when the caller
/// succeeds, so a failed caller leaves no trace in any participant's state.
protocol WriteParticipant: AnyObject {
    /// A copy with the same state, for a nested transaction that may fail. A participant that
    /// keeps nothing per transaction may return itself.
    func fork() -> Self
    /// Whether it wants ``willChange(_:at:in:)`` now.
    var wantsBeforeImages: Bool { get }
    /// Whether it wants ``willChange(_:at:in:)`` for each object of a bulk removal (a collection
    /// cleared, everything removed) too, which then costs a read per object.
    var wantsBeforeImagesOfBulkRemovals: Bool { get }
    /// The transaction is about to change the stored bytes at `index` (`storageKey` is the
    /// index's key in the objects and metadata databases); ``ReadWriteTransaction/storedImage(at:)``
    /// reads them as they are.
    func willChange(_ index: YapDB.Index, at storageKey: UnsafeRawBufferPointer, in txn: ReadWriteTransaction) throws
    /// Whether it wants ``didChange(_:in:)`` now. When no participant does, the transaction does
    /// not even describe its changes (a bulk write that outgrew the cache, with no extension and
    /// no undo, builds no ``ChangedRow``). Once `false` in a transaction, it stays `false` until
    /// the participant's own state changes (an undoable write begins).
    var wantsChanges: Bool { get }
    /// The transaction made `change`.
    func didChange(_ change: WriteChange, in txn: ReadWriteTransaction) throws
    /// The caller's closure has returned (in a group commit, each caller's).
    func closureDidReturn(in txn: ReadWriteTransaction) throws
    /// The transaction is about to commit `changes` (its commit number is not set yet).
    func willCommit(_ changes: inout Changeset, in txn: ReadWriteTransaction) throws
    /// LMDB has committed.
    func didCommit(_ commit: CommitReceipt)
}

extension WriteParticipant {
    var wantsBeforeImages: Bool { false }
    var wantsBeforeImagesOfBulkRemovals: Bool { wantsBeforeImages }
    var wantsChanges: Bool { true }
    func willChange(_ index: YapDB.Index, at storageKey: UnsafeRawBufferPointer, in txn: ReadWriteTransaction) throws {}
    func didChange(_ change: WriteChange, in txn: ReadWriteTransaction) throws {}
    func closureDidReturn(in txn: ReadWriteTransaction) throws {}
    func willCommit(_ changes: inout Changeset, in txn: ReadWriteTransaction) throws {}
    func didCommit(_ commit: CommitReceipt) {}
}
