/// Holds off new transactions while the map is resized.
///
/// `mdb_env_set_mapsize` remaps the file, so no transaction of this process may be live while it
/// runs. Every transaction passes the gate for its whole life; a resize closes the gate, waits
/// for the live ones to end, resizes, and opens it again.
final class TransactionGate: @unchecked Sendable {  // state guarded by `lock`
    private let lock = ConditionLock()
    private var active = 0
    private var closed = false

    /// Enters the gate, waiting while a resize is under way, unless this thread is already
    /// inside (a nested transaction must not wait for a resize that waits for its own thread).
    func enter(reentrant: Bool) {
        lock.lock()
        if !reentrant {
            while closed { lock.wait() }
        }
        active += 1
        lock.unlock()
    }

    func leave() {
        lock.lock()
        active -= 1
        if active == 0 && closed { lock.broadcast() }
        lock.unlock()
    }

    /// Runs `body` while no transaction is live in this process. Returns `false` without
    /// running it when another thread's resize was under way (the caller re-checks and retries).
    func exclusively(_ body: () throws -> Void) rethrows -> Bool {
        lock.lock()
        if closed {
            while closed { lock.wait() }
            lock.unlock()
            return false
        }
        closed = true
        while active > 0 { lock.wait() }
        lock.unlock()
        defer {
            lock.lock()
            closed = false
            lock.broadcast()
            lock.unlock()
        }
        try body()
        return true
    }
}
