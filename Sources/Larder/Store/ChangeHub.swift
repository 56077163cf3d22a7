import Dispatch
import Synchronization

/// The changesets of one store in this process, in commit order: it keeps the recent ones (so
/// connections catch up without reading the log) and delivers each, once, to every subscriber.
///
/// Commits of this process are published by the writer right after they commit; commits of other
/// processes are found by ``catchUp(_:to:)``, which every write and every read that sees a new
/// commit calls, and which a timer calls while there are subscribers.
final class ChangeHub: @unchecked Sendable {  // state guarded by `lock`
    /// How many recent changesets are kept in memory.
    static let recentLimit = 128
    /// Changesets listing more indexes than this are not kept in memory (a bulk import's would
    /// hold a lot); whoever needs one reads it from the log.
    static let recentEntryLimit = 4096

    private let lock = ConditionLock()
    private var recent: [UInt64: Changeset] = [:]
    /// The last commit delivered to subscribers (or skipped while there were none).
    private var lastPublished: UInt64 = 0 {
        didSet { published.store(lastPublished, ordering: .releasing) }
    }
    /// `lastPublished`, readable without the lock (every transaction checks it).
    private let published = Atomic<UInt64>(0)
    private var subscribers: [ObjectIdentifier: ChangeSubscription] = [:]
    private var poller: DispatchSourceTimer?
    private var lastPolledID = -1

    func start(at commit: UInt64) {
        lock.withLock { lastPublished = commit }
    }

    var subscriberCount: Int { lock.withLock { subscribers.count } }

    /// A recent changeset of this process, if still kept.
    func recentChangeset(_ number: UInt64) -> Changeset? {
        lock.withLock { recent[number] }
    }

    /// The changesets after `after` through `through`, from memory or the log; `nil` when some
    /// are no longer known.
    func changesets(after: UInt64, through: UInt64, in lmdb: LMDBTransaction) throws -> [Changeset]? {
        try ChangeLog.changesets(after: after, through: through, in: lmdb, recent: recentChangeset)
    }

    // MARK: Publishing

    /// Publishes a commit of this process; called after it committed.
    func publish(_ changeset: Changeset) {
        lock.withLock {
            remember(changeset)
            guard changeset.commits.lowerBound == lastPublished + 1 else { return }  // already found in the log
            deliver(changeset)
        }
    }

    /// Publishes the commits after the last published one through `commit`, which `lmdb` sees,
    /// reading them from the log. Commits the log no longer has become one reset.
    func catchUp(_ lmdb: LMDBTransaction, to commit: UInt64) {
        guard commit > published.load(ordering: .acquiring) else { return }
        lock.withLock {
            guard commit > lastPublished else { return }
            guard !subscribers.isEmpty else {
                lastPublished = commit
                return
            }
            for number in (lastPublished + 1)...commit {
                // A log entry that cannot be read is as good as gone: the subscribers are told to reload.
                guard let changeset = recent[number] ?? (try? ChangeLog.changeset(number, in: lmdb)) else {
                    deliver(.reset(after: lastPublished, upTo: commit))
                    return
                }
                remember(changeset)
                deliver(changeset)
            }
        }
    }

    private func remember(_ changeset: Changeset) {
        guard changeset.entryCount <= Self.recentEntryLimit else { return }
        recent[changeset.commit] = changeset
        if recent.count > Self.recentLimit, changeset.commit >= UInt64(Self.recentLimit) {
            recent = recent.filter { $0.key > changeset.commit - UInt64(Self.recentLimit) }
        }
    }

    private func deliver(_ changeset: Changeset) {
        lastPublished = changeset.commit
        for subscriber in subscribers.values { subscriber.receive(changeset) }
    }

    // MARK: Subscribers

    /// Adds `subscription`; starts polling for other processes' commits with the first one.
    func subscribe(_ subscription: ChangeSubscription, environment: Environment) {
        lock.withLock {
            subscribers[ObjectIdentifier(subscription)] = subscription
            if poller == nil { startPolling(environment) }
        }
    }

    func unsubscribe(_ subscription: ChangeSubscription) {
        lock.withLock {
            subscribers[ObjectIdentifier(subscription)] = nil
            if subscribers.isEmpty, let poller {
                poller.cancel()
                self.poller = nil
            }
        }
    }

    private func startPolling(_ environment: Environment) {
        let interval = environment.configuration.changePollInterval.components
        let nanoseconds = max(1_000_000, interval.seconds * 1_000_000_000 + interval.attoseconds / 1_000_000_000)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)), repeating: .nanoseconds(Int(nanoseconds)))
        timer.setEventHandler { [weak environment] in
            guard let environment else { return }
            environment.whileOpen { environment.changeHub.poll(environment) }
        }
        timer.resume()
        poller = timer
    }

    func stopPolling() {
        lock.withLock {
            poller?.cancel()
            poller = nil
        }
    }

    /// Looks for commits of other processes: reads the file's last transaction id, and when it
    /// moved, the last commit number and the log. Also the body of
    /// ``Database/checkForExternalChanges()``.
    func poll(_ environment: Environment) {
        let id = environment.lastTransactionID()
        guard lock.withLock({ id != lastPolledID }) else { return }
        do {
            let handle = try environment.beginRead()
            defer { environment.endRead(handle) }
            let lmdb = LMDBTransaction(handle: handle, environment: environment, attempt: nil)
            catchUp(lmdb, to: try ChangeLog.lastCommit(lmdb))
            lock.withLock { lastPolledID = lmdb.id }
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
final class ChangeSubscription: @unchecked Sendable {  // state guarded by `lock`
    /// How many changesets may wait before they are merged.
    static let bufferLimit = 64
    /// How many bytes (``Changeset/footprint``) the waiting changesets may hold.
    static let byteLimit = 256 * 1024
    /// How many indexes a merged changeset may list before it becomes a reset.
    static let entryLimit = 4096

    private let lock = ConditionLock()
    private var buffer: [Changeset] = []
    /// The sum of the buffered changesets' footprints.
    private var bufferedBytes = 0
    private var waiter: CheckedContinuation<Changeset?, Never>?
    private var finished = false
    private let collection: String?
    /// Whether the consumer reads the extensions' changes and the commit information; when not,
    /// they are dropped on arrival.
    private let keepsDetails: Bool
    private weak var hub: ChangeHub?

    init(collection: String?, keepsDetails: Bool = true, hub: ChangeHub) {
        self.collection = collection
        self.keepsDetails = keepsDetails
        self.hub = hub
    }

    var bufferedCount: Int { lock.withLock { buffer.count } }

    /// What the buffer holds, by ``Changeset/footprint`` (for tests and diagnostics).
    var bufferedFootprint: Int { lock.withLock { bufferedBytes } }

    /// How many index changes the buffer lists (for tests and diagnostics).
    var bufferedEntryCount: Int { lock.withLock { buffer.reduce(0) { $0 + $1.entryCount } } }

    /// Removes and returns what is buffered, without waiting (for tests).
    func takeBuffered() -> [Changeset] {
        lock.withLock {
            defer {
                buffer.removeAll()
                bufferedBytes = 0
            }
            return buffer
        }
    }

    func receive(_ changeset: Changeset) {
        if let collection, !changeset.hasChange(inCollection: collection) { return }
        let changeset = keepsDetails ? changeset : changeset.indexChangesOnly()
        lock.lock()
        guard !finished else {
            lock.unlock()
            return
        }
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume(returning: changeset)
            return
        }
        buffer.append(changeset)
        bufferedBytes += changeset.footprint
        if buffer.count > Self.bufferLimit || bufferedBytes > Self.byteLimit { mergeBuffer() }
        lock.unlock()
    }

    /// Merges the buffer into one changeset that fits the limits; under the lock.
    private func mergeBuffer() {
        // The first element is moved out, so merging into it copies nothing.
        var merged = buffer.removeFirst()
        for later in buffer { merged.merge(later) }
        buffer.removeAll()
        var bytes = merged.footprint
        if bytes > Self.byteLimit {
            merged = merged.droppingExtensionChanges()
            bytes = merged.footprint
        }
        if bytes > Self.byteLimit || merged.entryCount > Self.entryLimit {
            merged.becomeReset()
            bytes = merged.footprint
        }
        buffer = [merged]
        bufferedBytes = bytes
    }

    /// The next changeset, waiting for one; `nil` once cancelled.
    func next() async -> Changeset? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Changeset?, Never>) in
                lock.lock()
                if !buffer.isEmpty {
                    let first = buffer.removeFirst()
                    bufferedBytes = buffer.isEmpty ? 0 : bufferedBytes - first.footprint
                    lock.unlock()
                    continuation.resume(returning: first)
                } else if finished {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Ends the subscription: the waiting consumer gets `nil`, the buffer is released and the hub
    /// forgets it.
    func cancel() {
        lock.lock()
        finished = true
        buffer.removeAll()
        bufferedBytes = 0
        let waiting = waiter
        waiter = nil
        lock.unlock()
        waiting?.resume(returning: nil)
        hub?.unsubscribe(self)
    }
}
