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

    private func remember(_ changeset: Changeset, in state: inout State) {
        guard changeset.entryCount <= Self.recentEntryLimit else { return }
        state.recent[changeset.commit] = changeset
        if state.recent.count > Self.recentLimit, changeset.commit >= UInt64(Self.recentLimit) {
            state.recent = state.recent.filter { $0.key > changeset.commit - UInt64(Self.recentLimit) }
        }
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

/// One observer's queue of changesets: filled by the hub, drained by an async iterator.
///
/// Slow consumers never hold up writers, and what waits for them stays bounded whatever the number
/// of commits:
/// - when more than ``bufferLimit`` changesets, or more than ``byteLimit`` bytes of them
///   (``Changeset/footprint``), wait, they are merged into one that covers them all
///   (``Changeset/commits`` says which): index changes are netted per index, so they take the
///   room of the distinct indexes changed;
/// - when the merged changeset is still over ``byteLimit``, the extensions' itemized changes
///   (a view's row moves, one list per commit) are dropped first: each such extension reports a
///   reset for those commits (``Changeset/droppedExtensionChanges``);
/// - when it is still over ``byteLimit``, or lists more than ``entryLimit`` indexes, it becomes a
///   reset covering the commits (``Changeset/isReset``): "reload everything".
/// Nothing is lost silently: a change is either in the merged changeset or signalled by a reset.
final class ChangeSubscription: Sendable {
    /// How many changesets may wait before they are merged.
    static let bufferLimit = 64
    /// How many bytes (``Changeset/footprint``) the waiting changesets may hold.
    static let byteLimit = 256 * 1024
    /// How many indexes a merged changeset may list before it becomes a reset.
    static let entryLimit = 4096

    fileprivate struct State {
        var buffer: [Changeset] = []
        /// The sum of the buffered changesets' footprints.
        var bufferedBytes = 0
        var waiter: CheckedContinuation<Changeset?, Never>?
        var finished = false
    }

    private let state = Mutex(State())
    private let collection: String?
    /// Whether the consumer reads the extensions' changes and the commit information; when not,
    /// they are dropped on arrival.
    private let keepsDetails: Bool
    private weak let hub: ChangeHub?

    init(collection: String?, keepsDetails: Bool = true, hub: ChangeHub) {
        self.collection = collection
        self.keepsDetails = keepsDetails
        self.hub = hub
    }

    var bufferedCount: Int { state.withLock { $0.buffer.count } }

    /// What the buffer holds, by ``Changeset/footprint`` (for tests and diagnostics).
    var bufferedFootprint: Int { state.withLock { $0.bufferedBytes } }

    /// How many index changes the buffer lists (for tests and diagnostics).
    var bufferedEntryCount: Int { state.withLock { $0.buffer.reduce(0) { $0 + $1.entryCount } } }

    /// Removes and returns what is buffered, without waiting (for tests).
    func takeBuffered() -> [Changeset] {
        state.withLock { state in
            defer {
                state.buffer.removeAll()
                state.bufferedBytes = 0
            }
            return state.buffer
        }
    }

    func receive(_ changeset: Changeset) {
        if let collection, !changeset.hasChange(inCollection: collection) { return }
        let changeset = keepsDetails ? changeset : changeset.indexChangesOnly()
        let waiter = state.withLock { state -> CheckedContinuation<Changeset?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.buffer.append(changeset)
            state.bufferedBytes += changeset.footprint
            if state.buffer.count > Self.bufferLimit || state.bufferedBytes > Self.byteLimit { state.mergeBuffer() }
            return nil
        }
        waiter?.resume(returning: changeset)
    }

    /// The next changeset, waiting for one; `nil` once cancelled.
    func next() async -> Changeset? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Changeset?, Never>) in
                // What to resume the continuation with at once; none when it now waits.
                let ready: Changeset?? = state.withLock { state in
                    if !state.buffer.isEmpty {
                        let first = state.buffer.removeFirst()
                        state.bufferedBytes = state.buffer.isEmpty ? 0 : state.bufferedBytes - first.footprint
                        return .some(first)
                    } else if state.finished {
                        return .some(nil)
                    } else {
                        state.waiter = continuation
                        return nil
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Ends the subscription: the waiting consumer gets `nil`, the buffer is released and the hub
    /// forgets it.
    func cancel() {
        let waiting = state.withLock { state in
            state.finished = true
            state.buffer.removeAll()
            state.bufferedBytes = 0
            defer { state.waiter = nil }
            return state.waiter
        }
        waiting?.resume(returning: nil)
        hub?.unsubscribe(self)
    }
}

extension ChangeSubscription.State {
    /// Merges the buffer into one changeset that fits the limits; under the lock.
    mutating func mergeBuffer() {
        // The first element is moved out, so merging into it copies nothing.
        var merged = buffer.removeFirst()
        for later in buffer { merged.merge(later) }
        buffer.removeAll()
        var bytes = merged.footprint
        if bytes > ChangeSubscription.byteLimit {
            merged = merged.droppingExtensionChanges()
            bytes = merged.footprint
        }
        if bytes > ChangeSubscription.byteLimit || merged.entryCount > ChangeSubscription.entryLimit {
            merged.becomeReset()
            bytes = merged.footprint
        }
        buffer = [merged]
        bufferedBytes = bytes
    }
}
