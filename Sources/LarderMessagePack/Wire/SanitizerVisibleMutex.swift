#if LARDER_TSAN
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock that stands in for `Synchronization.Mutex` in a ThreadSanitizer build
/// (`swift test --sanitize=thread -Xswiftc -DLARDER_TSAN`): a `pthread_mutex_t`, whose lock and
/// unlock the sanitizer intercepts.
///
/// The standard library's `Mutex` on Linux locks with a futex the sanitizer does not see, so it
/// reports every access to guarded data as a race: two threads incrementing a value inside
/// `withLock` 20,000 times each end at exactly 40,000 and still draw a report (Swift 6.3.1),
/// where the same code with a pthread mutex draws none. Each module that locks declares
/// `Mutex` as this type in such a build (`SanitizerVisibleLocks.swift`), shadowing the standard
/// library's for its own code; ordinary builds never compile it.
package final class SanitizerVisibleMutex<Value: ~Copyable>: @unchecked Sendable {
    private var value: Value
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init(_ value: consuming sending Value) {
        self.value = value
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Calls `body` with the value, holding the lock.
    /// - Throws: what `body` throws.
    package func withLock<Result: ~Copyable, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }
}
#endif
