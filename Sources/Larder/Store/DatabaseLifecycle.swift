import Synchronization

/// Whether a ``Database`` is open, and how many of its operations are in flight, so that
/// ``Database/close()-1m8tz`` can refuse new ones, let those running finish, and release the store
/// exactly once when the last of them ends.
///
/// Entering and leaving are one atomic addition each; no lock is taken while the database is
/// open. The lock below is only for closing, where something waits.
final class DatabaseLifecycle: Sendable {
    /// Operations in flight times two, plus one once the database is closed.
    private let word = Atomic<Int>(0)

    private struct Release {
        var claimed = false
        var done = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// A condition lock, as ``waitUntilReleased()`` waits for the release.
    private let release = ConditionLock(Release())

    /// The caches of the connections made from the database, so that closing can end their pinned
    /// snapshots; held weakly (a connection released meanwhile has ended its own).
    private let connectionCores = Mutex<[WeakCore]>([])

    private struct WeakCore {
        weak var core: ConnectionCore?
    }

    var isClosed: Bool { word.load(ordering: .acquiring) & 1 != 0 }

    /// Counts an operation in; `false` when the database is closed (the caller must still call
    /// ``leave()``, which may find it the one to release the store).
    @inline(__always)
    func enter() -> Bool {
        word.wrappingAdd(2, ordering: .acquiring).newValue & 1 == 0
    }

    /// Counts an operation out; `true` when it was the last one of a closed database, so the
    /// caller must release the store.
    @inline(__always)
    func leave() -> Bool {
        word.wrappingSubtract(2, ordering: .acquiringAndReleasing).newValue == 1
    }

    /// Marks the database closed; `true` when nothing is in flight, so the caller must release
    /// the store now (otherwise the last operation to leave does).
    func markClosed() -> Bool {
        word.bitwiseOr(1, ordering: .acquiringAndReleasing).oldValue == 0
    }

    /// `true` for the one caller that is to release the store.
    func claimRelease() -> Bool {
        release.withLock { state in
            if state.claimed { return false }
            state.claimed = true
            return true
        }
    }

    /// Records that the store was released and wakes whoever waits for it.
    func finishRelease() {
        let waiters = release.withLock { state in
            state.done = true
            let waiters = state.waiters
            state.waiters = []
            return waiters
        }
        release.broadcast()
        for waiter in waiters { waiter.resume() }
    }

    /// Blocks the calling thread until the store is released.
    func waitUntilReleased() {
        release.withLock(when: { $0.done }) { _ in }
    }

    /// Suspends the calling task until the store is released.
    func released() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = release.withLock { state in
                if state.done { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    func add(_ core: ConnectionCore) {
        connectionCores.withLock { cores in
            cores.removeAll { $0.core == nil }
            cores.append(WeakCore(core: core))
        }
    }

    /// The connections' caches still alive.
    func liveCores() -> [ConnectionCore] {
        connectionCores.withLock { $0.compactMap(\.core) }
    }
}
