/// Refuses every commit that changes the data of a replica's store other than the replica's own
/// application of the primary's commits: a write made straight to the store would exist on this
/// machine only, and the next commit from the primary could not be applied on top of it.
/// Registering extensions, which changes no data, stays allowed.
final class ReplicaGuard: WriteParticipant {
    /// Whether this transaction (in a group commit, this caller's) has applied a commit of the
    /// primary (``ReadWriteTransaction/apply(_:)``): the only kind of write that may change the
    /// data of a replica.
    private var hasAppliedReplicatedCommit = false

    /// A fresh guard: each caller of a group commit (each runs on a fork) is judged by what it
    /// did itself, so a caller that applied a commit of the primary lets no later caller's own
    /// writes through.
    func fork() -> ReplicaGuard {
        ReplicaGuard()
    }

    /// Lets this transaction's writes through: it applies a commit of the primary.
    func allowApplication() {
        hasAppliedReplicatedCommit = true
    }

    var wantsChanges: Bool { false }

    /// Checked for each caller of a group commit on its own: a caller that wrote is refused
    /// unless it applied a commit of the primary, or it is a replica's rehearsal of a write (it
    /// records its reads, and is rolled back once its changes are captured).
    func closureDidReturn(in txn: ReadWriteTransaction) throws {
        guard txn.hasWritten, !hasAppliedReplicatedCommit, txn.readRecorder == nil else { return }
        throw LarderError(
            .readOnly,
            "this store is a replica of a PostgreSQL primary: its data changes only through the replica (Replica.write in LarderPostgres), never through the Database directly",
            operation: "write", path: txn.database.path)
    }
}

extension Database {
    /// Makes this store a replica in this process: from now on, a commit that changes its data
    /// without applying a commit of the primary (``ReadWriteTransaction/apply(_:)``) is refused.
    /// Calling it again does nothing more.
    package func guardAsReplica() {
        shared.feature(ReplicaGuard.Installed.self) {
            shared.addParticipant(rank: .shipping) { ReplicaGuard() }
            return ReplicaGuard.Installed()
        }
    }
}

extension ReplicaGuard {
    /// The mark, kept with the store's features, that its guard has been added.
    final class Installed {}
}
