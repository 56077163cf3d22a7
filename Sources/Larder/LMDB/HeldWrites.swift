/// Writes a layer above LMDB holds back in memory for the length of a write attempt, so that an
/// entry written many times in one transaction reaches LMDB once (the counted trees' nodes, see
/// ``TreeNodeCache``).
///
/// The attempt (``LMDBTransaction/Attempt``) keeps at most one, made by the first use
/// (``LMDBTransaction/Attempt/heldWrites(_:)``), and calls on it where what it holds must be in
/// LMDB or must go: before a commit and before a nested transaction begins (``flush(into:)``),
/// before a cursor or a count reads a database it holds entries of (``release(_:from:)``), when a
/// database is emptied (``discard(_:)``) and when a nested transaction is abandoned
/// (``discardAll()``). The LMDB layer knows nothing of what the entries mean.
protocol HeldWrites: AnyObject {
    /// Whether nothing is held.
    var isEmpty: Bool { get }
    /// Whether any entry of `database` is held.
    func holds(_ database: DatabaseHandle) -> Bool
    /// Writes every held entry into `lmdb` (and keeps what it read, clean).
    func flush(into lmdb: LMDBTransaction) throws
    /// Writes the held entries of `database` into `lmdb` and forgets them.
    func release(_ database: DatabaseHandle, from lmdb: LMDBTransaction) throws
    /// Forgets every held entry of `database`, written or not (it was emptied).
    func discard(_ database: DatabaseHandle)
    /// Forgets everything held (the nested transaction that wrote it was abandoned).
    func discardAll()
}
