internal import CLMDB

/// The figures LMDB keeps about each B+tree (what `mdb_stat -a` prints), for
/// ``Database/databaseStatistics()``.
extension LMDBTransaction {
    /// One tree's figures: `MDB_stat`, or an `MDB_db` record of the main database.
    struct TreeFigures {
        var depth: Int
        var branchPages: Int
        var leafPages: Int
        var overflowPages: Int
        var entries: Int

        /// The pages the tree occupies.
        var pages: Int { branchPages + leafPages + overflowPages }
    }

    /// The figures of LMDB's main database, which holds one record per named database.
    func mainDatabaseFigures() throws(LarderError) -> TreeFigures {
        var stat = MDB_stat()
        let rc = mdb_stat(handle, DatabaseHandle.main.raw, &stat)
        if rc != MDB_SUCCESS { throw LMDBResult.error(rc, operation: "stat", path: environment.path) }
        return TreeFigures(
            depth: Int(stat.ms_depth), branchPages: stat.ms_branch_pages, leafPages: stat.ms_leaf_pages,
            overflowPages: stat.ms_overflow_pages, entries: stat.ms_entries)
    }

    /// The figures of one named database as this transaction sees it (its own writes included).
    /// - Complexity: O(1): LMDB keeps them in the database's record.
    func figures(of database: DatabaseHandle) throws(LarderError) -> TreeFigures {
        var stat = MDB_stat()
        let rc = mdb_stat(handle, database.raw, &stat)
        if rc != MDB_SUCCESS { throw LMDBResult.error(rc, operation: "stat", path: environment.path) }
        return TreeFigures(
            depth: Int(stat.ms_depth), branchPages: stat.ms_branch_pages, leafPages: stat.ms_leaf_pages,
            overflowPages: stat.ms_overflow_pages, entries: stat.ms_entries)
    }

    /// The figures of every named database as this transaction's snapshot records them, by name
    /// (the main database's keys, in their order), read from the main database's records rather
    /// than by opening each one: `mdb_dbi_open` must not run in two transactions at once.
    /// - Throws: ``LarderError/Code/corrupted`` for a record that is not an `MDB_db`.
    func namedDatabaseFigures() throws -> [(name: [UInt8], figures: TreeFigures)] {
        try flushHeldWrites()  // the figures of a view's tree count its nodes cached in memory
        var found: [(name: [UInt8], figures: TreeFigures)] = []
        try forEachEntry(in: .main) { key, value in
            // A key with a NUL is one of the store's records, not a database's name (see
            // `keepsRecordsInMainDatabase`).
            guard !key.contains(0) else { return true }
            guard value.count == PageLayout.databaseRecordSize else {
                throw LarderError(.corrupted, "the main database's record for \(String(decoding: key, as: UTF8.self)) is \(value.count) bytes long, not \(PageLayout.databaseRecordSize)", operation: "databaseStatistics", path: environment.path)
            }
            func number(at offset: Int) -> Int { Int(truncatingIfNeeded: UInt64(littleEndian: value.loadUnaligned(fromByteOffset: offset, as: UInt64.self))) }
            let depth = Int(UInt16(littleEndian: value.loadUnaligned(fromByteOffset: 6, as: UInt16.self)))
            found.append((
                [UInt8](key),
                TreeFigures(depth: depth, branchPages: number(at: 8), leafPages: number(at: 16), overflowPages: number(at: 24), entries: number(at: 32))))
            return true
        }
        return found
    }
}

extension DatabaseHandle {
    /// LMDB's main database (`MAIN_DBI`): always open, keyed by the names of the named databases
    /// and, from store format 6, holding the store's records (keys with a NUL byte).
    static let main = DatabaseHandle(raw: 1)
}
