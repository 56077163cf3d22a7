/// Reading the past: the commits the change log still holds
/// (``Database/Configuration/changeLogLimit``, the newest 1000 by default), for one index or
/// whole.
///
/// ```swift
/// try db.read { txn in
///     for revision in try txn.history(of: Product.self, key: "p1") {   // newest first
///         print(revision.commit, revision.time ?? .distantPast, revision.event, revision.value?.name ?? "-")
///     }
/// }
/// ```
///
/// A history lists every commit the log holds that changed the value, newest first. Earlier
/// values are there only for commits written with ``Database/Configuration/keepsValueHistory``
/// on; without it the history still says which commits changed the value, when, and how.
/// Transactions see the log as of their snapshot; inside a write, the transaction's own changes
/// are not in the log until it commits.
extension ReadTransaction {
    /// The history of the object at `index`: every commit the change log holds that inserted,
    /// updated (or touched) or removed it, cleared its collection, or removed everything, newest
    /// first. Clears are left out where the history shows the object was already absent.
    ///
    /// A commit that cleared the collection and then stored the object again gives two entries
    /// with its number: the insertion, then the clear.
    /// - Complexity: O(size of the log): every entry is read (not decoded whole) to find the
    ///   ones that concern `index`.
    /// - Throws: ``LarderError`` for an invalid collection or key
    ///   (``LarderError/Code/emptyKey``, ``LarderError/Code/keyTooLong``,
    ///   ``LarderError/Code/invalidCollection``); ``LarderError/Code/corruptValue`` for a change
    ///   log entry that does not decode; a failure of LMDB.
    public final func history(ofObjectAt index: YapDB.Index) throws -> [HistoryEntry] {
        try history(of: index, metadata: false)
    }

    /// The history of the metadata at `index`, as ``history(ofObjectAt:)`` gives the object's:
    /// every commit the log holds that inserted, updated or removed the metadata (removing or
    /// re-storing the object without metadata removes it), cleared its collection, or removed
    /// everything, newest first.
    /// - Complexity: O(size of the log).
    /// - Throws: as ``history(ofObjectAt:)``.
    public final func history(ofMetadataAt index: YapDB.Index) throws -> [HistoryEntry] {
        try history(of: index, metadata: true)
    }

    /// The history of the value of type `T` with key `key`, each entry with the value the commit
    /// left decoded (see ``history(ofObjectAt:)``), newest first.
    /// - Complexity: O(size of the log), plus decoding each recorded value.
    /// - Throws: as ``history(ofObjectAt:)``; ``LarderError/Code/decodingFailed`` when a recorded
    ///   value does not decode as `T` (an older form of the type, say: read those with
    ///   ``HistoryEntry/value(archiver:)``).
    public final func history<T: Persistable & Saveable>(of type: T.Type, key: String) throws -> [Revision<T>] {
        try history(ofObjectAt: T.index(forKey: key)).map { Revision(entry: $0, value: try $0.value(as: T.self)) }
    }

    /// The history of the value of type `T` with key `key`, each entry with the value the commit
    /// left decoded (see ``history(ofObjectAt:)``), newest first.
    /// - Complexity: O(size of the log), plus decoding each recorded value.
    /// - Throws: as ``history(ofObjectAt:)``; ``LarderError/Code/decodingFailed`` when a recorded
    ///   value does not decode as `T`.
    @_disfavoredOverload
    public final func history<T: Persistable & Codable>(of type: T.Type, key: String) throws -> [Revision<T>] {
        try history(ofObjectAt: T.index(forKey: key)).map { Revision(entry: $0, value: try $0.value(as: T.self)) }
    }

    /// The history of the value of type `T` with identifier `id`, newest first.
    /// - Complexity: O(size of the log), plus decoding each recorded value.
    /// - Throws: as ``history(ofObjectAt:)``; ``LarderError/Code/decodingFailed`` when a recorded
    ///   value does not decode as `T`.
    public final func history<T: Persistable & Saveable>(of type: T.Type, id: T.ID) throws -> [Revision<T>] {
        try history(of: T.self, key: T.key(for: id))
    }

    /// The history of the value of type `T` with identifier `id`, newest first.
    /// - Complexity: O(size of the log), plus decoding each recorded value.
    /// - Throws: as ``history(ofObjectAt:)``; ``LarderError/Code/decodingFailed`` when a recorded
    ///   value does not decode as `T`.
    @_disfavoredOverload
    public final func history<T: Persistable & Codable>(of type: T.Type, id: T.ID) throws -> [Revision<T>] {
        try history(of: T.self, key: T.key(for: id))
    }

    /// The first and last commits the change log holds, `nil` when it holds none (a new store).
    /// Histories reach back to the first.
    /// - Throws: ``LarderError/Code/corruptValue`` for a damaged log key; a failure of LMDB.
    public final func loggedCommits() throws -> ClosedRange<UInt64>? {
        checkActive()
        guard let first = try lmdb.firstKey(in: lmdb.databases.log), let last = try lmdb.lastKey(in: lmdb.databases.log) else { return nil }
        guard first.count == 8, last.count == 8 else {
            throw LarderError(.corruptValue, "a change log key is not 8 bytes long", operation: "loggedCommits", path: lmdb.environment.path)
        }
        let lower = first.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
        let upper = last.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
        return lower...upper
    }

    /// The changesets of the commits after `commit` up to ``lastCommit``, oldest first, read from
    /// the change log (with their ``Changeset/time``, but no values); `nil` when the log no
    /// longer holds all of them. Empty when `commit` is ``lastCommit`` or later.
    ///
    /// ```swift
    /// let since = try db.read { try $0.changesets(after: lastSeen) }   // nil: reload everything
    /// ```
    /// - Complexity: O(size of the entries read).
    /// - Throws: ``LarderError/Code/corruptValue`` for a change log entry that does not decode; a
    ///   failure of LMDB.
    public final func changesets(after commit: UInt64) throws -> [Changeset]? {
        checkActive()
        return try ChangeLog.changesets(after: commit, through: snapshot.commit, in: lmdb) { _ in nil }
    }

    /// The history of one half of `index`, newest first.
    private final func history(of index: YapDB.Index, metadata: Bool) throws -> [HistoryEntry] {
        checkActive()
        let operation = "history"
        try StorageKey.validate(collection: index.collection, key: index.key, maxKeySize: maxKeySize, operation: operation)
        let records = try ChangeLog.records(of: index, metadata: metadata, in: lmdb)
        var entries: [HistoryEntry] = []
        entries.reserveCapacity(records.count)
        // Whether the value existed after the commits read so far; `nil` before anything says.
        var exists: Bool?
        for record in records {
            func add(_ event: HistoryEntry.Event, known: Bool, bytes: [UInt8]?) {
                entries.append(HistoryEntry(
                    index: index, commit: record.commit, time: record.time, event: event,
                    isValueKnown: known, framedBytes: bytes, archivers: database.archivers, migrations: database.migrations, isMetadata: metadata))
            }
            if record.removedEverything || record.clearedCollection {
                if exists != false {
                    add(record.removedEverything ? .removedEverything : .cleared(collection: index.collection), known: true, bytes: nil)
                }
                exists = false
            }
            guard let change = record.change else { continue }
            if let halfChange = metadata ? change.metadata : change.object {
                switch halfChange {
                case .inserted: add(.inserted, known: record.recordsValues, bytes: record.value)
                case .updated: add(.updated, known: record.recordsValues, bytes: record.value)
                case .removed: add(.removed, known: true, bytes: nil)
                }
                exists = halfChange != .removed
            } else if metadata, let objectChange = change.object, objectChange != .updated {
                // A new object without metadata, or a removed object whose metadata was not
                // listed: there was no metadata after the commit.
                exists = false
            }
        }
        entries.reverse()
        return entries
    }
}
