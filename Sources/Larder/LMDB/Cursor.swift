internal import CLMDB

/// A cursor over one named database. Entries it returns are lent from the map.
struct Cursor {
    typealias Entry = (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)

    let handle: OpaquePointer
    let transaction: LMDBTransaction

    @inline(__always)
    private func step(_ op: MDB_cursor_op, key: UnsafeRawBufferPointer? = nil) throws(LarderError) -> Entry? {
        var k = MDB_val()
        if let key { k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress)) }
        var v = MDB_val()
        let rc = mdb_cursor_get(handle, &k, &v, op)
        if rc == MDB_NOTFOUND { return nil }
        if rc != MDB_SUCCESS { throw LMDBResult.error(rc, operation: "cursor", path: transaction.environment.path) }
        return (try transaction.checked(k, "cursor"), try transaction.checked(v, "cursor"))
    }

    /// Positions at the first key greater than or equal to `key`.
    func seek(atLeast key: UnsafeRawBufferPointer) throws(LarderError) -> Entry? { try step(MDB_SET_RANGE, key: key) }
    func first() throws(LarderError) -> Entry? { try step(MDB_FIRST) }
    func last() throws(LarderError) -> Entry? { try step(MDB_LAST) }
    func next() throws(LarderError) -> Entry? { try step(MDB_NEXT) }
    func previous() throws(LarderError) -> Entry? { try step(MDB_PREV) }

    /// Deletes the entry under the cursor.
    func deleteCurrent() throws(LarderError) {
        let rc = mdb_cursor_del(handle, 0)
        if rc != MDB_SUCCESS {
            if rc == MDB_MAP_FULL { transaction.attempt?.mapFull = true }
            throw LMDBResult.error(rc, operation: "delete", path: transaction.environment.path)
        }
    }
}
