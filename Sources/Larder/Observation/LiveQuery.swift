import Observation

/// The result of a read kept current, as an `@Observable` object: its ``value`` follows
/// `observe { txn in … }` (see ``ReadObservation``), set on the actor the query was made on, so
/// that SwiftUI views (and anything that tracks Observation) redraw when it changes.
///
/// ```swift
/// @MainActor final class NotesModel {
///     let count: LiveQuery<Int>
///     init(db: Database) {
///         count = db.liveQuery(initial: 0) { txn in try txn.numberOfKeys(inCollection: "notes") }
///     }
/// }
/// ```
///
/// Read ``value`` and ``error`` on that actor (the main actor for a user interface): they are
/// set there. The query stops when it is released or ``stop()`` is called; when a read throws,
/// ``error`` holds the error and ``value`` keeps the last result.
@Observable
public final class LiveQuery<Value: Sendable>: @unchecked Sendable {
    // Only the actor the query was made on sets `value` and `error` (the task below runs there);
    // the registrar the macro adds is itself thread-safe.

    /// The read's latest result (`initial` until the first read returns).
    public private(set) var value: Value
    /// The error that ended the query, if a read threw.
    public private(set) var error: (any Error)?

    @ObservationIgnored private var task: Task<Void, Never>?

    init(initial: Value) {
        value = initial
    }

    /// Starts following `observation`, setting ``value`` on `actor`.
    func start(_ observation: ReadObservation<Value>, isolation actor: isolated (any Actor)?) {
        task = Task { [weak self, actor] in
            _ = actor  // the task runs on the actor the query was made on
            do {
                for try await value in observation {
                    guard let self else { return }
                    self.value = value
                }
            } catch {
                self?.error = error
            }
        }
    }

    /// Stops following the store: ``value`` keeps its last result.
    public func stop() {
        task?.cancel()
    }

    deinit { task?.cancel() }
}

extension DatabaseAccess {
    /// The result of `read` as an `@Observable` ``LiveQuery``, `initial` until the first read
    /// returns, then each new result (`observe { txn in … }`), set on the calling actor (the main
    /// actor, called from a view model).
    public func liveQuery<Value: Equatable & Sendable>(
        initial: Value, isolation actor: isolated (any Actor)? = #isolation, _ read: @escaping @Sendable (ReadTransaction) throws -> Value
    ) -> LiveQuery<Value> {
        let query = LiveQuery(initial: initial)
        query.start(observe(read), isolation: actor)
        return query
    }
}
