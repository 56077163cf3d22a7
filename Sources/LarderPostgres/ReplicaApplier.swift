import Larder

/// Brings a replica's store to the primary's commits, strictly in order, and re-bootstraps it
/// from a snapshot of the primary's tables when it is behind what the log still holds.
///
/// The commits that arrive together (a fetch, a batch of the replica's own) are applied in one
/// local transaction: one sync of the store for all of them, as a group commit of a plain store
/// does. Observers see one changeset holding them all, with each one's commit information in
/// order (``Changeset/commitInfo(as:)``).
actor ReplicaApplier {
    let database: Database
    let client: PrimaryClient
    let primary: String
    /// The last primary commit the store shows.
    private(set) var position: UInt64
    /// The token of that commit (`nil` at 0, or in a store written before tokens were kept).
    private(set) var token: String?
    /// Set when the primary's history turned out not to be the replica's: every catch-up
    /// throws it until ``rebootstrap()``.
    private(set) var divergence: LarderError?

    init(database: Database, client: PrimaryClient, primary: String, state: ReplicaState?) {
        self.database = database
        self.client = client
        self.primary = primary
        self.position = state?.position ?? 0
        self.token = state?.token
    }

    /// A commit this replica just made: its number, what it changed and its token.
    typealias OwnCommit = (number: UInt64, commit: ReplicatedCommit, token: String)

    /// Applies the primary's commits until the store shows commit `target` (every commit there
    /// is now, without one). `own` are commits this replica just made, applied without
    /// fetching them.
    /// - Throws: the primary's errors; ``LarderError/Code/corruptValue`` for a commit that does not
    ///   decode (the replica then stops there: it never skips a commit);
    ///   ``LarderError/Code/replicaMismatch`` when the primary's history is not the replica's.
    func catchUp(through target: UInt64? = nil, own: [OwnCommit] = []) async throws {
        // One catch-up at a time: the actor is reentrant at each await, and two catch-ups
        // fetching from the same position would apply the same commits twice.
        // Each one runs after the one before it.
        let previous = latest
        let work = Task {
            _ = await previous?.result
            try await self.run(through: target, own: own)
        }
        latest = work
        try await work.value
    }

    /// The newest catch-up, which runs after all the others.
    private var latest: Task<Void, any Error>?

    private func run(through target: UInt64?, own: [OwnCommit]) async throws {
        if let divergence { throw divergence }
        let ownByNumber = Dictionary(own.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        while target.map({ position < $0 }) ?? true {
            if ownByNumber[position + 1] != nil {
                // The primary made them on top of this replica's position after checking that
                // position's token: no fetch, no check.
                var next = position + 1
                var commits: [(UInt64, ReplicatedCommit, String)] = []
                while let commit = ownByNumber[next] {
                    commits.append((next, commit.commit, commit.token))
                    next += 1
                }
                try await apply(commits)
                continue
            }
            let batch = try await client.commits(after: position, limit: 256)
            guard batch.identity == primary else {
                // A replica opened without its primary meets, when it comes back, another one.
                throw diverged(LarderError(.replicaMismatch, "the primary's tables are another primary's now (\(batch.identity), not \(primary)): they were made again; give the replica a new path", operation: "replicate"))
            }
            guard batch.head >= position else { throw diverged(PrimaryClient.primaryLostCommits(position)) }
            if let token, let theirs = batch.tokenAtPosition, theirs != token {
                throw diverged(PrimaryClient.foreignHistory(position))
            }
            guard let first = batch.commits.first else {
                if batch.head > position {
                    // The commits after the position have left the log.
                    try await bootstrap()
                    continue
                }
                return
            }
            guard first.number == position + 1 else {
                try await bootstrap()
                continue
            }
            var commits: [(UInt64, ReplicatedCommit, String)] = []
            for (number, record, token) in batch.commits {
                commits.append((number, try ReplicatedCommit(decoding: record), token))
            }
            try await apply(commits)
            if target == nil && batch.commits.count < 256 { return }
        }
    }

    /// Records that the replica's history is not the primary's (the replica stops rather than
    /// diverge) and returns the error to throw.
    private func diverged(_ error: LarderError) -> LarderError {
        divergence = error
        return error
    }

    /// Applies consecutive commits in one local transaction, which records the new position and
    /// its token with them. Skips those the store shows already and stops before the first that
    /// does not follow (another process on the same store moved it), with ``position`` set to
    /// what the store shows, so that the next fetch starts from there.
    private func apply(_ commits: [(UInt64, ReplicatedCommit, String)]) async throws {
        let primary = self.primary
        let shown = try await database.write { txn -> ReplicaState in
            let shown = try txn.replicaState() ?? ReplicaState(primary: primary, position: 0)
            var state = shown
            for (number, commit, token) in commits where number > state.position {
                guard number == state.position + 1 else { break }
                try txn.apply(commit)
                state = ReplicaState(primary: primary, position: number, token: token)
            }
            if state.position != shown.position { try txn.setReplicaState(state) }
            return state
        }
        position = shown.position
        self.token = shown.token
    }

    /// Replaces the store's data by a snapshot of the primary's tables.
    func bootstrap() async throws {
        let (snapshotPosition, snapshotToken, commit) = try await client.snapshot()
        let primary = self.primary
        position = try await database.write { txn -> UInt64 in
            try txn.apply(commit)
            try txn.setReplicaState(ReplicaState(primary: primary, position: snapshotPosition, token: snapshotToken))
            return snapshotPosition
        }
        token = snapshotToken
        bootstraps += 1
    }

    /// Replaces the store's data by a snapshot of the primary's tables after a divergence, and
    /// follows the primary again; what the replica showed that the primary does not have is gone.
    func rebootstrap() async throws {
        let previous = latest
        let work = Task {
            _ = await previous?.result
            try await self.bootstrap()
            self.clearDivergence()
        }
        latest = work
        try await work.value
    }

    /// Stops following: the primary refused a commit because its history is not the replica's.
    func stop(_ error: LarderError) {
        divergence = error
    }

    private func clearDivergence() {
        divergence = nil
    }

    /// How many times the store was loaded from a snapshot of the primary.
    private(set) var bootstraps = 0
}
