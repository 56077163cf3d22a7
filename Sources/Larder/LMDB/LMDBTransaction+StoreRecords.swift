/// The records a commit keeps beside its data: each collection's count of keys and the number of
/// the last commit.
///
/// From store format 6 they are entries of LMDB's main database, whose page every commit writes
/// anyway (it holds the records of the named databases a commit changes): a one-put commit then
/// writes the objects tree, the change log and the main database, rather than two more trees
/// (`collections` and `larder`). Their keys hold a NUL byte, which no named database's name can
/// hold (LMDB takes names as C strings), so they can never be taken for one, and tools that list
/// named databases (`mdb_dump -a`, `mdb_stat -a`) skip them:
///
/// - `0x00 ‖ collection UTF-8`: the collection's count, `UInt64` big-endian, absent when zero
///   (within LMDB's 511 bytes: a collection name is at most 509, with a one-byte key);
/// - `0x00 0x00 ‖ "last-commit"`: the last commit number, `UInt64` big-endian.
///
/// Stores of format 5 and older keep the counts in the `collections` database (key
/// `collection ‖ 0x00`) and the number in the `larder` database (key `last-commit`); their first
/// write moves both (``moveStoreRecordsToMainDatabase()``). Whether a snapshot has moved them is
/// its format version, read by each transaction until the process knows: see
/// ``keepsRecordsInMainDatabase``.
extension LMDBTransaction {
    /// The main database's key of the last commit number.
    static let lastCommitRecordKey = "\u{0}\u{0}last-commit"
    /// The larder database's key of the last commit number in stores of format 5 and older.
    static let formerLastCommitKey = "last-commit"

    /// Whether this transaction's snapshot keeps the records in the main database (its format
    /// version is 6 or more).
    ///
    /// Costs an atomic load once this process knows the snapshots from some commit on do; until
    /// then (a store of an older format), one lookup of the version. Only a read transaction
    /// whose snapshot LMDB vouches for (``snapshotID``) teaches the process: a write's own
    /// uncommitted move must not, nor a reader that may see newer pages than its id says.
    var keepsRecordsInMainDatabase: Bool {
        get throws(LarderError) {
            let since = environment.recordsInMainDatabaseSince.load(ordering: .relaxed)
            let snapshot = isWritable ? transactionID &- 1 : transactionID
            if since <= snapshot { return true }
            guard let stored = try get(databases.larder, key: environment.options.format.key), stored.count == 4 else { return false }
            let moved = UInt32(bigEndian: stored.loadUnaligned(as: UInt32.self)) >= StoreFormat.recordsInMainDatabase
            if moved, !isWritable, let vouched = snapshotID.map(UInt64.init) {
                // Lowered, never raised (another thread may have lowered it meanwhile): every
                // snapshot from `vouched` on is at format 6 or more, as versions never fall.
                var current = since
                while vouched < current {
                    let (exchanged, original) = environment.recordsInMainDatabaseSince.compareExchange(
                        expected: current, desired: vouched, ordering: .relaxed)
                    if exchanged { break }
                    current = original
                }
            }
            return moved
        }
    }

    // MARK: Collection counts

    /// The stored count of `collection`'s keys (0 when it has none).
    func collectionCount(_ collection: String) throws -> Int {
        let stored: UnsafeRawBufferPointer?
        if try keepsRecordsInMainDatabase {
            stored = try Self.countKey(collection).withUnsafeBytes { try get(.main, key: $0) }
        } else {
            stored = try StorageKey.prefix(of: collection).withUnsafeBytes { try get(formerCollections(), key: $0) }
        }
        guard let stored else { return 0 }
        return try Self.count(stored)
    }

    /// Stores `count` as `collection`'s count (removing the record at 0).
    func setCollectionCount(_ collection: String, to count: Int) throws {
        let (database, key) = try keepsRecordsInMainDatabase
            ? (DatabaseHandle.main, Self.countKey(collection)) : (try formerCollections(), StorageKey.prefix(of: collection))
        try key.withUnsafeBytes { key in
            if count > 0 {
                try withUnsafeBytes(of: UInt64(count).bigEndian) { try put(database, key: key, value: $0) }
            } else {
                _ = try delete(database, key: key)
            }
        }
    }

    /// Calls `body` with each counted collection's name (as stored: UTF-8 bytes) and count, in
    /// byte order, while it returns `true`.
    /// - Throws: ``LarderError/Code/corruptValue`` for a count that is not 8 bytes.
    func forEachCollectionCount(_ body: (_ name: UnsafeRawBufferPointer, _ count: Int) throws -> Bool) throws {
        try forEachCollectionCountRecord { name, stored in try body(name, try Self.count(stored)) }
    }

    /// Calls `body` with each count record's collection name and stored value, as they are (for
    /// the structure check, which reports what does not read), in byte order, while it returns
    /// `true`. A record of the `collections` database whose key does not end with its 0x00
    /// gives the whole key as the name.
    func forEachCollectionCountRecord(_ body: (_ name: UnsafeRawBufferPointer, _ stored: UnsafeRawBufferPointer) throws -> Bool) throws {
        if try keepsRecordsInMainDatabase {
            try forEachEntry(in: .main, withPrefix: [0]) { key, value in
                guard key.count == 1 || key[1] != 0 else { return true }  // `0x00 0x00 ‖ …`: another record
                return try body(UnsafeRawBufferPointer(rebasing: key.dropFirst()), value)
            }
        } else {
            try forEachEntry(in: formerCollections()) { key, value in
                try body(key.last == 0 ? UnsafeRawBufferPointer(rebasing: key.dropLast()) : key, value)
            }
        }
    }

    /// Removes every collection's count.
    func removeAllCollectionCounts() throws {
        guard try keepsRecordsInMainDatabase else { return try empty(formerCollections()) }
        var keys: [[UInt8]] = []
        try forEachEntry(in: .main, withPrefix: [0]) { key, _ in
            if key.count == 1 || key[1] != 0 { keys.append([UInt8](key)) }
            return true
        }
        for key in keys { _ = try key.withUnsafeBytes { try delete(.main, key: $0) } }
    }

    /// The `collections` database of a store of format 5 or older.
    /// - Throws: ``LarderError/Code/corrupted`` when the store was opened without one (its format
    ///   version said 6 or more, and now says less).
    private func formerCollections() throws(LarderError) -> DatabaseHandle {
        guard databases.collections.raw != 0 else {
            throw LarderError(.corrupted, "the store's format version fell below 6 after it was opened at 6 or more: its collection counts cannot be found", operation: "numberOfKeys", path: environment.path)
        }
        return databases.collections
    }

    private static func countKey(_ collection: String) -> [UInt8] {
        var key: [UInt8] = [0]
        key.append(contentsOf: collection.utf8)
        return key
    }

    private static func count(_ stored: UnsafeRawBufferPointer) throws(LarderError) -> Int {
        guard stored.count == 8 else {
            throw LarderError(.corruptValue, "a collection count is \(stored.count) bytes long, not 8", operation: "numberOfKeys")
        }
        let count = UInt64(bigEndian: stored.loadUnaligned(as: UInt64.self))
        guard count <= UInt64(Int.max) else {
            throw LarderError(.corruptValue, "a collection count of \(count) is past any store's size", operation: "numberOfKeys")
        }
        return Int(count)
    }

    // MARK: The last commit

    /// The number of the last commit this snapshot holds (0 before the first).
    func lastCommitNumber() throws(LarderError) -> UInt64 {
        let stored: UnsafeRawBufferPointer?
        if try keepsRecordsInMainDatabase {
            stored = try get(.main, key: Self.lastCommitRecordKey)
        } else {
            stored = try get(databases.larder, key: Self.formerLastCommitKey)
        }
        guard let stored else { return 0 }
        guard stored.count == 8 else {
            throw LarderError(.corruptValue, "the last commit number is \(stored.count) bytes long, not 8", operation: "lastCommit", path: environment.path)
        }
        return UInt64(bigEndian: stored.loadUnaligned(as: UInt64.self))
    }

    /// Stores `number` as the last commit's.
    func setLastCommitNumber(_ number: UInt64) throws {
        try withUnsafeBytes(of: number.bigEndian) { value in
            if try keepsRecordsInMainDatabase {
                try put(.main, key: Self.lastCommitRecordKey, value: value)
            } else {
                try put(databases.larder, key: Self.formerLastCommitKey, value: value)
            }
        }
    }

    // MARK: Moving them

    /// Moves the records of a store of format 5 or older into the main database and records
    /// format 6, in this write transaction; does nothing in a store that keeps them there.
    /// The `collections` database is emptied, not dropped: a transaction of this process that
    /// began before this commit may still read it through its handle.
    /// - Complexity: O(collections).
    func moveStoreRecordsToMainDatabase() throws {
        guard try !keepsRecordsInMainDatabase else { return }
        // The records are moved byte for byte (a malformed one stays malformed, for the
        // structure check to report), read before anything is written.
        var records: [(key: [UInt8], value: [UInt8])] = []
        try forEachCollectionCountRecord { name, stored in
            records.append(([0] + name, [UInt8](stored)))
            return true
        }
        if let last = try get(databases.larder, key: Self.formerLastCommitKey) {
            records.append((Array(Self.lastCommitRecordKey.utf8), [UInt8](last)))
        }
        for (key, value) in records {
            try key.withUnsafeBytes { key in try value.withUnsafeBytes { try put(.main, key: key, value: $0) } }
        }
        try empty(formerCollections())
        _ = try Array(Self.formerLastCommitKey.utf8).withUnsafeBytes { try delete(databases.larder, key: $0) }
        try Environment.raiseFormatVersion(to: StoreFormat.recordsInMainDatabase, in: self)
    }
}
