/// Holds off new transactions while the map is resized.
///
/// `mdb_env_set_mapsize` remaps the file, so no transaction of this process may be live while it
/// runs. Every transaction passes the gate for its whole life; a resize closes the gate, waits
/// for the live ones to end, resizes, and opens it again.
final class TransactionGate: Sendable {
    private struct State {
        var active = 0
        var closed = false
    }

    /// A condition lock, as threads wait: new transactions for the gate to open, a resize for
    /// the live transactions to end.
    private let lock = ConditionLock(State())

    /// Enters the gate, waiting while a resize is under way, unless this thread is already
    /// inside (a nested transaction must not wait for a resize that waits for its own thread).
    func enter(reentrant: Bool) {
        if reentrant {
            lock.withLock { $0.active += 1 }
        } else {
            lock.withLock(when: { !$0.closed }) { $0.active += 1 }
        }
    }

    func leave() {
        let lastOut = lock.withLock { state in
            state.active -= 1
            return state.active == 0 && state.closed
        }
        if lastOut { lock.broadcast() }
    }

    /// Runs `body` while no transaction is live in this process. Returns `false` without
    /// running it when another thread's resize was under way (the caller re-checks and retries).
    func exclusively(_ body: () throws -> Void) rethrows -> Bool {
        var another = false
        lock.withLock(when: { state in
            if state.closed { another = true }
            return !state.closed
        }) { state in
            if !another { state.closed = true }
        }
        if another { return false }
        lock.withLock(when: { $0.active == 0 }) { _ in }
        defer {
            lock.withLock { $0.closed = false }
            lock.broadcast()
        }
        try body()
        return true
    }
}
