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

extension ReadWriteTransaction {
    /// Starts recording what this transaction reads (``recordedReads``), and its changes afresh
    /// (a replica's rehearsal of a write, rolled back once captured). Reads from then on bypass
    /// the connection's cache, so that each one is seen.
    package func startRecordingReads() {
        checkActive()
        guard readRecorder == nil else { return }
        readRecorder = ReadSetRecorder()
        // A caller of a group commit starts from the changes of the callers before it (a
        // replica's applied commits among them); what ``replicatedCommit()`` ships must be this
        // transaction's own changes only, or it would write other commits' rows again, blind.
        resetRecordedChanges()
    }

    /// What the transaction has read since ``startRecordingReads()``.
    package var recordedReads: ReadSet { (readRecorder as? ReadSetRecorder)?.reads ?? ReadSet() }
}

extension ReadWriteTransaction {
    /// Whether the caller's closure called ``rollback()``.
    package var wasRolledBack: Bool { isRolledBack }
}
