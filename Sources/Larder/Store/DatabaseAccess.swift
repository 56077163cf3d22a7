/// What ``Database`` and ``Connection`` have in common: they read and write the store in
/// transactions, and every convenience built on that — asynchronous reads, undoable writes, undo
/// and redo, one-call reads and writes of ``Persistable`` values, observation — is written once,
/// here, for both.
///
/// ```swift
/// func rename(_ id: String, to name: String, in store: some DatabaseAccess) throws {
///     try store.write(undoable: "Rename") { txn in
///         guard var product = try txn.read(Product.self, key: id) else { return }
///         product.name = name
///         try txn.write(product)
///     }
/// }
/// try rename("p1", to: "Claw hammer", in: db)                  // through the database's caches
/// try rename("p1", to: "Claw hammer", in: db.newConnection())  // or a connection's
/// ```
///
/// The requirements are the ways of running a transaction (each, synchronous or `async`) and the
/// database they run in. Every overload of `read` and `write` that takes a transaction closure is
/// a requirement, so that Swift ranks them alike and picks the `async` one in `async` code.
/// ``Database`` and ``Connection`` are the conforming types; a type of your own may conform by
/// forwarding the requirements to one of them (to add logging, say), and then has every
/// convenience too.
///
/// ## Asynchronous code
/// The asynchronous entry points are the `async` forms of `read` and `write`. Every operation that writes is also
/// a method of the transaction, so the asynchronous form of any of them is one `write` away and
/// runs, group-committed, on the database's writer thread without blocking a task:
///
/// ```swift
/// try await db.write { try $0.undo() }
/// try await db.write { try launches.update(in: $0) { $0 += 1 } }
/// ```
///
/// There are deliberately no `async` twins of the synchronous operations that take no closure
/// (`undo()`, `Persistent.set(_:)`): in an `async` function Swift prefers an `async` overload,
/// so adding one would make every existing `try db.undo()` there an error until it is awaited.
public protocol DatabaseAccess: Sendable {
    /// The database this reads and writes (a ``Database`` is its own).
    var database: Database { get }

    /// Runs `body` in a read-only transaction: a consistent snapshot of the store as of its
    /// start (or, for a ``Connection`` with a pinned snapshot, the pinned one).
    ///
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin.
    /// - Precondition: the transaction is not used after `body` returns.
    func read<R>(_ body: (ReadTransaction) throws -> R) throws -> R

    /// Runs `body` in a read-only transaction from asynchronous code.
    ///
    /// A read transaction never waits for writers, so this runs on the calling task.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin.
    func read<R: Sendable>(_ body: @Sendable (ReadTransaction) throws -> R) async throws -> R

    /// Runs `body` in a read-write transaction on the calling thread and commits it when `body`
    /// returns, durably as ``Database/Configuration/durability`` says. If `body` throws, or
    /// calls ``ReadWriteTransaction/rollback()``, nothing it did is kept. A write always starts
    /// from the newest commit.
    ///
    /// `body` runs again from the start if the store's map has to grow to fit what it writes:
    /// keep side effects outside the store out of it.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin or commit.
    /// - Precondition: no write transaction of this database is open on the calling thread
    ///   (LMDB would deadlock), and the transaction is not used after `body` returns.
    func write<R>(_ body: (ReadWriteTransaction) throws -> R) throws -> R

    /// Runs `body` in a read-write transaction on the database's writer thread and returns once
    /// the commit is durable (as ``Database/Configuration/durability`` says); the calling task
    /// is suspended meanwhile, no thread is blocked.
    ///
    /// Asynchronous writes waiting at the same time are **committed together**: one LMDB
    /// transaction, with each closure in a nested transaction of its own, so a closure that
    /// throws (or calls ``ReadWriteTransaction/rollback()``) undoes only its own work and only
    /// its caller sees the error. One commit is much cheaper than several durable ones. Writes
    /// submitted by one task run in the order it submitted them.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin or commit.
    func write<R: Sendable>(_ body: @escaping @Sendable (ReadWriteTransaction) throws -> R) async throws -> R
}
