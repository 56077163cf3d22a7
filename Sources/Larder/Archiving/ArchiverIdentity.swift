/// Which archiver decoded (or wrote) a value kept in a connection's cache. A cached value answers
/// a read only when the read's archiver has the same identity, so that a cached read returns or
/// throws exactly what decoding the stored bytes with that archiver would.
///
/// Two archivers are the same when they are of the same type and, for a type that says how its
/// instances differ (``CacheIdentifiedArchiver``, or `Hashable`), equal in that respect. An
/// archiver type that is neither is taken to read alike in all its instances.
struct ArchiverIdentity: Hashable {
    let type: ObjectIdentifier
    let configuration: AnyHashable?

    /// Compares the types first and the configurations only when there are some: most archiver
    /// types have none, and comparing two absent `AnyHashable`s costs a cached read ~250
    /// instructions (callgrind).
    static func == (a: ArchiverIdentity, b: ArchiverIdentity) -> Bool {
        guard a.type == b.type else { return false }
        switch (a.configuration, b.configuration) {
        case (nil, nil): return true
        case (let x?, let y?): return x == y
        default: return false
        }
    }

    /// The identity of an archiver type whose instances all read alike (``ArchiverKinds`` knows).
    init(type: ObjectIdentifier) {
        self.type = type
        configuration = nil
    }

    init<A: Archiver>(_ archiver: A) {
        type = ObjectIdentifier(Swift.type(of: archiver as Any))
        // The casts below cost about 2,000 instructions (callgrind), as much as a cached read's
        // other work; whether they can find anything depends on the type alone, so ask once.
        guard ArchiverKinds.instancesMayDiffer(type, archiver) else {
            configuration = nil
            return
        }
        if let identified = archiver as? any CacheIdentifiedArchiver {
            configuration = identified.cacheConfiguration
        } else if let hashable = archiver as? any Hashable {
            configuration = AnyHashable(hashable)
        } else {
            configuration = nil
        }
    }
}
