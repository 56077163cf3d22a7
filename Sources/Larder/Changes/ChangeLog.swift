#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `log` database: each commit's changeset under its number (8 bytes, big-endian), at least
/// the newest ``Database/Configuration/changeLogLimit`` kept (the older ones leave in batches,
/// see ``trimBatch(_:)``), and the number of the last commit among the
/// store's records (see `LMDBTransaction.lastCommitNumber()`). Other processes read it to learn
/// what changed.
enum ChangeLog {
    /// The number of the last commit `lmdb` sees (0 before the first).
    static func lastCommit(_ lmdb: LMDBTransaction) throws(LarderError) -> UInt64 {
        try lmdb.lastCommitNumber()
    }

    /// The changeset of commit `number`, or `nil` when the log no longer has it.
    static func changeset(_ number: UInt64, in lmdb: LMDBTransaction) throws -> Changeset? {
        let key = number.bigEndian
        let stored = try withUnsafeBytes(of: key) { try lmdb.get(lmdb.databases.log, key: $0) }
        guard let stored else { return nil }
        do {
            return try Changeset(logBytes: stored)
        } catch let error as LarderError {
            throw error.adding(operation: "readChangeLog", path: lmdb.environment.path)
        }
    }

    /// The changesets after commit `after` through `through`, in order, or `nil` when the log
    /// (or `recent`) does not have every one of them.
    static func changesets(after: UInt64, through: UInt64, in lmdb: LMDBTransaction, recent: (UInt64) -> Changeset?) throws -> [Changeset]? {
        guard through > after else { return [] }
        var found: [Changeset] = []
        found.reserveCapacity(Int(min(through - after, 1024)))
        for number in (after + 1)...through {
            guard let changeset = try recent(number) ?? changeset(number, in: lmdb) else { return nil }
            found.append(changeset)
        }
        return found
    }

    /// Stores `changeset` as the newest commit, stamped with the time now, and drops the entries
    /// beyond `limit`. With ``Database/Configuration/keepsValueHistory`` on, the entry also holds
    /// the stored bytes of every listed object and metadata value, read here from `lmdb` just
    /// before the commit.
    static func append(_ changeset: inout Changeset, in lmdb: LMDBTransaction, limit: Int, byteLimit: Int? = nil, keepsValueHistory: Bool) throws {
        let number = changeset.commit
        changeset.time = Date()
        let bytes: [UInt8]
        if keepsValueHistory {
            let maxKeySize = lmdb.environment.maxKeySize
            bytes = try changeset.logBytes { collection, key, metadata in
                try StorageKey.with(collection: collection, key: key, maxKeySize: maxKeySize, operation: "writeChangeLog") { storageKey in
                    try lmdb.get(metadata ? lmdb.databases.metadata : lmdb.databases.objects, key: storageKey)
                }
            }
        } else {
            bytes = try changeset.logBytes()
        }
        try recordBinaryPayloadFormat(in: lmdb)
        try withUnsafeBytes(of: number.bigEndian) { key in
            try bytes.withUnsafeBytes { try lmdb.put(lmdb.databases.log, key: key, value: $0) }
        }
        try lmdb.setLastCommitNumber(number)
        if number > UInt64(limit) {
            // The entries past the limit leave in batches of `trimBatch(limit)`: deleting the
            // oldest entry writes the log's first leaf, a page of its own, so trimming one
            // entry per commit made each steady-state commit write about 30% more bytes.
            let oldestKept = number - UInt64(limit) + 1
            let oldest = try oldestEntry(in: lmdb)
            if let oldest, oldest < oldestKept, oldestKept - oldest >= UInt64(trimBatch(limit)) {
                try lmdb.removeLeading(in: lmdb.databases.log) { key in
                    key.count == 8 && UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)) < oldestKept
                }
            }
        }
        guard let byteLimit else { return }
        // Then by size: the oldest entries go while the log's pages exceed the limit, the
        // newest (this commit's) always stays. LMDB keeps the page counts in the tree's record,
        // so each check is O(1).
        let pageSize = lmdb.environment.pageSize
        guard try lmdb.figures(of: lmdb.databases.log).pages * pageSize > byteLimit else { return }
        try lmdb.removeLeading(in: lmdb.databases.log) { key in
            guard key.count == 8, UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)) < number else { return false }
            return try lmdb.figures(of: lmdb.databases.log).pages * pageSize > byteLimit
        }
    }

    /// How many entries past `limit` the log gathers before the oldest leave together: a
    /// sixteenth of the limit (62 at the default 1000), at least 1.
    static func trimBatch(_ limit: Int) -> Int { max(1, limit / 16) }

    /// The number of the oldest commit the log holds, `nil` when it is empty.
    private static func oldestEntry(in lmdb: LMDBTransaction) throws -> UInt64? {
        var oldest: UInt64?
        try lmdb.forEachEntry(in: lmdb.databases.log) { key, _ in
            if key.count == 8 { oldest = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)) }
            return false
        }
        return oldest
    }

    /// Raises the store's recorded format version to 3 (``Environment/binaryLogPayloadFormatVersion``)
    /// in the commit that writes its first log entry with `bin` payloads, so that a Larder that
    /// reads up to format 2 refuses the store (`newerFormatVersion`) instead of failing on the
    /// entry. Stores made by this Larder record 3 from the start; the entries that a store of
    /// format 1 or 2 already holds keep their integer arrays and still read.
    /// - Complexity: one lookup of a 4-byte value per commit, and a write once per store.
    static func recordBinaryPayloadFormat(in lmdb: LMDBTransaction) throws {
        try Environment.raiseFormatVersion(to: StoreFormat.binaryLogPayload, in: lmdb)
    }
}
