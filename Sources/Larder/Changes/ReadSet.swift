/// What a write transaction read: the part of the store whose change by another writer would
/// have changed what the transaction did.
///
/// A replica (the `LarderPostgres` product) records it while the caller's closure runs and sends
/// it with the commit; the primary refuses the commit when a commit the replica had not applied
/// wrote inside it (the optimistic check FoundationDB makes with its read-conflict ranges).
/// Coarse where the reads were: an enumeration, a count or a read through an extension covers its
/// collections whole; a read of every collection covers ``everything``.
package struct ReadSet: Sendable, Equatable {
    /// Something read every collection (an enumeration of all of them, the list of collections,
    /// an extension that reads every collection).
    package var everything = false
    /// Collections read whole, told apart by their bytes (two names Swift's `String ==` calls
    /// equal are two collections); `sorted()` lists them in byte order.
    package var collections: NameSet = []
    /// Keys read one by one, by collection, all told apart by their bytes.
    package var keys: [ExactString: NameSet] = [:]
    /// Extensions read (a view, an index), by name. Not shipped to a primary (their collections
    /// stand for them there); an observation re-runs when one is rebuilt or removed.
    package var extensions: NameSet = []

    package init() {}

    /// The keys read one by one as (collection, key) pairs, collections read whole left out,
    /// in byte order.
    package var pointReads: [(collection: String, key: String)] {
        var reads: [(collection: String, key: String)] = []
        for (collection, keys) in keys.sorted(by: { $0.key < $1.key }) where !collections.contains(collection.string) {
            for key in keys.sorted() { reads.append((collection.string, key)) }
        }
        return reads
    }
}


extension Changeset {
    /// Whether this changeset may change what a transaction that read `reads` saw: it changed a
    /// key read, or anything in a collection read whole, or rebuilt or changed an extension
    /// read; a reset, or the removal of everything, may change anything.
    /// - Complexity: O(c + k) for the c collections and the k keys of `reads` (each a hash
    ///   lookup), whatever the size of the changeset.
    func touches(_ reads: ReadSet) -> Bool {
        if isReset || removedEverything || reads.everything { return true }
        for collection in reads.collections.members where wholeCollectionChanged(collection) || entries[collection] != nil {
            return true
        }
        for (collection, keys) in reads.keys {
            if wholeCollectionChanged(collection) { return true }
            guard let changed = entries[collection] else { continue }
            if keys.members.contains(where: { changed[$0] != nil }) { return true }
        }
        if !extensionPayloads.isEmpty {
            for name in reads.extensions.members where extensionPayloads[name] != nil { return true }
        }
        return false
    }
}
