#if Extras
import Foundation
import Larder
import Logging
import NIOCore
import Synchronization

/// An embedded replica of a store whose primary is a PostgreSQL database: an ordinary Larder
/// store on this machine that serves every read, and takes its writes through the primary.
///
/// Reads use ``database`` as any store: views, indexes, relationships, pinned snapshots and
/// observation work unchanged, and see the primary's commits as the replica applies them.
///
/// Writes (``write(_:)``) run their closure on the replica, recording what it reads; the primary
/// then checks that no commit the replica had not applied wrote any of it, and makes the commit
/// (the optimistic, serializable scheme of FoundationDB). On a conflict the replica catches up
/// and the closure runs again. The write returns once the replica shows the commit.
///
/// ```swift
/// let replica = try await Replica.open(at: "/var/lib/app/replica",
///                                      primary: try PrimaryConfiguration(url: "postgresql://app@db.internal/app"))
/// try await replica.write { txn in
///     let balance = try txn.object(forKey: "alice", inCollection: "accounts", as: Int.self) ?? 0
///     try txn.setObject(balance + 10, forKey: "alice", inCollection: "accounts")
/// }
/// let balance = try replica.database.read { try $0.object(forKey: "alice", inCollection: "accounts", as: Int.self) }
/// ```
///
/// See Documentation/ScalingOut.md for the guarantees, the failure modes and the primary's tables.
public final class Replica: Sendable {
    /// How a replica works.
    public struct Configuration: Sendable {
        /// The configuration of the replica's store. Its durability is `.noMetaSync` unless you
        /// set another: the primary holds every commit, so a replica that loses its newest
        /// commits to a power cut (and keeps its consistency, which `.noMetaSync` does) fetches
        /// them again when it opens; one sync per applied commit instead of two.
        public var database: Database.Configuration = {
            var configuration = Database.Configuration()
            configuration.durability = .noMetaSync
            return configuration
        }()
        /// How many times a write runs its closure before it gives up with
        /// `LarderError/Code/writeConflict`.
        public var maxAttempts = 16
        /// Whether the replica follows the primary by itself (LISTEN/NOTIFY, and a poll every
        /// ``pollInterval``). Without it, commits of other replicas arrive at the next write or
        /// ``Replica/catchUp()``.
        public var follows = true
        /// How often a following replica asks the primary for commits it was not told of.
        public var pollInterval: Duration = .seconds(1)
        /// How many commits the primary's log keeps; a replica further behind than that loads a
        /// snapshot of the primary's tables instead. Each replica that writes trims the log to it.
        public var retainedCommits = 100_000
        /// Where PostgresNIO logs (nothing by default). Larder's own messages hold no password.
        public var logger = Logger(label: "larder.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        /// Told what happens to the replica as it happens (``ReplicaEvent``): failures of the
        /// follower and of log trimming, which no caller sees, a history that is not the
        /// primary's, snapshots loaded. Called on the replica's tasks: return quickly.
        public var onEvent: (@Sendable (ReplicaEvent) -> Void)?
        /// Whether ``Replica/open(at:primary:configuration:)`` opens a replica that has followed
        /// the primary before even when the primary cannot be reached (on by default): reads
        /// then show the replica's last position, writes throw
        /// `LarderError/Code/primaryUnavailable`, and the replica follows once the primary is
        /// back (it checks that the primary is the same one, with the same history). Off, the
        /// open throws `LarderError/Code/primaryUnavailable`. A new replica always needs the
        /// primary.
        public var opensOffline = true

        /// Whether a write made while the primary cannot be reached commits on the replica alone,
        /// as a pending commit, instead of throwing `LarderError/Code/primaryUnavailable` (off
        /// by default).
        ///
        /// A pending commit is visible to the replica's reads at once, survives closing and
        /// crashes (it is kept in the store), and is sent to the primary, in order, when it is
        /// back, with what its write read: the primary makes it only if no commit the replica
        /// had not seen wrote any of that. One that conflicts is taken off the replica again
        /// and reported (``ReplicaEvent/commitRejected(_:)``, ``Replica/rejectedCommits()``).
        /// While pending commits wait, every write on the replica becomes one too (it may have
        /// read them), so they keep their order. See Documentation/ScalingOut.md, "Working
        /// offline", for the isolation this gives.
        public var writesOffline = false

        /// The defaults above.
        public init() {}
    }

    /// The replica's store. Read it as any store; its data changes only through the replica
    /// (a write made to it directly is refused with `LarderError/Code/readOnly`).
    public let database: Database
    /// The primary this replica follows.
    public let primary: PrimaryConfiguration
    /// The identity of the primary (made with its tables).
    public let primaryIdentity: String
    private let configuration: Configuration
    private let writer: PrimaryClient
    private let follower: PrimaryClient
    private let applier: ReplicaApplier
    private let listener: PrimaryClient
    private let following = Mutex<Following?>(nil)
    private let counters = Mutex(Statistics())
    private let lastError = Mutex<LarderError?>(nil)
    private let outbox = Mutex(Outbox())

    /// What a replica has done since it was opened.
    public struct Statistics: Sendable, Equatable {
        /// Writes committed on the primary.
        public var commits = 0
        /// Closures run again after a conflict.
        public var conflicts = 0
        /// Times the store was loaded from a snapshot of the primary's tables.
        public var bootstraps = 0
        /// Time the writes spent running their closures on the replica (every run).
        public var closureTime: Duration = .zero
        /// Time the writes spent waiting for the primary's answer to their commits (with the
        /// time they waited for the batch before theirs).
        public var primaryTime: Duration = .zero
        /// Batches of commits sent to the primary: the commits that this replica's writers made
        /// while a batch was on the wire go together in the next one.
        public var batches = 0
        /// The most commits sent in one batch.
        public var largestBatch = 0
        /// Writes committed on the replica alone, as pending commits, while the primary was away
        /// (``Configuration/writesOffline``).
        public var offlineCommits = 0
        /// Pending commits the primary has made since the replica was opened (found in its log,
        /// whoever sent them).
        public var pendingCommitsMade = 0
        /// Pending commits rejected since the replica was opened (``Replica/rejectedCommits()``).
        public var rejectedCommits = 0
        /// Time the writes spent waiting, once committed, for the replica to show their commit.
        public var applyTime: Duration = .zero
        /// Times the replica's own work with the primary failed (following it, listening for its
        /// notifications, trimming its log, sending the commits made offline); the last failure
        /// is ``lastFailure``.
        public var followErrors = 0
        /// The last failure of the replica's own work with the primary (see ``followErrors``):
        /// what it was doing, the error and when; `nil` when there was none since the replica was
        /// opened. Kept when the replica succeeds again, unlike ``Replica/lastFollowError``: a
        /// ``lastPrimaryContact`` later than its date says the replica has recovered since.
        public var lastFailure: ReplicaFailure?
        /// The number of the primary's last commit, as the replica last heard it (from a fetch,
        /// a notification or its own commit). The replica lags by this minus ``Replica/position``
        /// commits, as far as it knows.
        public var primaryPosition: UInt64 = 0
        /// When the replica last heard from the primary (a catch-up or a commit that succeeded);
        /// `nil` when it has not since it was opened. The replica shows everything the primary
        /// had committed up to about then.
        public var lastPrimaryContact: Date?
    }

    private init(database: Database, primary: PrimaryConfiguration, identity: String, configuration: Configuration,
                 writer: PrimaryClient, follower: PrimaryClient, applier: ReplicaApplier) {
        self.database = database
        self.primary = primary
        self.primaryIdentity = identity
        self.configuration = configuration
        self.writer = writer
        self.follower = follower
        self.applier = applier
        self.listener = PrimaryClient(configuration: primary, logger: configuration.logger)
    }

    /// Opens (or makes) the replica at `path` of the store on `primary`, making the primary's
    /// tables if they are missing, and brings it up to the primary's last commit. A replica that
    /// has followed the primary before opens without it too (see
    /// ``Configuration/opensOffline``).
    /// - Throws: `LarderError/Code/replicaMismatch` when the store at `path` holds data of its
    ///   own or replicates another primary; `LarderError/Code/primaryUnavailable`; what opening
    ///   the store throws.
    public static func open(at path: String, primary: PrimaryConfiguration, configuration: Configuration = Configuration()) async throws -> Replica {
        let primary = try primary.validated()
        let database = try Database(path: path, configuration: configuration.database)
        let writer = PrimaryClient(configuration: primary, logger: configuration.logger)
        let follower = PrimaryClient(configuration: primary, logger: configuration.logger)
        do {
            let state = try await database.read { txn -> ReplicaState? in
                if let state = try txn.replicaState() { return state }
                guard try txn.numberOfKeysInAllCollections() == 0 else {
                    throw LarderError(.replicaMismatch, "the store holds data of its own, so it cannot become a replica; give the replica a new path", operation: "Replica.open", path: path)
                }
                return nil
            }
            let identity: String
            var offline = false
            do {
                identity = try await writer.prepareSchema()
            } catch let error as LarderError where error.code == .primaryUnavailable && configuration.opensOffline && state != nil {
                // A replica that has followed this primary before holds a full copy as of its
                // position: it serves reads while the primary is away, and follows once it is back.
                identity = state!.primary
                offline = true
            }
            if let state, state.primary != identity {
                throw LarderError(.replicaMismatch, "the store replicates another primary (\(state.primary), not \(identity)); give the replica a new path", operation: "Replica.open", path: path)
            }
            database.guardAsReplica()
            if state == nil {
                try await database.write { txn in try txn.setReplicaState(ReplicaState(primary: identity, position: 0)) }
            }
            let relay = RejectionRelay()
            let applier = ReplicaApplier(database: database, client: follower, primary: identity, state: state,
                                         onSettled: { relay.tell(made: $0, rejected: $1) })
            let replica = Replica(database: database, primary: primary, identity: identity, configuration: configuration,
                                  writer: writer, follower: follower, applier: applier)
            relay.handler.withLock { handler in
                handler = { [weak replica] made, rejected in replica?.noteSettled(made: made, rejected: rejected) }
            }
            if offline {
                replica.noteFailure(LarderError(.primaryUnavailable, "opened without the primary \(primary), which could not be reached: reads show commit \(state?.position ?? 0) until it is back", operation: "Replica.open"), while: .following)
            } else {
                try await replica.catchUp()
            }
            if configuration.follows { replica.startFollowing() }
            if !offline { replica.sendPendingCommitsIfAny() }
            return replica
        } catch {
            await writer.close()
            await follower.close()
            await database.close()
            throw error
        }
    }

    /// The number of the last commit of the primary that the store shows.
    public var position: UInt64 {
        get throws { try database.read { try $0.replicaState()?.position ?? 0 } }
    }

    /// What the replica has done since it was opened.
    public var statistics: Statistics {
        counters.withLock { $0 }
    }

    /// The last failure of the replica's own work with the primary (following it, trimming its
    /// log), which no caller sees; `nil` when there was none, or a catch-up succeeded since.
    /// A `LarderError/Code/replicaMismatch` here stays until ``rebootstrap()``.
    /// ``Statistics/lastFailure`` keeps the last one with what the replica was doing and when,
    /// after a success too.
    public var lastFollowError: LarderError? {
        lastError.withLock { $0 }
    }

    /// Applies every commit the primary has made so far.
    /// - Throws: `LarderError/Code/primaryUnavailable` when the primary cannot be reached;
    ///   `LarderError/Code/replicaMismatch` when the primary's history is not the replica's
    ///   (see ``rebootstrap()``).
    public func catchUp() async throws {
        do {
            try await applier.catchUp()
            lastError.withLock { $0 = nil }
        } catch {
            noteFailure(error, while: .following)
            throw error
        }
        await noteProgress()
        // The primary answers: pending commits written offline can go.
        do {
            if try await database.read({ txn in try txn.lastPendingSequence() }) != nil { sendPendingCommitsIfAny() }
        } catch {
            noteFailure(error, while: .sendingPendingCommits)
        }
    }

    /// Replaces the replica's contents with a snapshot of the primary's tables and follows the
    /// primary again: the way out of a `LarderError/Code/replicaMismatch`.
    ///
    /// A replica refuses to follow a primary whose history is not its own (a primary restored
    /// from an older backup and written since, a failover that lost commits): what it shows
    /// that the primary does not have would be lost, so it waits for the program to decide.
    /// Everything the replica showed is replaced; observers see one changeset for it.
    /// - Throws: `LarderError/Code/primaryUnavailable`; what writing the store throws.
    public func rebootstrap() async throws {
        try await applier.rebootstrap()
        lastError.withLock { $0 = nil }
        await noteProgress()
    }

    private func noteProgress() async {
        let (bootstraps, position) = (await applier.bootstraps, await applier.position)
        let now = Date()
        let loaded = counters.withLock { counters in
            defer {
                counters.bootstraps = bootstraps
                counters.primaryPosition = max(counters.primaryPosition, position)
                counters.lastPrimaryContact = now
            }
            return bootstraps > counters.bootstraps
        }
        if loaded { configuration.onEvent?(.bootstrapped(position: position)) }
    }

    /// Records a failure of `work`, which no caller waits for (or a divergence), and tells
    /// ``Configuration/onEvent``. Not noted: `LarderError/Code/databaseClosed` and errors that
    /// are not a `LarderError` (every failure of the primary or the store is one; what is left
    /// is the cancellation of the replica's tasks as it closes).
    private func noteFailure(_ error: any Error, while work: ReplicaFailure.Work) {
        guard let error = error as? LarderError, error.code != .databaseClosed else { return }
        let diverged = error.code == .replicaMismatch
        let first = lastError.withLock { last in
            defer { last = error }
            return last?.code != .replicaMismatch
        }
        let failure = ReplicaFailure(work: work, error: error, date: Date())
        counters.withLock {
            $0.followErrors += 1
            $0.lastFailure = failure
        }
        if diverged {
            if first { configuration.onEvent?(.diverged(error)) }
        } else if work == .trimmingLog {
            configuration.onEvent?(.trimFailed(error))
        } else {
            configuration.onEvent?(.followFailed(error))
        }
    }

    /// Runs `body` in a write transaction of the replica and commits what it did on the
    /// primary; returns once the replica shows the commit (read-your-writes).
    ///
    /// The closure may run more than once: when a commit the replica had not applied wrote
    /// something the closure read, the replica applies it and runs the closure again. Keep its
    /// effects inside the transaction. A closure that throws or calls
    /// `ReadWriteTransaction/rollback()` commits nothing; one that changes nothing sends nothing.
    /// The write returns only once PostgreSQL has committed the transaction (its `COMMIT`
    /// completed): an acknowledged write is on the primary. It returns once the replica shows
    /// the commit too, except when the primary becomes unreachable between its commit and the
    /// replica's fetch of the commits before it: the write was made, so it returns, and the
    /// replica shows it when it reaches the primary again (``lastFollowError`` says why it
    /// does not yet; ``position`` tells).
    ///
    /// Concurrent writers of one replica share round trips: the commits made while one call is
    /// on the wire go together in the next, each checked on its own.
    ///
    /// With ``Configuration/writesOffline``, a write the primary cannot be reached for (and every
    /// write while such writes wait) returns once committed on the replica alone, as a pending
    /// commit that reaches the primary later, or is rejected (see the configuration).
    /// - Throws: what `body` throws; `LarderError/Code/writeConflict` after
    ///   ``Configuration/maxAttempts`` conflicts; `LarderError/Code/primaryUnavailable` when the
    ///   primary cannot be reached or does not answer within
    ///   ``PrimaryConfiguration/requestTimeout`` before the commit is sent (nothing was written;
    ///   with `writesOffline`, never: the write is pending instead);
    ///   `LarderError/Code/commitOutcomeUnknown` when the connection broke (or the deadline
    ///   passed) once the commit was sent and its outcome could not be found (the replica shows
    ///   it later if it was made); `LarderError/Code/replicaMismatch` when the primary's
    ///   history is not the replica's (see ``rebootstrap()``).
    public func write<R: Sendable>(_ body: @escaping @Sendable (ReadWriteTransaction) throws -> R) async throws -> R {
        let clock = ContinuousClock()
        for _ in 0..<max(1, configuration.maxAttempts) {
            let started = clock.now
            if let divergence = await applier.divergence { throw divergence }
            let rehearsal = try await database.write { txn -> Rehearsal<R> in
                txn.startRecordingReads()
                let state = try txn.replicaState()
                let (position, token) = (state?.position ?? 0, state?.token)
                let lastPending = try txn.lastPendingSequence()
                let value = try body(txn)
                if txn.wasRolledBack {
                    return Rehearsal(value: value, commit: nil, reads: ReadSet(), position: position, token: token, lastPending: lastPending)
                }
                let commit = try txn.replicatedCommit()
                let reads = txn.recordedReads
                txn.rollback()
                return Rehearsal(value: value, commit: commit.isEmpty ? nil : commit, reads: reads, position: position, token: token,
                                 lastPending: lastPending)
            }
            let rehearsed = clock.now
            counters.withLock { $0.closureTime += rehearsed - started }
            guard let commit = rehearsal.commit else { return rehearsal.value }
            if rehearsal.lastPending != nil {
                // Pending commits wait (written offline, or kept from an earlier run): the
                // closure may have read them, so this write waits behind them, pending too.
                guard configuration.writesOffline else {
                    throw LarderError(.primaryUnavailable, "the replica still holds commits written offline, which reach the primary first (they are being sent); with writesOffline off, a write waits for them: try again once pendingCommitCount is 0", operation: "Replica.write")
                }
                if try await commitPending(commit, rehearsal) { return rehearsal.value }
                continue
            }
            let sent = await send(PrimaryClient.CommitRequest(commit: commit, reads: rehearsal.reads, position: rehearsal.position,
                                                              positionToken: rehearsal.token))
            let answered = clock.now
            counters.withLock { $0.primaryTime += answered - rehearsed }
            switch sent.outcome {
            case .failure(let error):
                if error.code == .replicaMismatch {
                    await applier.stop(error)
                    noteFailure(error, while: .following)
                }
                if error.code == .primaryUnavailable && configuration.writesOffline {
                    if try await commitPending(commit, rehearsal) { return rehearsal.value }
                    continue
                }
                throw error
            case .success(.committed(let number, _)):
                let now = Date()
                counters.withLock {
                    $0.commits += 1
                    $0.primaryPosition = max($0.primaryPosition, number)
                    $0.lastPrimaryContact = now
                }
                await sent.shown?.value
                counters.withLock { $0.applyTime += clock.now - answered }
                await trimLog(after: number)
                return rehearsal.value
            case .success(.conflict), .success(.behind):
                counters.withLock { $0.conflicts += 1 }
                do {
                    try await catchUp()
                } catch let error as LarderError where error.code == .primaryUnavailable && configuration.writesOffline {
                    // Gone since it answered: the closure runs again on what the replica shows,
                    // and its commit waits, pending, to be checked when the primary is back.
                }
            }
        }
        throw LarderError(.writeConflict, "the write conflicted with other replicas' commits on each of its \(configuration.maxAttempts) attempts", operation: "Replica.write")
    }

    // MARK: Working offline

    /// Commits what a write's closure did (`commit`, rehearsed in `rehearsal`) on the replica
    /// alone, as a pending commit; `false` when the replica changed since the closure ran (a
    /// commit applied, another pending commit made), and the closure must run again.
    private func commitPending<R>(_ commit: ReplicatedCommit, _ rehearsal: Rehearsal<R>) async throws -> Bool {
        let now = Date()
        let made = try await database.write { txn -> Bool in
            let state = try txn.replicaState()
            guard (state?.position ?? 0) == rehearsal.position, try txn.lastPendingSequence() == rehearsal.lastPending else { return false }
            let pending = PendingCommit(sequence: (rehearsal.lastPending ?? 0) + 1, token: UUID().uuidString.lowercased(), madeAt: now,
                                        base: rehearsal.position, commit: commit, undo: try txn.undoImage(of: commit), reads: rehearsal.reads)
            try txn.apply(commit)
            try txn.setReplicaRecord(try pending.encoded(), forKey: pending.key)
            return true
        }
        guard made else { return false }
        counters.withLock { $0.offlineCommits += 1 }
        sendPendingCommitsIfAny()
        return true
    }

    /// The number of writes committed on the replica alone that the primary has not made yet
    /// (see ``Configuration/writesOffline``).
    public var pendingCommitCount: Int {
        get throws { try database.read { try $0.replicaRecords(withPrefix: PendingCommit.prefix).count } }
    }

    /// The writes made offline that the primary did not take, oldest first: each was taken off
    /// the replica, and is kept, with what it changed, until ``removeRejectedCommits(_:)``.
    public func rejectedCommits() throws -> [RejectedCommit] {
        try database.read { txn in try txn.rejectedRecords().map(RejectedCommit.init) }
    }

    /// Forgets the rejected commits with these ids (all of them when `ids` is `nil`), once the
    /// program has shown or redone them.
    public func removeRejectedCommits(_ ids: [String]? = nil) async throws {
        try await database.write { txn in
            let remove = ids.map { Set($0) }
            for record in try txn.rejectedRecords() where remove?.contains(record.token) ?? true {
                try txn.setReplicaRecord(nil, forKey: record.key)
            }
        }
    }

    /// Counts pending commits the primary made and those the applier rejected, and tells
    /// ``Configuration/onEvent`` of the rejected ones.
    fileprivate func noteSettled(made: Int, rejected records: [RejectedRecord]) {
        counters.withLock {
            $0.pendingCommitsMade += made
            $0.rejectedCommits += records.count
        }
        guard let onEvent = configuration.onEvent else { return }
        for record in records {
            do {
                onEvent(.commitRejected(try RejectedCommit(record)))
            } catch {
                // Kept all the same: rejectedCommits() throws the same error for it.
                noteFailure(error, while: .sendingPendingCommits)
            }
        }
    }

    /// Whether the sender of pending commits runs, and whether it was asked to run again.
    private struct PendingSender: Sendable {
        var running = false
        var again = false
    }

    private let pendingSender = Mutex(PendingSender())

    /// Starts sending the pending commits unless it is under way (then it looks again once done).
    func sendPendingCommitsIfAny() {
        let starts = pendingSender.withLock { sender in
            if sender.running {
                sender.again = true
                return false
            }
            sender.running = true
            sender.again = false
            return true
        }
        guard starts else { return }
        Task {
            while true {
                await self.sendPendingCommits()
                let again = self.pendingSender.withLock { sender in
                    defer { sender.again = false }
                    if !sender.again { sender.running = false }
                    return sender.again
                }
                if !again { return }
            }
        }
    }

    /// Sends the pending commits to the primary, one at a time and in order, until none is
    /// left or the primary cannot be reached (the follower's next poll, the next write or
    /// ``catchUp()`` tries again).
    ///
    /// Each round first brings the replica up to the primary, which takes the pending commits
    /// off, applies the primary's commits beneath them and puts back those that still hold
    /// (``ReplicaApplier``): the first is then checked through the primary's last commit, and
    /// is sent on top of it with the token it was written with. Made, it is dropped from the
    /// pending ones when the replica applies it; refused, the next round rejects it.
    private func sendPendingCommits() async {
        var refused: (token: String, times: Int)?
        while true {
            if await applier.divergence != nil { return }
            do {
                try await applier.catchUp()
            } catch {
                noteFailure(error, while: .sendingPendingCommits)
                return
            }
            let next: ([PendingCommit], ReplicaState?)
            do {
                next = try await database.read { txn in (try txn.pendingCommits(), try txn.replicaState()) }
            } catch {
                noteFailure(error, while: .sendingPendingCommits)
                return
            }
            let (pending, state) = next
            guard !pending.isEmpty else { return }
            // The next ones in order, all checked through the replica's position: chained, so
            // that the primary checks each against the commits of others only.
            var batch: [PendingCommit] = []
            var bytes = 0
            for commit in pending {
                let size = commit.commit.payloadSize
                guard batch.count < Self.batchLimit, batch.isEmpty || bytes + size <= Self.batchBytes else { break }
                batch.append(commit)
                bytes += size
            }
            let requests = batch.map { commit in
                PrimaryClient.CommitRequest(commit: commit.commit, reads: commit.reads, position: commit.base,
                                            positionToken: commit.base == state?.position ? state?.token : nil,
                                            token: commit.token, chained: true)
            }
            counters.withLock {
                $0.batches += 1
                $0.largestBatch = max($0.largestBatch, requests.count)
            }
            let results = await writer.commit(requests)
            var made: [ReplicaApplier.OwnCommit] = []
            for (commit, result) in zip(batch, results) {
                if case .success(.committed(let number, let token)) = result { made.append((number, commit.commit, token)) }
            }
            if !made.isEmpty {
                await showOwnCommits(made)
                let now = Date()
                counters.withLock {
                    $0.commits += made.count
                    $0.lastPrimaryContact = now
                }
            }
            switch results.first {
            case .success(.conflict)?, .success(.behind)?:
                // The next round's catch-up rejects it, having found what it conflicts with.
                // The replica's check mirrors the primary's; should the primary still refuse it,
                // it is rejected all the same.
                let first = batch[0].token
                let times = refused?.token == first ? (refused?.times ?? 0) + 1 : 1
                refused = (first, times)
                if times >= 3 {
                    do {
                        try await applier.reject(pendingToken: first)
                    } catch {
                        noteFailure(error, while: .sendingPendingCommits)
                        return
                    }
                }
            case .failure(let error)?:
                if error.code == .replicaMismatch {
                    await applier.stop(error)
                }
                noteFailure(error, while: .sendingPendingCommits)
                return
            default:
                break
            }
        }
    }

    // MARK: Sending commits together

    /// The commits waiting to be sent, and whether a batch is on the wire.
    private struct Outbox: Sendable {
        var waiting: [(request: PrimaryClient.CommitRequest, reply: CheckedContinuation<Sent, Never>)] = []
        var sending = false
    }

    /// What became of a commit sent to the primary: its answer and, for a made commit, the task
    /// that shows it on the replica (with the others of its batch).
    private struct Sent: Sendable {
        var outcome: Result<PrimaryClient.CommitOutcome, LarderError>
        var shown: Task<Void, Never>?
    }

    /// The most commits sent in one batch, and the most bytes of values (a commit bigger than
    /// that goes alone).
    private static let batchLimit = 64
    private static let batchBytes = 8 << 20

    /// Sends `request` to the primary with the others that writers of this replica send while a
    /// batch is on the wire (group commit across the wire): while one batch is out, the commits
    /// that arrive wait, and go together, in one round trip and one transaction of the
    /// primary, when it is back. A lone writer's commit goes at once. Each commit is still
    /// checked on its own (``PrimaryClient/commit(_:)``).
    private func send(_ request: PrimaryClient.CommitRequest) async -> Sent {
        await withCheckedContinuation { reply in
            let starts = outbox.withLock { outbox in
                outbox.waiting.append((request, reply))
                defer { outbox.sending = true }
                return !outbox.sending
            }
            if starts { Task { await self.sendBatches() } }
        }
    }

    /// Sends the waiting commits, a batch at a time, until none is left. The commits a batch made
    /// are shown on the replica by a task of their own (one local transaction), while the next
    /// batch is on the wire; their writers wait for it.
    private func sendBatches() async {
        while true {
            let batch = outbox.withLock { outbox in
                var bytes = 0
                var count = 0
                for entry in outbox.waiting {
                    let size = entry.request.commit.payloadSize
                    guard count < Self.batchLimit, count == 0 || bytes + size <= Self.batchBytes else { break }
                    bytes += size
                    count += 1
                }
                defer {
                    outbox.waiting.removeFirst(count)
                    if count == 0 { outbox.sending = false }
                }
                return Array(outbox.waiting.prefix(count))
            }
            guard !batch.isEmpty else { return }
            counters.withLock {
                $0.batches += 1
                $0.largestBatch = max($0.largestBatch, batch.count)
            }
            let results = await writer.commit(batch.map(\.request))
            var made: [ReplicaApplier.OwnCommit] = []
            for (entry, result) in zip(batch, results) {
                if case .success(.committed(let number, let token)) = result { made.append((number, entry.request.commit, token)) }
            }
            let shown = made.isEmpty ? nil : Task { await self.showOwnCommits(made) }
            for (entry, result) in zip(batch, results) {
                entry.reply.resume(returning: Sent(outcome: result, shown: shown))
            }
        }
    }

    /// Brings the replica to its own commits `made`, which the primary has made. Applying them
    /// can need the commits before them, fetched from the primary; when that fails (the primary
    /// went away just after it committed), the writes have still been made, and must not look
    /// as if they had not: their writers return, the failure is noted (``lastFollowError``, an
    /// event), and the replica shows them once it reaches the primary again. Tries a few times
    /// first, for up to one request timeout, so that the writers read their writes in all but
    /// that case.
    private func showOwnCommits(_ made: [ReplicaApplier.OwnCommit]) async {
        let giveUp = ContinuousClock.now + primary.requestTimeout
        var pause = Duration.milliseconds(20)
        while true {
            do {
                try await applier.catchUp(through: made.map(\.number).max(), own: made)
                return
            } catch {
                noteFailure(error, while: .following)
                let code = (error as? LarderError)?.code
                guard code == .primaryUnavailable, ContinuousClock.now + pause < giveUp else { return }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .milliseconds(500))
            }
        }
    }

    /// Every so many commits, the writer trims the primary's log to ``Configuration/retainedCommits``.
    private func trimLog(after number: UInt64) async {
        let retained = UInt64(max(1, configuration.retainedCommits))
        let step = max(1, min(retained / 4, 1024))
        guard number > retained, number % step == 0 else { return }
        do {
            try await writer.prune(before: number - retained + 1)
        } catch {
            noteFailure(error, while: .trimmingLog)
        }
    }

    // MARK: Following

    private func startFollowing() {
        // What wakes the follower: a commit number from a notification, or nil (a poll, a new
        // connection): catch up to that commit, or to whatever the primary has.
        let wakes = AsyncStream<UInt64?>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let channel = listener.sql.channel
        let listener = self.listener
        let primary = self.primary
        let interval = configuration.pollInterval
        let task = Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                if primary.notifies {
                    group.addTask {
                        await Self.listen(with: listener, channel: channel, wake: wakes.continuation) { [weak self] error in
                            self?.noteFailure(PrimaryClient.failure(error, operation: "listen", configuration: primary), while: .listening)
                        }
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        wakes.continuation.yield(nil)
                    }
                }
                for await commit in wakes.stream {
                    guard let self, !Task.isCancelled else { break }
                    // A commit this replica made is applied by its write, usually before the
                    // notification comes: then there is nothing to fetch.
                    do {
                        if let commit {
                            self.counters.withLock { $0.primaryPosition = max($0.primaryPosition, commit) }
                            try await self.applier.catchUp(through: commit)
                            self.lastError.withLock { $0 = nil }
                            await self.noteProgress()
                        } else {
                            try await self.catchUp()
                        }
                    } catch {
                        // catchUp() noted its own failure.
                        if commit != nil { self.noteFailure(error, while: .following) }
                    }
                }
                group.cancelAll()
            }
        }
        following.withLock { $0 = Following(task: task, wakes: wakes.continuation) }
    }

    /// Listens for the primary's commit notifications on a connection of its own, connecting
    /// again (after a pause) whenever the connection breaks. Tells `failed` of the first failure
    /// after each connection made (not of every attempt while the primary is away: the polls
    /// say that already).
    private static func listen(with client: PrimaryClient, channel: String, wake: AsyncStream<UInt64?>.Continuation,
                               failed: @Sendable (any Error) -> Void) async {
        var told = false
        while !Task.isCancelled {
            do {
                let connection = try await client.connected()
                told = false
                wake.yield(nil)  // commits made while it was not listening
                // Cancelled (the replica closes): the connection is closed, which ends the
                // notifications, even one made after close() closed the client's last one.
                try await withTaskCancellationHandler {
                    try Task.checkCancellation()
                    try await connection.listen(on: channel) { notifications in
                        for try await notification in notifications { wake.yield(UInt64(notification.payload)) }
                    }
                } onCancel: {
                    let closing: EventLoopFuture<Void> = connection.close()
                    closing.whenComplete { _ in }
                }
            } catch {
                if !told, !Task.isCancelled {
                    told = true
                    failed(error)
                }
                await client.close()
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        await client.close()
    }

    /// Stops following the primary, closes the connections and the store.
    public func close() async {
        let following = following.withLock { following in
            defer { following = nil }
            return following
        }
        // The connections close for good first: a statement in flight fails, and none is made
        // again, so nothing the follower does can keep it from ending; cancelling it ends its
        // wait for notifications.
        // The connections close for good first: a statement in flight fails, and none is made
        // again, so nothing the follower does can keep it from ending; cancelling it ends its
        // wait for notifications. Neither close is waited for, and the follower is waited for a
        // few seconds at most: a connection PostgresNIO cannot close at once (a LISTEN being set
        // up) must not keep the replica from closing.
        let listener = self.listener, follower = self.follower
        Task { await listener.close(finally: true) }
        Task { await follower.close(finally: true) }
        if let following {
            following.task.cancel()
            following.wakes.finish()
            await Self.wait(for: following.task, atMost: .seconds(5))
        }
        await writer.close(finally: true)
        await database.close()
    }

    /// Waits until `task` ends or `limit` has passed, whichever comes first.
    private static func wait(for task: Task<Void, Never>, atMost limit: Duration) async {
        let resume = ResumeOnce()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            resume.continuation.withLock { $0 = continuation }
            Task {
                await task.value
                resume.resume()
            }
            Task {
                try? await Task.sleep(for: limit)
                resume.resume()
            }
        }
    }

    /// A continuation resumed by the first of several callers.
    private final class ResumeOnce: Sendable {
        let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)

        func resume() {
            continuation.withLock { $0.take() }?.resume()
        }
    }

    /// The task that follows the primary, and what wakes it.
    private struct Following: Sendable {
        var task: Task<Void, Never>
        var wakes: AsyncStream<UInt64?>.Continuation
    }

    /// What a write's closure did on the replica, before the primary saw it.
    private struct Rehearsal<R: Sendable>: Sendable {
        var value: R
        var commit: ReplicatedCommit?
        var reads: ReadSet
        var position: UInt64
        var token: String?
        /// The replica's last pending commit when the closure ran.
        var lastPending: UInt64?
    }

    /// Passes what the applier settles of the pending commits to the replica (made before it).
    private final class RejectionRelay: Sendable {
        let handler = Mutex<(@Sendable (Int, [RejectedRecord]) -> Void)?>(nil)

        func tell(made: Int, rejected: [RejectedRecord]) {
            handler.withLock { $0 }?(made, rejected)
        }
    }
}
#endif
