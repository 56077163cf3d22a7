/// One change a write transaction made, as its participants hear of it.
enum WriteChange {
    /// The object or the metadata (or both) at an index was set, replaced, removed (metadata
    /// only), touched or put back.
    case row(ChangedRow)
    /// The object at the index was removed, and its metadata with it.
    case removed(YapDB.Index)
    /// Every object of the collection was removed.
    case cleared(String)
    /// Every object of every collection was removed.
    case removedEverything
}
