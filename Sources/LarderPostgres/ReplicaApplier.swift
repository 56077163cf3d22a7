#if Extras
import Foundation
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

    /// Told how many pending commits (written offline) the primary was found to have made, and
    /// which the applier rejected, as it finds them.
    private let onSettled: @Sendable (_ made: Int, _ rejected: [RejectedRecord]) -> Void

    init(database: Database, client: PrimaryClient, primary: String, state: ReplicaState?,
         onSettled: @escaping @Sendable (_ made: Int, _ rejected: [RejectedRecord]) -> Void) {
        self.database = database
        self.client = client
        self.primary = primary
        self.onSettled = onSettled
        self.position = state?.position ?? 0
        self.token = state?.token
    }

    /// A commit this replica just made: its number, what it changed and its token.
    typealias OwnCommit = (number: UInt64, commit: ReplicatedCommit, token: String)

    /// Applies the primary's commits until the store shows commit `target` (every commit there
    /// is now, without one). `own` are commits this replica just made, applied without
    /// fetching them.
    /// - Throws: the primary's errors; `LarderError/Code/corruptValue` for a commit that does not
    ///   decode (the replica then stops there: it never skips a commit);
    ///   `LarderError/Code/replicaMismatch` when the primary's history is not the replica's.
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
    ///
    /// With pending commits (written offline) in the store, the same transaction takes them off
    /// first, applies the primary's commits beneath them, and puts them back on top, dropping
    /// those the primary made and rejecting those the primary's commits conflict with
    /// (`ReadWriteTransaction/putBack(_:above:at:now:)`): readers never see the store without
    /// them.
    private func apply(_ commits: [(UInt64, ReplicatedCommit, String)]) async throws {
        let primary = self.primary
        let now = Date()
        let (shown, made, rejected) = try await database.write { txn -> (ReplicaState, Int, [RejectedRecord]) in
            let shown = try txn.replicaState() ?? ReplicaState(primary: primary, position: 0)
            let pending = try txn.lastPendingSequence() == nil ? [] : try txn.takeOffPendingCommits()
            var state = shown
            var applied: [(number: UInt64, commit: ReplicatedCommit, token: String)] = []
            for (number, commit, token) in commits where number > state.position {
                guard number == state.position + 1 else { break }
                try txn.apply(commit)
                state = ReplicaState(primary: primary, position: number, token: token)
                applied.append((number, commit, token))
            }
            if state.position != shown.position { try txn.setReplicaState(state) }
            let appliedTokens = Set(applied.map(\.token))
            let made = pending.count { appliedTokens.contains($0.token) }
            let rejected = try txn.putBack(pending, above: applied, at: state.position, now: now)
            return (state, made, rejected)
        }
        position = shown.position
        self.token = shown.token
        if made > 0 || !rejected.isEmpty { onSettled(made, rejected) }
    }

    /// Rejects the first pending commit, with `token`, which the primary refused although the
    /// replica's own check let it through: taken off the store with those after it, which are
    /// checked against it again.
    func reject(pendingToken token: String) async throws {
        let previous = latest
        let work = Task {
            _ = await previous?.result
            try await self.rejectPending(token: token)
        }
        latest = work
        try await work.value
    }

    private func rejectPending(token: String) async throws {
        let now = Date()
        let rejected = try await database.write { txn -> [RejectedRecord] in
            var pending = try txn.takeOffPendingCommits()
            guard let first = pending.first, first.token == token else {
                _ = try txn.putBack(pending, above: [], at: try txn.replicaState()?.position ?? 0, now: now)
                return []
            }
            pending.removeFirst()
            let record = try txn.reject(first, reason: .conflict, now: now)
            // Those after it that read what it wrote go with it.
            let position = try txn.replicaState()?.position ?? 0
            return [record] + (try txn.putBack(pending, above: [(position + 1, first.commit, "rejected:" + first.token)], at: position, now: now))
        }
        if !rejected.isEmpty { onSettled(0, rejected) }
    }

    /// Replaces the store's data by a snapshot of the primary's tables. Pending commits (written
    /// offline) that the primary made are in it; the others cannot be checked against what the
    /// primary did since they were written, and are rejected (``RejectedCommit/Reason/unverifiable``).
    func bootstrap() async throws {
        let tokens = try await database.read { txn in try txn.pendingCommits().map(\.token) }
        let made = tokens.isEmpty ? [:] : try await client.madeCommits(tokens: tokens)
        let (snapshotPosition, snapshotToken, commit) = try await client.snapshot()
        let primary = self.primary
        let now = Date()
        let (shown, rejected) = try await database.write { txn -> (UInt64, [RejectedRecord]) in
            let rejected = try txn.rejectPendingCommits(except: Set(made.keys), reason: .unverifiable, now: now)
            try txn.apply(commit)
            try txn.setReplicaState(ReplicaState(primary: primary, position: snapshotPosition, token: snapshotToken))
            return (snapshotPosition, rejected)
        }
        position = shown
        token = snapshotToken
        bootstraps += 1
        if !rejected.isEmpty { onSettled(0, rejected) }
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
#endif
