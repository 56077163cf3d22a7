extension Database {
    /// The figures of LMDB's main database and of every named database of the store, as of one
    /// read transaction: entries, tree depth, branch, leaf and overflow pages (what `mdb_stat -a`
    /// prints). The main database comes first, then the named databases in the byte order of
    /// their names.
    ///
    /// ```swift
    /// for tree in try db.databaseStatistics() {
    ///     print(tree.name ?? "main", tree.entries, tree.pages)
    /// }
    /// ```
    /// - Complexity: O(number of named databases).
    /// - Throws: ``LarderError`` when the read transaction cannot begin, or
    ///   ``LarderError/Code/corrupted`` when a record of the main database is malformed.
    public func databaseStatistics() throws -> [DatabaseStatistics] {
        try read { txn in
            let lmdb = txn.lmdb
            let main = try lmdb.mainDatabaseFigures()
            var all = [DatabaseStatistics(main, name: nil)]
            for (name, figures) in try lmdb.namedDatabaseFigures() {
                all.append(DatabaseStatistics(figures, name: String(decoding: name, as: UTF8.self)))
            }
            return all
        }
    }
}

extension DatabaseStatistics {
    init(_ figures: LMDBTransaction.TreeFigures, name: String?) {
        self.init(
            name: name, entries: figures.entries, depth: figures.depth, branchPages: figures.branchPages,
            leafPages: figures.leafPages, overflowPages: figures.overflowPages)
    }
}
