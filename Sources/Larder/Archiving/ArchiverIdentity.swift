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
    /// Whether `configuration` is not nil, kept apart so that comparing and hashing the common
    /// identities (no configuration) never touches the optional `AnyHashable`: copying one out
    /// to look at it costs an unspecialized value-witness call (~170 instructions a compare,
    /// callgrind: 5% of a warm-cache read).
    let hasConfiguration: Bool

    /// Compares the types first and the configurations only when there are some: most archiver
    /// types have none.
    static func == (a: ArchiverIdentity, b: ArchiverIdentity) -> Bool {
        guard a.type == b.type, a.hasConfiguration == b.hasConfiguration else { return false }
        return !a.hasConfiguration || a.configuration == b.configuration
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        if hasConfiguration { hasher.combine(configuration) }
    }

    /// The identity of an archiver type whose instances all read alike (``ArchiverKinds`` knows).
    init(type: ObjectIdentifier) {
        self.type = type
        configuration = nil
        hasConfiguration = false
    }

    init<A: Archiver>(_ archiver: A) {
        type = ObjectIdentifier(Swift.type(of: archiver as Any))
        // The casts below cost about 2,000 instructions (callgrind), as much as a cached read's
        // other work; whether they can find anything depends on the type alone, so ask once.
        guard ArchiverKinds.instancesMayDiffer(type, archiver) else {
            configuration = nil
            hasConfiguration = false
            return
        }
        if let identified = archiver as? any CacheIdentifiedArchiver {
            configuration = identified.cacheConfiguration
        } else if let hashable = archiver as? any Hashable {
            configuration = AnyHashable(hashable)
        } else {
            configuration = nil
        }
        hasConfiguration = configuration != nil
    }
}
