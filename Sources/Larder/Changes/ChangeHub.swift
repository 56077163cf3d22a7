import Dispatch
import Synchronization

/// The changesets of one store in this process, in commit order: it keeps the recent ones (so
/// connections catch up without reading the log) and delivers each, once, to every subscriber.
///
/// Commits of this process are published by the writer right after they commit; commits of other
/// processes are found by ``catchUp(_:to:)``, which every write and every read that sees a new
/// commit calls, and which a timer calls while there are subscribers.
final class ChangeHub: Sendable {
    /// How many recent changesets are kept in memory.
    static let recentLimit = 128
    /// Changesets listing more indexes than this are not kept in memory (a bulk import's would
    /// hold a lot); whoever needs one reads it from the log.
    static let recentEntryLimit = 4096

    private struct State {
        var recent: [UInt64: Changeset] = [:]
        /// Every commit below it has left ``recent``.
        var recentFloor: UInt64 = 0
        /// The last commit delivered to subscribers (or skipped while there were none).
        var lastPublished: UInt64 = 0
        var subscribers: [ObjectIdentifier: ChangeSubscription] = [:]
        var poller: DispatchSourceTimer?
        var lastPolledID = -1
    }

    private let state = Mutex(State())
    /// `lastPublished`, readable without the lock (every transaction checks it).
    private let published = Atomic<UInt64>(0)
    /// How often the poller looks for other processes' commits.
    private let pollInterval: Duration

    init(pollInterval: Duration) {
        self.pollInterval = pollInterval
    }

    func start(at commit: UInt64) {
        state.withLock { setLastPublished(commit, in: &$0) }
    }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// The last commit delivered to subscribers, or skipped while there were none (for tests).
    var lastPublishedCommit: UInt64 { published.load(ordering: .acquiring) }

    /// The commits of the changesets kept in memory (for tests).
    var recentCommits: [UInt64] { state.withLock { $0.recent.keys.sorted() } }

    /// A recent changeset of this process, if still kept.
    func recentChangeset(_ number: UInt64) -> Changeset? {
        state.withLock { $0.recent[number] }
    }

    /// The changesets after `after` through `through`, from memory or the log; `nil` when some
    /// are no longer known.
    func changesets(after: UInt64, through: UInt64, in lmdb: LMDBTransaction) throws -> [Changeset]? {
        try ChangeLog.changesets(after: after, through: through, in: lmdb, recent: recentChangeset)
    }

    // MARK: Publishing

    /// Publishes a commit of this process; called after it committed.
    func publish(_ changeset: Changeset) {
        state.withLock { state in
            remember(changeset, in: &state)
            guard changeset.commits.lowerBound == state.lastPublished + 1 else { return }  // already found in the log
            deliver(changeset, in: &state)
        }
    }

    /// Publishes the commits after the last published one through `commit`, which `lmdb` sees,
    /// reading them from the log. Commits the log no longer has become one reset.
    func catchUp(_ lmdb: LMDBTransaction, to commit: UInt64) {
        guard commit > published.load(ordering: .acquiring) else { return }
        state.withLock { state in
            guard commit > state.lastPublished else { return }
            guard !state.subscribers.isEmpty else {
                setLastPublished(commit, in: &state)
                return
            }
            for number in (state.lastPublished + 1)...commit {
                // A log entry that cannot be read is as good as gone: the subscribers are told to reload.
                guard let changeset = state.recent[number] ?? (try? ChangeLog.changeset(number, in: lmdb)) else {
                    deliver(.reset(after: state.lastPublished, upTo: commit), in: &state)
                    return
                }
                remember(changeset, in: &state)
                deliver(changeset, in: &state)
            }
        }
    }

    /// Keeps `changeset` among the recent ones, which are the last ``recentLimit`` commits
    /// (those above ``State/recentFloor``).
    ///
    /// Commits arrive in order, so the window moves by one: only the entry that fell out of it
    /// is removed, not the whole dictionary rebuilt on every commit.
    private func remember(_ changeset: Changeset, in state: inout State) {
        let limit = UInt64(Self.recentLimit)
        let floor = changeset.commit >= limit ? changeset.commit - limit + 1 : 0
        if floor > state.recentFloor {
            if floor - state.recentFloor > UInt64(state.recent.count) {
                // A long jump (commits of other processes nobody read): filtering is cheaper.
                state.recent = state.recent.filter { $0.key >= floor }
            } else {
                for number in state.recentFloor..<floor { state.recent.removeValue(forKey: number) }
            }
            state.recentFloor = floor
        }
        guard changeset.commit >= state.recentFloor, changeset.entryCount <= Self.recentEntryLimit else { return }
        state.recent[changeset.commit] = changeset
    }

    private func deliver(_ changeset: Changeset, in state: inout State) {
        setLastPublished(changeset.commit, in: &state)
        for subscriber in state.subscribers.values { subscriber.receive(changeset) }
    }

    private func setLastPublished(_ commit: UInt64, in state: inout State) {
        state.lastPublished = commit
        published.store(commit, ordering: .releasing)
    }

    // MARK: Subscribers

    /// Adds `subscription`; starts polling for other processes' commits with the first one.
    func subscribe(_ subscription: ChangeSubscription, environment: Environment) {
        state.withLock { state in
            state.subscribers[ObjectIdentifier(subscription)] = subscription
            if state.poller == nil { state.poller = startPolling(environment) }
        }
    }

    func unsubscribe(_ subscription: ChangeSubscription) {
        state.withLock { state in
            state.subscribers[ObjectIdentifier(subscription)] = nil
            if state.subscribers.isEmpty, let poller = state.poller {
                poller.cancel()
                state.poller = nil
            }
        }
    }

    private func startPolling(_ environment: Environment) -> DispatchSourceTimer {
        let interval = pollInterval.components
        let nanoseconds = max(1_000_000, interval.seconds * 1_000_000_000 + interval.attoseconds / 1_000_000_000)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)), repeating: .nanoseconds(Int(nanoseconds)))
        timer.setEventHandler { [weak self, weak environment] in
            guard let self, let environment else { return }
            environment.whileOpen { self.poll(environment) }
        }
        timer.resume()
        return timer
    }

    func stopPolling() {
        state.withLock { state in
            state.poller?.cancel()
            state.poller = nil
        }
    }

    /// Looks for commits of other processes: reads the file's last transaction id, and when it
    /// moved, the last commit number and the log. Also the body of
    /// ``Database/checkForExternalChanges()``.
    func poll(_ environment: Environment) {
        let id = environment.lastTransactionID()
        guard state.withLock({ id != $0.lastPolledID }) else { return }
        do {
            let handle = try environment.beginRead()
            defer { environment.endRead(handle) }
            let lmdb = LMDBTransaction(handle: handle, environment: environment, attempt: nil)
            catchUp(lmdb, to: try ChangeLog.lastCommit(lmdb))
            state.withLock { $0.lastPolledID = lmdb.id }
        } catch {
            // The next poll tries again (a read can fail only for want of a reader slot or a
            // damaged store, which every other read then reports).
        }
    }
}
