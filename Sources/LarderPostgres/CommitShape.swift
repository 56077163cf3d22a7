#if Extras
/// What a commit statement has to check and change, so that it holds only those parts (see
/// ``PrimarySQL/commit(_:bind:)``), and the values it binds.
struct CommitShape {
    /// A value the statement binds, once each.
    enum Value: Hashable {
        case position, readCollections, readKeyCollections, readKeys
        case removesEverything, cleared, putCollections, putKeys, objects, metadata, hasMetadata
        case removedCollections, removedKeys, writtenCollections, writtenKeys, record, token, positionToken
    }

    var readsEverything = false
    var readsCollections = false
    var readsKeys = false
    var removesEverything = false
    var clears = false
    var puts = false
    var removals = false
    /// Whether the replica knows the token of the commit at its position, to be compared with
    /// the primary's.
    var checksToken = false
}
#endif
