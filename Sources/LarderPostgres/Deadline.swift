#if Extras
import Synchronization

/// An exchange with the primary that did not end within its deadline: the server is stopped,
/// frozen or cut off, or a connection PostgresNIO left waiting for an answer that will not come.
struct DeadlinePassed: Error, CustomStringConvertible {
    var limit: Duration
    var description: String { "no answer within \(limit)" }
}

/// Runs work that waits on the network with a deadline the work cannot hold up.
///
/// A task group would wait for the work to end even after the deadline (PostgresNIO does not
/// end a query when its task is cancelled), so the work runs in a task of its own, and the
/// caller resumes with whichever comes first: the work's outcome or the deadline. Work that
/// ends after its deadline is given to `late` (a connection made too late is closed there).
enum Deadline {
    static func run<T: Sendable>(
        _ limit: Duration, late: @escaping @Sendable (T) -> Void = { _ in },
        _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = FirstOutcome<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                outcome.wait(continuation)
                let timer = Task {
                    try await Task.sleep(for: limit)
                    outcome.settle(.failure(DeadlinePassed(limit: limit)))
                }
                Task {
                    let result: Result<T, any Error>
                    do { result = .success(try await work()) } catch { result = .failure(error) }
                    timer.cancel()
                    if !outcome.settle(result), case .success(let value) = result { late(value) }
                }
            }
        } onCancel: {
            outcome.settle(.failure(CancellationError()))
        }
    }

    /// The continuation of a ``run(_:late:_:)``, resumed by whichever outcome comes first.
    private final class FirstOutcome<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            /// An outcome that came before the continuation was stored (cancellation can).
            var early: Result<T, any Error>?
            var settled = false
        }

        private let state = Mutex(State())

        func wait(_ continuation: CheckedContinuation<T, any Error>) {
            let early: Result<T, any Error>? = state.withLock { state in
                if let early = state.early { return early }
                state.continuation = continuation
                return nil
            }
            if let early { continuation.resume(with: early) }
        }

        /// Resumes the caller with `result` unless another outcome did; returns whether this one did.
        @discardableResult
        func settle(_ result: Result<T, any Error>) -> Bool {
            let continuation: CheckedContinuation<T, any Error>?? = state.withLock { state in
                guard !state.settled else { return .none }
                state.settled = true
                if let continuation = state.continuation {
                    state.continuation = nil
                    return .some(continuation)
                }
                state.early = result
                return .some(nil)
            }
            guard case .some(let waiting) = continuation else { return false }
            waiting?.resume(with: result)
            return true
        }
    }
}
#endif
