import Synchronization

/// The counted-tree nodes (a view's `tree` database) that one write transaction has read or
/// written, kept in memory until the transaction commits, so that each node is read from LMDB
/// once and written back once per transaction instead of once per item changed.
///
/// Every insert or removal in a view's tree reads the nodes on the path from the root to a leaf
/// and writes each of them back (its counts change); without this, a transaction of n writes
/// copied the root and the branches below it in and out of LMDB n times.
///
/// The cache belongs to one write attempt (``LMDBTransaction/Attempt``, as its ``HeldWrites``) and always holds the work
/// of the innermost transaction in use: a nested transaction writes its parent's nodes out before
/// it begins, writes its own out before it commits, and drops them when it is abandoned. The
/// nodes reach LMDB (``flush(into:)``) before the transaction commits, before another part of the
/// code reads or counts a cached database through a cursor (``release(_:from:)``), and when the
/// cache outgrows `byteLimit`; emptying a database drops its nodes (``discard(_:)``). Only
/// ``LMDBTreeStorage`` reads and writes tree nodes with `get` and `put`, through this cache.
final class TreeNodeCache: HeldWrites {
    private enum Entry {
        /// As LMDB has it.
        case clean([UInt8])
        /// Written in this transaction, not yet in LMDB.
        case dirty([UInt8])
        /// Not in LMDB (read and found missing, or removed in this transaction: a removal is
        /// written as a delete, which finds nothing for a node that never reached LMDB).
        case absent(removed: Bool)
    }

    private struct Key: Hashable, Comparable {
        var database: UInt32
        var id: UInt64

        static func < (a: Key, b: Key) -> Bool { (a.database, a.id) < (b.database, b.id) }
    }

    /// Past this many bytes of nodes, the cache writes its dirty nodes out and starts again, so a
    /// transaction that rebuilds a big view does not hold the whole tree in memory. Tests lower it
    /// to make the cache write out in the middle of a transaction.
    static let byteLimit = Atomic<Int>(8 << 20)

    private var entries: [Key: Entry] = [:]
    /// The databases with entries: the few views of a store.
    private var databases: [UInt32] = []
    private var bytes = 0

    /// Whether the cache holds anything.
    var isEmpty: Bool { entries.isEmpty }

    /// Whether the cache holds nodes of `database`.
    @inline(__always)
    func holds(_ database: DatabaseHandle) -> Bool {
        !databases.isEmpty && databases.contains(database.raw)
    }

    /// Node `id` of `database` as this transaction sees it.
    func node(_ id: UInt64, in database: DatabaseHandle, lmdb: LMDBTransaction) throws -> [UInt8]? {
        let key = Key(database: database.raw, id: id)
        if let entry = entries[key] {
            switch entry {
            case .clean(let bytes), .dirty(let bytes): return bytes
            case .absent: return nil
            }
        }
        let stored = try withUnsafeBytes(of: id.bigEndian) { try lmdb.get(database, key: $0) }.map { [UInt8]($0) }
        remember(key, stored.map { .clean($0) } ?? .absent(removed: false))
        return stored
    }

    /// Sets node `id` of `database`; it reaches LMDB when the cache is flushed.
    func setNode(_ id: UInt64, _ bytes: [UInt8], in database: DatabaseHandle, lmdb: LMDBTransaction) throws {
        remember(Key(database: database.raw, id: id), .dirty(bytes))
        if self.bytes > Self.byteLimit.load(ordering: .relaxed) { try flush(into: lmdb) }
    }

    /// Removes node `id` of `database`; the delete reaches LMDB when the cache is flushed.
    func removeNode(_ id: UInt64, in database: DatabaseHandle) {
        remember(Key(database: database.raw, id: id), .absent(removed: true))
    }

    private func remember(_ key: Key, _ entry: Entry) {
        if let old = entries.updateValue(entry, forKey: key) {
            bytes -= Self.size(of: old)
        } else if !databases.contains(key.database) {
            databases.append(key.database)
        }
        bytes += Self.size(of: entry)
    }

    private static func size(of entry: Entry) -> Int {
        switch entry {
        case .clean(let bytes), .dirty(let bytes): bytes.count + 32
        case .absent: 32
        }
    }

    /// Writes every changed node to `lmdb`, in key order, and forgets everything.
    func flush(into lmdb: LMDBTransaction) throws {
        guard !entries.isEmpty else { return }
        try write(entries.keys.sorted(), into: lmdb)
        entries.removeAll(keepingCapacity: true)
        databases.removeAll(keepingCapacity: true)
        bytes = 0
    }

    /// Writes the changed nodes of `database` to `lmdb` and forgets that database's nodes, before
    /// something reads or counts the database without the cache.
    func release(_ database: DatabaseHandle, from lmdb: LMDBTransaction) throws {
        guard holds(database) else { return }
        let keys = entries.keys.filter { $0.database == database.raw }.sorted()
        try write(keys, into: lmdb)
        forget(keys, of: database)
    }

    /// Forgets the nodes of `database` without writing them: it was emptied.
    func discard(_ database: DatabaseHandle) {
        guard holds(database) else { return }
        forget(entries.keys.filter { $0.database == database.raw }, of: database)
    }

    /// Forgets everything without writing it: the transaction that made it was abandoned.
    func discardAll() {
        entries.removeAll()
        databases.removeAll()
        bytes = 0
    }

    private func forget(_ keys: [Key], of database: DatabaseHandle) {
        for key in keys {
            if let old = entries.removeValue(forKey: key) { bytes -= Self.size(of: old) }
        }
        databases.removeAll { $0 == database.raw }
    }

    /// Writes the changed nodes among `keys` to `lmdb`; the callers forget the keys right after.
    private func write(_ keys: [Key], into lmdb: LMDBTransaction) throws {
        for key in keys {
            let database = DatabaseHandle(raw: key.database)
            switch entries[key] {
            case .dirty(let bytes):
                try withUnsafeBytes(of: key.id.bigEndian) { id in
                    try bytes.withUnsafeBytes { try lmdb.put(database, key: id, value: $0) }
                }
            case .absent(removed: true):
                _ = try withUnsafeBytes(of: key.id.bigEndian) { try lmdb.delete(database, key: $0) }
            case .clean, .absent(removed: false), nil:
                break
            }
        }
    }
}
