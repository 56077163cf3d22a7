import CLMDB
import Dispatch
import Synchronization

/// The background flush of ``Durability/deferred(interval:)``.
///
/// The environment runs with `MDB_NOMETASYNC`: each commit flushes its data pages (and with them
/// the previous commit's meta page) before it returns, and leaves its own meta page unflushed.
/// Every `interval` this timer flushes that last meta page if a commit happened since its last
/// flush, so a power loss takes back at most the newest commit, and only within `interval` of it.
///
/// A flush that fails is not dropped: the first failure is kept and thrown once, by the next
/// write or ``Environment/sync()`` (whichever comes first); see ``takePendingError()``.
final class SyncTimer: @unchecked Sendable {  // a dispatch source is thread-safe (not marked so); the rest lives in the Mutex
    private struct State {
        /// The newest transaction id this timer has flushed (or found flushed).
        var flushedTransaction = -1
        /// The first failed flush not yet reported to a caller.
        var pendingError: LarderError?
    }

    private let timer: DispatchSourceTimer
    private let state = Mutex(State())

    /// Starts flushing every `interval` (at least every millisecond). `flush` runs on a utility
    /// queue; it receives the newest transaction id, and returns the error of a failed flush.
    init(interval: Duration, lastTransaction: @escaping @Sendable () -> Int, flush: @escaping @Sendable () -> LarderError?) {
        let parts = interval.components
        let nanoseconds = max(1_000_000, parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000)
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)), repeating: .nanoseconds(Int(nanoseconds)))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let newest = lastTransaction()
            guard self.state.withLock({ $0.flushedTransaction != newest }) else { return }
            let failure = flush()
            self.state.withLock { state in
                if let failure {
                    if state.pendingError == nil { state.pendingError = failure }
                } else {
                    state.flushedTransaction = newest
                }
            }
        }
        timer.resume()
    }

    /// Returns the first failed background flush not yet reported, and forgets it.
    func takePendingError() -> LarderError? {
        state.withLock { state in
            defer { state.pendingError = nil }
            return state.pendingError
        }
    }

    /// Stops the timer (a handler already running may still finish).
    func cancel() {
        timer.cancel()
    }
}
