import Synchronization

/// What a list (a view or a filtered view) keeps while a write attempt runs: the items it saw
/// change, to report at the commit, and the changes of its tree and group counts that wait to be
/// applied together (see ``ListRuntime/settle(in:)``).
final class ListWriteState: ExtensionWriteState {
    /// The items the list saw change, with their item keys before the transaction and now;
    /// `nil` once they passed ``ListRuntime/itemizedChangeLimit`` (a bulk change, which the list
    /// reports as a reset: itemizing it would cost more than the report is worth).
    private(set) var touched: [YapDB.Index: TouchedItem]? = [:]
    /// The changes of the tree and the group counts not yet applied.
    var pending: PendingTreeChanges?

    /// Beyond this many bytes of changes waiting for one tree, they are applied at once, so that
    /// a bulk write does not hold them all in memory. Tests lower it.
    static let pendingByteLimit = Atomic<Int>(4 << 20)

    init() {}

    private init(copying other: ListWriteState) {
        touched = other.touched
        pending = other.pending
    }

    func fork() -> any ExtensionWriteState {
        ListWriteState(copying: self)
    }

    /// Notes that the list moved `index` from item key `old` to `new` (`nil`: out of the list);
    /// the first change of an index keeps its `old` as the key before the transaction. Past
    /// `limit` indexes the list's are forgotten and ``touched`` is `nil`.
    func noteTouched(_ index: YapDB.Index, from old: ItemKeys, to new: ItemKeys, limit: Int) {
        guard touched != nil else { return }
        // In place: no copy of the dictionary is held meanwhile.
        if touched![index] != nil {
            touched![index]!.now = new
        } else {
            touched![index] = TouchedItem(before: old, now: new)
            if touched!.count > limit { touched = nil }
        }
    }

    /// Notes that the list changed too much in this transaction to itemize (a reset).
    func noteReset() {
        touched = nil
    }

    /// Notes that `key` must end up in the tree (`present`) or out of it; returns whether the
    /// waiting changes passed ``pendingByteLimit``.
    func deferTreeChange(_ key: [UInt8], present: Bool) -> Bool {
        if pending == nil { pending = PendingTreeChanges() }
        return pending!.add(key, present: present) > Self.pendingByteLimit.load(ordering: .relaxed)
    }

    /// Notes that the count of the group whose item keys start with `groupPrefix` changes by
    /// `change`.
    func deferCountChange(ofGroupPrefix groupPrefix: ArraySlice<UInt8>, by change: Int) {
        if pending == nil { pending = PendingTreeChanges() }
        pending!.changeCount(ofGroupPrefix: groupPrefix, by: change)
    }

    /// The waiting changes, which are no longer waiting; `nil` when there are none.
    func takePending() -> PendingTreeChanges? {
        defer { pending = nil }
        return pending
    }
}
