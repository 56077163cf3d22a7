import Dispatch
import Synchronization

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
        var waiter: CheckedContinuation<Event, Never>?
        var finished = false
        /// Whether the consumer was poked (``poke()``) since it last looked.
        var poked = false
    }

    /// What a consumer waiting on the subscription wakes up to.
    enum Event {
        /// A commit's changeset (or several merged).
        case changeset(Changeset)
        /// The consumer's own code asked it to look again (``poke()``), no commit needed.
        case poke
        /// The subscription ended.
        case end
    }

    private let state = Mutex(State())
    private let collection: String?
    /// Which changesets to take besides `collection`'s test; `nil`: all.
    private let filter: ReadFilter?
    /// Whether the consumer reads the extensions' changes and the commit information; when not,
    /// they are dropped on arrival.
    private let keepsDetails: Bool
    private weak let hub: ChangeHub?

    init(collection: String?, filter: ReadFilter? = nil, keepsDetails: Bool = true, hub: ChangeHub) {
        self.collection = collection
        self.filter = filter
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
        if let filter, !filter.admits(changeset) { return }
        let changeset = keepsDetails ? changeset : changeset.indexChangesOnly()
        let waiter = state.withLock { state -> CheckedContinuation<Event, Never>? in
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
        waiter?.resume(returning: .changeset(changeset))
    }

    /// Wakes the consumer with ``Event/poke`` (at once if it waits, else at its next wait), as
    /// its own code asks it to look again: an observed view's window moved.
    func poke() {
        let waiter = state.withLock { state -> CheckedContinuation<Event, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.poked = true
            return nil
        }
        waiter?.resume(returning: .poke)
    }

    /// The next changeset, waiting for one; `nil` once cancelled. Pokes are not reported.
    func next() async -> Changeset? {
        while true {
            switch await nextEvent() {
            case .changeset(let changeset): return changeset
            case .poke: continue
            case .end: return nil
            }
        }
    }

    /// The next event, waiting for one: changesets in order, a poke before them.
    func nextEvent() async -> Event {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Event, Never>) in
                // What to resume the continuation with at once; none when it now waits.
                let ready: Event? = state.withLock { state in
                    if state.finished {
                        return .end
                    } else if state.poked {
                        state.poked = false
                        return .poke
                    } else if !state.buffer.isEmpty {
                        let first = state.buffer.removeFirst()
                        state.bufferedBytes = state.buffer.isEmpty ? 0 : state.bufferedBytes - first.footprint
                        return .changeset(first)
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
        waiting?.resume(returning: .end)
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
