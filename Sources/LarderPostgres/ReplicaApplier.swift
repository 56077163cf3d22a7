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

    init(database: Database, client: PrimaryClient, primary: String, position: UInt64) {
        self.database = database
        self.client = client
        self.primary = primary
        self.position = position
    }

    /// Applies the primary's commits until the store shows commit `target` (every commit there
    /// is now, without one). `own`, when given, is a commit this replica just made, applied
    /// without fetching it.
    /// - Throws: the primary's errors; ``LarderError/Code/corruptValue`` for a commit that does not
    ///   decode (the replica then stops there: it never skips a commit).
    func catchUp(through target: UInt64? = nil, own: (number: UInt64, commit: ReplicatedCommit)? = nil) async throws {
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

    private func run(through target: UInt64?, own: (number: UInt64, commit: ReplicatedCommit)?) async throws {
        while target.map({ position < $0 }) ?? true {
            if let own, own.number <= position {
                throw Self.ahead(position, of: own.number)
            }
            if let own, own.number == position + 1 {
                try await apply([(own.number, own.commit)])
                continue
            }
            let batch = try await client.commits(after: position, limit: 256)
            guard batch.head >= position else { throw Self.ahead(position, of: batch.head) }
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
            var commits: [(UInt64, ReplicatedCommit)] = []
            for (number, record) in batch.commits {
                commits.append((number, try ReplicatedCommit(decoding: record)))
            }
            try await apply(commits)
            if target == nil && batch.commits.count < 256 { return }
        }
    }

    /// The replica shows commits the primary does not have: the primary lost them (restored
    /// from an older backup, or a server that acknowledged commits it had not made durable).
    /// The replica stops rather than diverge.
    private static func ahead(_ position: UInt64, of head: UInt64) -> LarderError {
        LarderError(.replicaMismatch, "the replica shows the primary's commit \(position), but the primary's log ends at \(head): the primary lost commits it had acknowledged (restored from an older backup?); make a new replica", operation: "replicate")
    }

    /// Applies consecutive commits, each in a local transaction of its own that records the new
    /// position with it. Stops at the first that does not follow what the store shows (another
    /// process on the same store moved it), with ``position`` set to what the store shows, so
    /// that the next fetch starts from there.
    private func apply(_ commits: [(UInt64, ReplicatedCommit)]) async throws {
        for (number, commit) in commits {
            let primary = self.primary
            let shown = try await database.write { txn -> UInt64 in
                let current = try txn.replicaState()?.position ?? 0
                guard current == number - 1 else { return current }
                try txn.apply(commit)
                try txn.setReplicaState(ReplicaState(primary: primary, position: number))
                return number
            }
            position = shown
            guard shown == number else { return }
        }
    }

    /// Replaces the store's data by a snapshot of the primary's tables.
    func bootstrap() async throws {
        let (snapshotPosition, commit) = try await client.snapshot()
        let primary = self.primary
        position = try await database.write { txn -> UInt64 in
            try txn.apply(commit)
            try txn.setReplicaState(ReplicaState(primary: primary, position: snapshotPosition))
            return snapshotPosition
        }
        bootstraps += 1
    }

    /// How many times the store was loaded from a snapshot of the primary.
    private(set) var bootstraps = 0
}
