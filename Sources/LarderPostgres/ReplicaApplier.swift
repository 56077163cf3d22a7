import Larder

/// Brings a replica's store to the primary's commits, strictly in order, one local commit per
/// primary commit (so observers see each one as it was made), and re-bootstraps it from a
/// snapshot of the primary's tables when it is behind what the log still holds.
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
    /// is now, without one). `own`, when given, is a commit this replica just made, applied
    /// without fetching it.
    /// - Throws: the primary's errors; ``LarderError/Code/corruptValue`` for a commit that does not
    ///   decode (the replica then stops there: it never skips a commit);
    ///   ``LarderError/Code/replicaMismatch`` when the primary's history is not the replica's.
    func catchUp(through target: UInt64? = nil, own: OwnCommit? = nil) async throws {
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

    private func run(through target: UInt64?, own: OwnCommit?) async throws {
        if let divergence { throw divergence }
        while target.map({ position < $0 }) ?? true {
            if let own, own.number <= position {
                throw diverged(PrimaryClient.primaryLostCommits(position))
            }
            if let own, own.number == position + 1 {
                // The primary made it on top of this replica's position after checking that
                // position's token: no fetch, no check.
                try await apply([(own.number, own.commit, own.token)])
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

    /// Applies consecutive commits, each in a local transaction of its own that records the new
    /// position and its token with it. Stops at the first that does not follow what the store
    /// shows (another process on the same store moved it), with ``position`` set to what the
    /// store shows, so that the next fetch starts from there.
    private func apply(_ commits: [(UInt64, ReplicatedCommit, String)]) async throws {
        for (number, commit, token) in commits {
            let primary = self.primary
            let shown = try await database.write { txn -> ReplicaState in
                let current = try txn.replicaState() ?? ReplicaState(primary: primary, position: 0)
                guard current.position == number - 1 else { return current }
                try txn.apply(commit)
                let state = ReplicaState(primary: primary, position: number, token: token)
                try txn.setReplicaState(state)
                return state
            }
            position = shown.position
            self.token = shown.token
            guard shown.position == number else { return }
        }
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
