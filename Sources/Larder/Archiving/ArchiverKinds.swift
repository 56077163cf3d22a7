import Synchronization

/// Which archiver types can have instances that read differently (``CacheIdentifiedArchiver``
/// or `Hashable` ones), learned once per type: ``ArchiverIdentity`` then skips two dynamic casts
/// on every cached read of an archiver type whose instances all read alike.
@usableFromInline
enum ArchiverKinds {
    private static let known = Mutex<[ObjectIdentifier: Bool]>([:])

    /// Whether instances of the archiver type `type` may read differently, if known yet.
    static func instancesMayDiffer(_ type: ObjectIdentifier) -> Bool? {
        known.withLock { $0[type] }
    }

    /// Whether instances of `archiver`'s dynamic type (`type`) may read differently.
    @usableFromInline
    static func instancesMayDiffer(_ type: ObjectIdentifier, _ archiver: some Archiver) -> Bool {
        if let known = known.withLock({ $0[type] }) { return known }
        let differs = archiver is any CacheIdentifiedArchiver || archiver is any Hashable
        known.withLock { $0[type] = differs }
        return differs
    }
}
