#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the current thread holds: how many live transactions, and on which environments it is
/// writing. LMDB's rules are per thread (a second write transaction on one thread deadlocks; a
/// map resize must not wait for a transaction its own thread holds), so this is thread-local on
/// purpose, not task-local. Transaction closures are synchronous, so a transaction never changes
/// thread while it is live.
final class ThreadState {
    /// Live read or write transactions of any environment on this thread.
    var liveTransactions = 0
    /// Environments this thread has a write transaction open on.
    var writing: [ObjectIdentifier] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            Unmanaged<ThreadState>.fromOpaque(pointer).release()
            #else
            if let pointer { Unmanaged<ThreadState>.fromOpaque(pointer).release() }
            #endif
        }
        precondition(rc == 0, "Larder: pthread_key_create failed (\(rc))")
        return key
    }()

    /// This thread's state, created on first use.
    static var current: ThreadState {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ThreadState>.fromOpaque(pointer).takeUnretainedValue()
        }
        let state = ThreadState()
        pthread_setspecific(key, Unmanaged.passRetained(state).toOpaque())
        return state
    }
}
