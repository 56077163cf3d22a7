/// How a typed read (``ReadTransaction/object(forKey:inCollection:as:)-1n0ql`` and its kin)
/// goes on after asking the connection's cache, decided by a non-generic core so that the generic
/// shell around it, specialized in the caller's module, looks up no generic metadata.
@usableFromInline
enum TypedRead {
    /// The cache holds the value, decoded by the same archiver; the caller casts it.
    case hit(ConnectionCache.Entry)
    /// The cache may keep the value: read, decode, then remember it at `slot`.
    case miss(Slot)
    /// The cache keeps nothing: read and decode.
    case uncached
    /// Anything else (an archiver registered for the collection, the identity map, a snapshot
    /// the cache does not serve, a write transaction's own changes): the general path.
    case general
    /// Whether instances of the archiver's type may read differently is not known yet: the
    /// shell asks ``ArchiverKinds`` with its archiver, then reads again.
    case unknownArchiver

    /// Where a value read after a miss goes in the cache.
    @usableFromInline
    struct Slot {
        let key: ConnectionCache.Key
        let commit: UInt64
    }
}
