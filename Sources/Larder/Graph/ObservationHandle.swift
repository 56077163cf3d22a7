import Synchronization

/// Keeps a callback observation running; ``cancel()`` or releasing the handle stops it.
public final class ObservationHandle: Sendable {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) {
        self.task = task
    }

    /// Stops the observation.
    public func cancel() {
        task.cancel()
    }

    deinit { task.cancel() }
}
