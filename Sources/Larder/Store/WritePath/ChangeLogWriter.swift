/// The change log's part of the write path: gives a commit that changed something its number,
/// appends its changeset to the change log (where other processes and history find it), and
/// publishes it to this process's observers once LMDB has committed.
final class ChangeLogWriter: WriteParticipant {
    private let hub: ChangeHub
    private let limit: Int
    private let byteLimit: Int?
    private let keepsValueHistory: Bool

    init(hub: ChangeHub, limit: Int, byteLimit: Int?, keepsValueHistory: Bool) {
        self.hub = hub
        self.limit = limit
        self.byteLimit = byteLimit
        self.keepsValueHistory = keepsValueHistory
    }

    /// It keeps nothing per transaction: a nested transaction shares it.
    func fork() -> ChangeLogWriter { self }

    /// It writes the changeset, which the transaction keeps: the changes one by one are not needed.
    var wantsChanges: Bool { false }

    func willCommit(_ changes: inout Changeset, in txn: ReadWriteTransaction) throws {
        guard !changes.isEmpty else { return }
        let number = txn.snapshot.commit + 1
        changes.commits = number...number
        try ChangeLog.append(&changes, in: txn.lmdb, limit: limit, byteLimit: byteLimit, keepsValueHistory: keepsValueHistory)
    }

    func didCommit(_ commit: CommitReceipt) {
        hub.publish(commit.changeset)
    }
}
