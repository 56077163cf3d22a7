#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A state behind a pthread mutex with a condition variable, for the few places where a thread
/// waits for the state to change (the transaction gate, the writer thread's queue) or holds the
/// lock across a call (the pinned snapshot). Plain mutual exclusion uses `Mutex<State>` instead.
///
/// Like `Mutex`, it takes its state as `sending` and lends it as `inout sending`, so the
/// compiler checks that no non-`Sendable` part of the state escapes the lock.
final class ConditionLock<State>: @unchecked Sendable {  // `state` is touched only with the mutex held
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state: State

    /// A recursive lock may be taken again by the thread that holds it (``lock()``); its state
    /// accesses (``withLock(_:)``) must still not nest.
    init(_ initial: sending State, recursive: Bool = false) {
        state = initial
        if recursive {
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
            pthread_mutex_init(mutex, &attributes)
            pthread_mutexattr_destroy(&attributes)
        } else {
            pthread_mutex_init(mutex, nil)
        }
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Takes the lock without touching the state, to hold it across a call; pair with ``unlock()``.
    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    /// Wakes every thread waiting in ``withLock(when:_:)``; call after a change they may wait
    /// for (with the lock held or not: the change itself was made under it).
    func broadcast() { pthread_cond_broadcast(condition) }

    /// Runs `body` on the state with the lock held.
    @inline(__always)
    func withLock<R, E: Error>(_ body: (inout sending State) throws(E) -> sending R) throws(E) -> sending R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// Waits, with the lock released meanwhile, until `ready` holds for the state, then runs
    /// `body` on it with the lock held.
    @inline(__always)
    func withLock<R, E: Error>(
        when ready: (borrowing State) -> Bool, _ body: (inout sending State) throws(E) -> sending R
    ) throws(E) -> sending R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready(state) { pthread_cond_wait(condition, mutex) }
        return try body(&state)
    }
}
