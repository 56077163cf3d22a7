extension ReadWriteTransaction {
    /// Runs `body` in a savepoint: if it throws, everything it wrote is undone and the error
    /// rethrown, and the transaction goes on as it was before the savepoint; if it returns, its
    /// writes stay part of this transaction (committed, or not, with it).
    ///
    /// ```swift
    /// try db.write { txn in
    ///     try txn.setObject(order, forKey: order.id, inCollection: "orders")
    ///     do {
    ///         try txn.savepoint { txn in
    ///             try txn.setObject(receipt, forKey: order.id, inCollection: "receipts")
    ///             try charge(order)   // throws: the receipt is gone, the order stays
    ///         }
    ///     } catch {
    ///         try txn.setObject("unpaid", forKey: order.id, inCollection: "payments")
    ///     }
    /// }
    /// ```
    ///
    /// Use the transaction the closure receives: this one is closed while the savepoint runs.
    /// Savepoints nest. What a savepoint undoes is undone everywhere: the stored values (an LMDB
    /// nested transaction), views and indexes, the changeset observers receive, the caches, the
    /// undo step of an undoable write and the change log. ``rollback()`` inside a savepoint rolls
    /// back the whole transaction.
    /// - Throws: what `body` throws (after undoing its writes); ``LarderError`` when the nested
    ///   transaction cannot begin or end (LMDB failures, a full map).
    public func savepoint<R>(_ body: (ReadWriteTransaction) throws -> R) throws -> R {
        checkActive()
        precondition(enumerationDepth == 0, "Larder misuse: a savepoint began inside an enumeration. Collect the keys first, then change them after the enumeration.")
        precondition(!isRolledBack, "Larder misuse: a write transaction was used after rollback().")
        var result: R?
        isActive = false  // the savepoint's transaction is the one to use meanwhile
        defer { isActive = true }
        try lmdb.nested { child in
            let inner = ReadWriteTransaction(child, database: database, core: core, snapshot: snapshot, state: state.forked())
            defer { inner.isActive = false }
            inner.readRecorder = readRecorder
            inner.commitInfo = commitInfo
            result = try body(inner)
            guard !inner.isRolledBack else {
                isRolledBack = true
                return false
            }
            // The savepoint's work joins this transaction's: its participants (forked from these
            // at its start) now hold both.
            state = inner.state
            commitInfo = inner.commitInfo
            if inner.hasWritten { hasWritten = true }
            return true
        }
        // `body` returned (it would have thrown otherwise), kept or rolled back.
        return result!
    }
}
