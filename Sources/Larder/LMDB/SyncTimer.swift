internal import CLMDB
import Dispatch
import Synchronization

/// The background flush of ``EnvironmentOptions/SyncMode/deferred(interval:)``.
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
        /// The newest transaction id this timer has flushed.
        var flushedTransaction: Int?
        /// The first failed flush not yet reported to a caller.
        var pendingError: LarderError?
    }

    private let timer: DispatchSourceTimer
    private let state = Mutex(State())

    /// Starts flushing `environment` every `interval` (at least every millisecond), on a utility
    /// queue, until cancelled or until the environment closes.
    init(interval: Duration, environment: Environment) {
        let parts = interval.components
        let nanoseconds = max(1_000_000, parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000)
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)), repeating: .nanoseconds(Int(nanoseconds)))
        timer.setEventHandler { [weak self, weak environment] in
            guard let self, let environment else { return }
            self.flushIfNeeded(environment)
        }
        timer.resume()
    }

    /// Flushes when a commit happened since the last flush. Runs with the environment kept open
    /// (cancelling the timer does not wait for a running handler, so it may race the close).
    private func flushIfNeeded(_ environment: Environment) {
        environment.whileOpen {
            let newest = environment.lastTransactionID()
            guard state.withLock({ $0.flushedTransaction != newest }) else { return }
            let rc = mdb_env_sync(environment.handle, 1)
            state.withLock { state in
                if rc == MDB_SUCCESS {
                    state.flushedTransaction = newest
                } else if state.pendingError == nil {
                    let cause = LMDBResult.error(rc, operation: "background sync", path: environment.path)
                    state.pendingError = LarderError(
                        cause.code,
                        "a background flush of earlier commits failed, so they may not survive a power loss (\(cause.message))",
                        operation: "background sync", path: environment.path, lmdbCode: rc)
                }
            }
        }
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
