import Synchronization

/// Archivers registered per collection and value type, which override a type's own archiver there.
final class ArchiverRegistry: Sendable {
    private struct Slot: Hashable {
        let collection: String
        let type: ObjectIdentifier
    }

    private let entries = Mutex<[Slot: any Sendable]>([:])
    /// Lets the read path skip the lock while nothing is registered (the common case).
    private let isEmpty = Atomic<Bool>(true)

    func register<A: Archiver>(_ archiver: A, forCollection collection: String) {
        entries.withLock { $0[Slot(collection: collection, type: ObjectIdentifier(A.Value.self))] = archiver }
        isEmpty.store(false, ordering: .releasing)
    }

    /// The archiver registered for values of type `T` in `collection`.
    @inline(__always)
    func archiver<T>(for collection: String, _ type: T.Type) -> (any Archiver<T>)? {
        if isEmpty.load(ordering: .acquiring) { return nil }
        return entries.withLock { $0[Slot(collection: collection, type: ObjectIdentifier(T.self))] } as? any Archiver<T>
    }
}
