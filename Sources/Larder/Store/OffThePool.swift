import Dispatch

/// Runs `body` on a thread of its own (a global dispatch queue of the quality of service
/// `priority` asks for), not on Swift's cooperative pool, and returns its result to the awaiting
/// task: for long blocking work (a registration that builds a view over a million objects, a
/// migration) that would otherwise hold a pool thread for its whole length.
///
/// The work is not cancelled with the awaiting task: it is one or more transactions that run to
/// their end, as their synchronous forms would.
func runOffThePool<R: Sendable>(priority: TaskPriority, _ body: @escaping @Sendable () throws -> R) async throws -> R {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
        DispatchQueue.global(qos: priority.qualityOfService).async {
            continuation.resume(with: Result { try body() })
        }
    }
}

extension TaskPriority {
    /// The dispatch quality of service of this priority.
    var qualityOfService: DispatchQoS.QoSClass {
        if self >= .high { return .userInitiated }
        if self >= .medium { return .default }
        if self >= .low { return .utility }
        return .background
    }
}
