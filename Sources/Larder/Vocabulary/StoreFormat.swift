/// The history of the store's format: each version a store can record, oldest first. A store
/// records the version of the newest format its contents need (``current`` for a new store), and
/// a Larder refuses to open a store whose version it does not know. Every layer that writes
/// stored bytes raises the version when it first writes bytes an older Larder would misread.
enum StoreFormat {
    /// The newest store format this version reads and writes: what a new store records.
    static let current: UInt32 = fullTextRuns
    /// The format of a store of Larder 0.1 without checksummed values (it still opens and reads;
    /// its first commit raises it to ``binaryLogPayload``).
    static let plain: UInt32 = 1
    /// The format of a store with checksummed values, recorded by the write that stores the
    /// first one (in stores older than ``binaryLogPayload``).
    static let checksummed: UInt32 = 2
    /// The format whose change log stores the `info` and `extensions` payloads as MessagePack
    /// `bin`, recorded by a new store and by the first commit to an older one (see
    /// `ChangeLog.recordBinaryPayloadFormat`): a Larder that reads up to 2 refuses the store
    /// instead of failing on its newer log entries.
    static let binaryLogPayload: UInt32 = 3
    /// The format whose views, filtered views and secondary indexes keep no map from an object to
    /// its entries (they derive an object's old entries from its previous bytes), recorded by a
    /// new store and by the registration of such an extension in an older one, which empties the
    /// extension's map (see `Database.registerExtension`): a Larder that reads up to 3 would
    /// trust maps that no longer follow the writes, so it refuses the store instead.
    static let derivedExtensions: UInt32 = 4
    /// The format whose values may record the version of their collection's values (the
    /// `0x3E` framing, see ``ValueMigrations``), recorded by a new store and by the first write
    /// of a versioned value to an older one: a Larder that reads up to 4 would take the framing
    /// for an unknown format, so it refuses the store instead.
    static let versionedValues: UInt32 = 5
    /// The format that keeps the collection counts and the last commit number in LMDB's main
    /// database (keys with a NUL byte) rather than in the `collections` and `larder` databases,
    /// so that a commit writes two B-trees fewer (see `LMDBTransaction.keepsRecordsInMainDatabase`);
    /// recorded by a new store and by the first write to an older one, which moves the records:
    /// a Larder that reads up to 5 would find no counts, so it refuses the store instead.
    static let recordsInMainDatabase: UInt32 = 6
    /// The format whose full-text indexes may keep the postings of small transactions in runs at
    /// the end of their `postings` database (keys starting `0xFF`, see `FullTextStorage+Runs`),
    /// recorded by a new store and by the first write of a run to an older one: a Larder that
    /// reads up to 6 would not see the runs' postings (wrong search results, and edits that
    /// miss them), so it refuses the store instead.
    static let fullTextRuns: UInt32 = 7
    /// The key of the version in the store's `larder` database.
    static let versionKey = "format-version"
}
