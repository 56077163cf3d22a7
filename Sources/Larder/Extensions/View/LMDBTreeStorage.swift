/// The nodes of a view's counted tree, in the view's `tree` database (node id, big-endian).
struct LMDBTreeStorage: CountedTreeStorage {
    let lmdb: LMDBTransaction
    let database: DatabaseHandle

    func node(_ id: UInt64) throws -> [UInt8]? {
        if let attempt = lmdb.attempt { return try attempt.heldWrites(TreeNodeCache.init).node(id, in: database, lmdb: lmdb) }
        return try withUnsafeBytes(of: id.bigEndian) { try lmdb.get(database, key: $0) }.map { [UInt8]($0) }
    }

    /// In a write transaction, the node waits in the transaction's ``TreeNodeCache`` until the
    /// commit (or until something else reads the database).
    func setNode(_ id: UInt64, _ bytes: [UInt8]) throws {
        if let attempt = lmdb.attempt { return try attempt.heldWrites(TreeNodeCache.init).setNode(id, bytes, in: database, lmdb: lmdb) }
        try withUnsafeBytes(of: id.bigEndian) { key in
            try bytes.withUnsafeBytes { try lmdb.put(database, key: key, value: $0) }
        }
    }

    func removeNode(_ id: UInt64) throws {
        if let attempt = lmdb.attempt { return attempt.heldWrites(TreeNodeCache.init).removeNode(id, in: database) }
        _ = try withUnsafeBytes(of: id.bigEndian) { try lmdb.delete(database, key: $0) }
    }

    func nodeIDs() throws -> [UInt64]? {
        var ids: [UInt64] = []
        try lmdb.forEachEntry(in: database) { key, _ in
            if key.count == 8 { ids.append(UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))) }
            return true
        }
        return ids
    }
}
