import Synchronization

/// Archivers registered per collection, which override a type's own archiver there.
final class ArchiverRegistry: Sendable {
    private let entries = Mutex<[String: any Sendable]>([:])
    /// Lets the read path skip the lock while nothing is registered (the common case).
    private let isEmpty = Atomic<Bool>(true)

    func register<A: Archiver>(_ archiver: A, forCollection collection: String) {
        entries.withLock { $0[collection] = archiver }
        isEmpty.store(false, ordering: .releasing)
    }

    /// The archiver registered for `collection` if it archives `T`.
    @inline(__always)
    func archiver<T>(for collection: String, _ type: T.Type) -> (any Archiver<T>)? {
        if isEmpty.load(ordering: .acquiring) { return nil }
        return entries.withLock { $0[collection] } as? any Archiver<T>
    }
}
