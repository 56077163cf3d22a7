/// Something that hears what a transaction reads (``ReadTransaction/readRecorder``): a replica
/// rehearsing a write records its reads this way, to ship them to its primary, and an
/// observation of a read (`observe { txn in … }`) to know which commits may change its result.
/// While one is set, reads bypass the connection's cache, so that every read reaches it.
protocol ReadObserver: AnyObject {
    /// The transaction read the object or metadata at (`collection`, `key`), or found none.
    func key(_ key: String, inCollection collection: String)
    /// The transaction read every key of `collection` (an enumeration, a count).
    func collection(_ collection: String)
    /// The transaction read through extension `name` (a view, an index), whose entries derive
    /// from `collections`; `nil`: from every collection.
    func extensionRead(_ name: String, collections: Set<ExactString>?)
    /// The transaction read across every collection.
    func everything()
}
