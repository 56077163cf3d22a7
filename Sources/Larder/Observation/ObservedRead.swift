/// The machinery every observation of reads shares (``ReadObservation``, a view's followed
/// window): a subscription whose filter takes only the commits that touch what the last run
/// read, and runs that record their reads into it.
struct ObservedRead: Sendable {
    let lease: SubscriptionLease
    let filter: ReadFilter
    /// What the reads run through (a connection, with its pinned snapshot if it has one).
    let reader: any DatabaseAccess

    init(reader: any DatabaseAccess) {
        let filter = ReadFilter()
        self.filter = filter
        lease = SubscriptionLease(database: reader.database, collection: nil, filter: filter, keepsDetails: false)
        self.reader = reader
    }

    /// Waits for a changeset the filter admitted of a commit after `commit` (or, when
    /// `wakesOnPoke`, for a ``poke()``); `false` once the subscription ended (the consuming task
    /// was cancelled).
    func waitForCommit(after commit: UInt64, wakesOnPoke: Bool = false) async -> Bool {
        while true {
            switch await lease.subscription.nextEvent() {
            case .changeset(let changeset):
                if Task.isCancelled { return false }
                if changeset.commit > commit { return true }
            case .poke:
                if wakesOnPoke { return true }
            case .end:
                return false
            }
        }
    }

    /// Wakes a consumer waiting in ``waitForCommit(after:wakesOnPoke:)`` (with `wakesOnPoke`), or
    /// its next wait.
    func poke() { lease.subscription.poke() }

    /// Runs `read` once, recording what it reads, and has the hub wake the observation from then
    /// on only for commits that touch those reads. Returns the result and the commit it read.
    ///
    /// The filter takes every commit while the read runs: a commit published before the read
    /// began is one the read sees, and one published after it is buffered whatever it touches,
    /// so none that the new reads would have taken is missed between the read and
    /// ``ReadFilter/admit(_:)``.
    func run<Value: Sendable>(_ read: @escaping @Sendable (ReadTransaction) throws -> Value) async throws -> (Value, UInt64) {
        filter.admitEverything()
        let (value, commit, reads) = try await reader.read { txn in
            let recorder = ReadSetRecorder()
            txn.readRecorder = recorder
            defer { txn.readRecorder = nil }
            return (try read(txn), txn.lastCommit, recorder.reads)
        }
        filter.admit(reads)
        return (value, commit)
    }
}
