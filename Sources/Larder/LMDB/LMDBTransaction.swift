internal import CLMDB

/// A live LMDB transaction: get, put, delete and cursors over byte buffers.
///
/// Buffers it returns point into the memory map and are valid until the next write in the
/// transaction or its end; callers decode or copy them at once and never let them escape. Each
/// is checked to lie within the data file before it is handed out (a damaged file can make LMDB
/// return sizes past its end): such a buffer is a ``LarderError/Code/corrupted`` error.
struct LMDBTransaction {
    /// Per-attempt flags the write loop reads after the body ran.
    final class Attempt {
        /// A put or delete hit `MDB_MAP_FULL`: the attempt must be aborted and retried larger.
        var mapFull = false
        /// The body asked to roll back.
        var rolledBack = false
        /// The writes a layer above holds back from this attempt's innermost transaction (see
        /// ``HeldWrites``), made by the first use.
        private(set) var heldWritesIfAny: (any HeldWrites)?

        /// The attempt's held writes, made by `make` on first use. One kind per attempt.
        func heldWrites<H: HeldWrites>(_ make: () -> H) -> H {
            if let heldWritesIfAny {
                assert(heldWritesIfAny is H, "an attempt holds one kind of writes")
                return unsafeDowncast(heldWritesIfAny, to: H.self)
            }
            let made = make()
            heldWritesIfAny = made
            return made
        }
    }

    let handle: OpaquePointer
    unowned let environment: Environment
    let attempt: Attempt?
    /// The environment's bound, held here so that the check of each buffer is a plain load.
    let mapBound: MapBound

    init(handle: OpaquePointer, environment: Environment, attempt: Attempt?) {
        self.handle = handle
        self.environment = environment
        self.attempt = attempt
        self.mapBound = environment.mapBound
    }

    var databases: Environment.Databases { environment.databases }

    /// Whether this transaction writes: its buffers may point into dirty pages off the map.
    var isWritable: Bool { attempt != nil }

    /// `value` as a buffer, once it is known to lie within the data file (see ``MapBound``).
    @inline(__always)
    func checked(_ value: MDB_val, _ operation: StaticString) throws(LarderError) -> UnsafeRawBufferPointer {
        try mapBound.buffer(value, writable: isWritable, operation: operation)
    }

    /// LMDB's id of this transaction: a write transaction's is one more than the commit it
    /// started from; a read transaction's is the id of the newest commit when it began, which
    /// is not always the commit it sees (see ``snapshotID``).
    var id: Int { Int(mdb_txn_id(handle)) }

    /// The id of the commit whose pages this read transaction sees, when LMDB can vouch for it;
    /// `nil` when a commit has been made since the transaction began.
    ///
    /// LMDB begins a read transaction by publishing the id of the newest commit in its reader
    /// slot, and only then reads the meta page that id's parity names. A reader delayed between
    /// the two steps while two more commits land reads the meta page the later one wrote over
    /// it: its pages are then those of a newer commit than its id says (never an older one; they
    /// stay safe, as the slot protects everything freed since the id). Such an id would
    /// name two snapshots. If, after the transaction began, the newest commit is still its id,
    /// no commit has written a meta page since it published the id, so the id is the
    /// snapshot's. Found by a test that read a connection's cache, which trusted the id, going
    /// back a commit under load.
    var snapshotID: Int? {
        let id = self.id
        return environment.lastTransactionID() == id ? id : nil
    }
    /// The transaction id as LMDB keeps it, unsigned: a damaged meta page can carry one past
    /// `Int.max`, which LMDB uses as it is (``id`` is then negative).
    var transactionID: UInt64 { UInt64(UInt(bitPattern: mdb_txn_id(handle))) }

    /// Runs `body` in a transaction nested in this write transaction, committing it into this one
    /// when `body` returns `true` and abandoning it (and only it) when `body` returns `false` or
    /// throws. This transaction must not be used while `body` runs.
    func nested(_ body: (LMDBTransaction) throws -> Bool) throws {
        // The tree nodes cached so far are this transaction's: they go into it before the child
        // begins, so the child sees them and its own cache starts empty.
        try flushHeldWrites()
        var child: OpaquePointer?
        let rc = mdb_txn_begin(environment.handle, handle, 0, &child)
        guard rc == MDB_SUCCESS, let child else { throw fail(rc, "beginNested") }
        let childTransaction = LMDBTransaction(handle: child, environment: environment, attempt: attempt)
        let keep: Bool
        do {
            keep = try body(childTransaction)
            if keep { try childTransaction.flushHeldWrites() }
        } catch {
            attempt?.heldWritesIfAny?.discardAll()
            mdb_txn_abort(child)
            throw error
        }
        guard keep else {
            attempt?.heldWritesIfAny?.discardAll()
            mdb_txn_abort(child)
            return
        }
        let commit = mdb_txn_commit(child)  // frees the child whatever it returns
        if commit != MDB_SUCCESS { throw fail(commit, "commitNested") }
    }

    /// Opens the database `name`, creating it when `create` is set (in a write transaction).
    func openDatabase(_ name: String, create: Bool) throws(LarderError) -> DatabaseHandle {
        var dbi = MDB_dbi()
        try LMDBResult.check(mdb_dbi_open(handle, name, create ? UInt32(MDB_CREATE) : 0, &dbi), "openDatabase(\(name))", path: environment.path)
        return DatabaseHandle(raw: dbi)
    }

    /// Opens the database `name` (`nil`: LMDB's main database) if it exists; never creates.
    func openExistingDatabase(_ name: String?) throws(LarderError) -> DatabaseHandle? {
        var dbi = MDB_dbi()
        let rc = mdb_dbi_open(handle, name, 0, &dbi)
        if rc == MDB_NOTFOUND { return nil }
        try LMDBResult.check(rc, "openDatabase(\(name ?? "main"))", path: environment.path)
        return DatabaseHandle(raw: dbi)
    }

    @inline(__always)
    private func fail(_ rc: Int32, _ operation: String) -> LarderError {
        if rc == MDB_MAP_FULL { attempt?.mapFull = true }
        return LMDBResult.error(rc, operation: operation, path: environment.path)
    }

    /// The value stored under `key`, or `nil`.
    @inline(__always)
    func get(_ database: DatabaseHandle, key: UnsafeRawBufferPointer) throws(LarderError) -> UnsafeRawBufferPointer? {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val()
        let rc = mdb_get(handle, database.raw, &k, &v)
        if rc == MDB_NOTFOUND { return nil }
        if rc != MDB_SUCCESS { throw fail(rc, "get") }
        return try checked(v, "get")
    }

    func get(_ database: DatabaseHandle, key: String) throws(LarderError) -> UnsafeRawBufferPointer? {
        var bytes = Array(key.utf8)
        var v = MDB_val()
        let rc = bytes.withUnsafeMutableBytes { raw in
            var k = MDB_val(mv_size: raw.count, mv_data: raw.baseAddress)
            return mdb_get(handle, database.raw, &k, &v)
        }
        if rc == MDB_NOTFOUND { return nil }
        if rc != MDB_SUCCESS { throw fail(rc, "get") }
        return try checked(v, "get")
    }

    /// Stores `value` under `key`, replacing what was there.
    @inline(__always)
    func put(_ database: DatabaseHandle, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(LarderError) {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        let rc = mdb_put(handle, database.raw, &k, &v, 0)
        if rc != MDB_SUCCESS { throw fail(rc, "put") }
    }

    /// Stores `value` under `key` through `cursor`, replacing what was there; returns whether
    /// something was. The tree is searched once whether the key is new or not: the cursor is left
    /// on an existing key, and the value replaced where it stands.
    ///
    /// `cursor` is opened on `database` in this transaction when `nil`, and must be used with no
    /// other transaction or database. This must be a write transaction: LMDB frees the cursor
    /// when the transaction ends, so nothing closes it.
    @inline(__always)
    func put(_ database: DatabaseHandle, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, through cursor: inout OpaquePointer?) throws(LarderError) -> Bool {
        if cursor == nil {
            var opened: OpaquePointer?
            let rc = mdb_cursor_open(handle, database.raw, &opened)
            guard rc == MDB_SUCCESS, opened != nil else { throw fail(rc, "cursor") }
            cursor = opened
        }
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        var rc = mdb_cursor_put(cursor, &k, &v, UInt32(MDB_NOOVERWRITE))
        if rc == MDB_SUCCESS { return false }
        guard rc == MDB_KEYEXIST else { throw fail(rc, "put") }
        // LMDB pointed `v` at the stored value; MDB_CURRENT replaces it at the cursor.
        v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        rc = mdb_cursor_put(cursor, &k, &v, UInt32(MDB_CURRENT))
        if rc != MDB_SUCCESS { throw fail(rc, "put") }
        return true
    }

    /// Stores `value` under `key` unless the key is there already; returns whether it stored it.
    /// An existing key is an answer, not an error: it leaves the entry as it was.
    @inline(__always)
    func putIfAbsent(_ database: DatabaseHandle, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(LarderError) -> Bool {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        let rc = mdb_put(handle, database.raw, &k, &v, UInt32(MDB_NOOVERWRITE))
        if rc == MDB_KEYEXIST { return false }
        if rc != MDB_SUCCESS { throw fail(rc, "put") }
        return true
    }

    /// Stores `value` under `key` when `key` sorts after every key of `database`, and returns
    /// whether it did (`false`: it stored nothing). LMDB then adds the entry at the end of the
    /// last page, and a full last page gets a new page after it instead of being split in half
    /// (`MDB_APPEND`), so keys written in increasing order fill their pages.
    @inline(__always)
    func putAtEnd(_ database: DatabaseHandle, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(LarderError) -> Bool {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        let rc = mdb_put(handle, database.raw, &k, &v, UInt32(MDB_APPEND))
        if rc == MDB_KEYEXIST { return false }
        if rc != MDB_SUCCESS { throw fail(rc, "put") }
        return true
    }

    func put(_ database: DatabaseHandle, key: String, value: UnsafeRawBufferPointer) throws(LarderError) {
        var bytes = Array(key.utf8)
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        let rc = bytes.withUnsafeMutableBytes { raw in
            var k = MDB_val(mv_size: raw.count, mv_data: raw.baseAddress)
            return mdb_put(handle, database.raw, &k, &v, 0)
        }
        if rc != MDB_SUCCESS { throw fail(rc, "put") }
    }

    /// Deletes `key`; returns whether it was there.
    @inline(__always)
    @discardableResult
    func delete(_ database: DatabaseHandle, key: UnsafeRawBufferPointer) throws(LarderError) -> Bool {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        let rc = mdb_del(handle, database.raw, &k, nil)
        if rc == MDB_NOTFOUND { return false }
        if rc != MDB_SUCCESS { throw fail(rc, "delete") }
        return true
    }

    /// Writes what a layer above holds back in memory (``HeldWrites``) into this transaction;
    /// before it commits, and before a nested transaction begins.
    func flushHeldWrites() throws {
        guard let cache = attempt?.heldWritesIfAny, !cache.isEmpty else { return }
        try cache.flush(into: self)
    }

    /// Writes the held writes of `database` into this transaction before something reads it
    /// through a cursor or counts it.
    @inline(__always)
    private func releaseHeldWrites(of database: DatabaseHandle) throws {
        guard let cache = attempt?.heldWritesIfAny, cache.holds(database) else { return }
        try cache.release(database, from: self)
    }

    /// Removes every entry of `database`, keeping the database.
    func empty(_ database: DatabaseHandle) throws(LarderError) {
        attempt?.heldWritesIfAny?.discard(database)
        let rc = mdb_drop(handle, database.raw, 0)
        if rc != MDB_SUCCESS { throw fail(rc, "empty") }
    }

    /// The number of entries in `database`.
    func count(_ database: DatabaseHandle) throws -> Int {
        try releaseHeldWrites(of: database)
        var stat = MDB_stat()
        let rc = mdb_stat(handle, database.raw, &stat)
        if rc != MDB_SUCCESS { throw fail(rc, "stat") }
        return stat.ms_entries
    }

    /// Runs `body` with a cursor on `database`, closing it afterwards.
    func withCursor<R>(_ database: DatabaseHandle, _ body: (inout Cursor) throws -> R) throws -> R {
        try releaseHeldWrites(of: database)
        var cursor: OpaquePointer?
        let rc = mdb_cursor_open(handle, database.raw, &cursor)
        guard rc == MDB_SUCCESS, let cursor else { throw fail(rc, "cursor") }
        defer { mdb_cursor_close(cursor) }
        var wrapper = Cursor(handle: cursor, transaction: self)
        return try body(&wrapper)
    }

    /// Runs `body` with `count` cursors on `database`, closed afterwards, to walk several key
    /// ranges side by side. The entries they return stay valid until the transaction writes or
    /// ends, wherever the cursors move meanwhile: `body` must not write.
    ///
    /// The cursors are opened in a loop and closed by one `defer`, so the stack this takes does
    /// not grow with `count` (a phrase of many words opens one cursor per word).
    func withCursors<R>(_ database: DatabaseHandle, count: Int, _ body: ([Cursor]) throws -> R) throws -> R {
        try releaseHeldWrites(of: database)
        var cursors: [Cursor] = []
        cursors.reserveCapacity(count)
        defer {
            for cursor in cursors { mdb_cursor_close(cursor.handle) }
        }
        for _ in 0..<max(0, count) {
            var cursor: OpaquePointer?
            let rc = mdb_cursor_open(handle, database.raw, &cursor)
            guard rc == MDB_SUCCESS, let cursor else { throw fail(rc, "cursor") }
            cursors.append(Cursor(handle: cursor, transaction: self))
        }
        return try body(cursors)
    }
}
