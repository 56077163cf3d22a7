/// A change that a write transaction hands to the extensions that read its collection, as it
/// happens, inside the transaction.
enum ExtensionChange {
    /// The object or metadata at an index was set, replaced or touched.
    case row(ExtensionRow)
    /// The object (and so its metadata) at the index was removed.
    case removed(YapDB.Index)
    /// Every object of the collection was removed.
    case cleared(String)
    /// Every object of every collection was removed.
    case removedEverything
}
