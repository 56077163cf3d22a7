/// A Larder store: one LMDB environment holding collections of keyed objects and their metadata.
///
/// Open one with a path; reads and writes run in closure-scoped transactions that return what
/// the closure returns:
///
/// ```swift
/// let db = try Database(path: "/tmp/shop")
/// try db.write { txn in
///     try txn.setObject(Product(id: "p1", name: "Hammer"), forKey: "p1", inCollection: "products")
/// }
/// let name = try db.read { txn in
///     try txn.object(forKey: "p1", inCollection: "products", as: Product.self)?.name
/// }
/// ```
///
/// A `Database` is `Sendable`: share it between threads and tasks. Opening a file that this
/// process already has open (by any path: symlinks, hard links) shares the open environment, as
/// LMDB requires. The store closes when the last `Database` on it is released.
///
/// Reads never wait for writers. Writes are serialized: synchronous writes run on the calling
/// thread; asynchronous writes run, in order, on a thread of the database's own, never on
/// Swift's cooperative pool.
public final class Database: Sendable {
    /// The path the database was opened with.
    public let path: String
    let environment: Environment
    let archivers = ArchiverRegistry()
    let writer = WriterThread()

    /// Opens the store at `path`, creating it if there is nothing there.
    ///
    /// `path` names a directory (created with the owner-only permissions of
    /// ``Configuration/fileMode`` if missing) or, with ``Configuration/singleFile`` or when it is
    /// an existing regular file, one data file.
    ///
    /// - Throws: ``LarderError`` with code
    ///   - ``LarderError/Code/notAStore`` when the path holds something else (a file that is not
    ///     LMDB, or an LMDB database that Larder did not create);
    ///   - ``LarderError/Code/newerFormatVersion`` when a newer Larder wrote the store;
    ///   - ``LarderError/Code/permissionDenied`` when the files cannot be created or opened;
    ///   - ``LarderError/Code/lmdb`` or ``LarderError/Code/io`` for other failures.
    ///   A failed open changes nothing at `path`.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        guard configuration.initialMapSize > 0, configuration.maxReaders > 0 else {
            throw LarderError(.invalidConfiguration, "initialMapSize and maxReaders must be positive", operation: "open", path: path)
        }
        self.path = path
        self.environment = try EnvironmentRegistry.acquire(path: path, configuration: configuration)
    }

    deinit {
        writer.stop()
        EnvironmentRegistry.release(environment)
    }

    /// A new connection to this database. Connections are cheap; give each part of a program
    /// that reads on its own one of its own.
    public func newConnection() -> Connection {
        Connection(database: self)
    }

    /// Uses `archiver` for values of its type in `collection`, instead of the type's own archiver
    /// (``Saveable``) or the default MessagePack archiver (`Codable`). Reads and writes of other
    /// types in that collection are not affected.
    ///
    /// ```swift
    /// db.register(JSONArchiver<Product>(), forCollection: "products")
    /// ```
    public func register<A: Archiver>(_ archiver: A, forCollection collection: String) {
        archivers.register(archiver, forCollection: collection)
    }

    /// Flushes every commit to the disk now (useful with ``Durability/deferred(interval:)``).
    /// - Throws: ``LarderError`` when the operating system reports a failure to write.
    public func sync() throws {
        try environment.sync()
    }

    // MARK: Transactions

    /// Runs `body` in a read-only transaction: a consistent snapshot of the store as of its start.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin.
    /// - Precondition: the transaction is not used after `body` returns.
    public func read<R>(_ body: (ReadTransaction) throws -> R) throws -> R {
        try performRead(body)
    }

    func performRead<R>(_ body: (ReadTransaction) throws -> R) throws -> R {
        let handle = try environment.beginRead()
        let transaction = ReadTransaction(LMDBTransaction(handle: handle, environment: environment, attempt: nil), database: self)
        defer {
            transaction.isActive = false
            environment.endRead(handle)
        }
        return try body(transaction)
    }

    /// Runs `body` in a read-write transaction and commits it when `body` returns, durably as
    /// ``Configuration/durability`` says. If `body` throws, or calls
    /// ``ReadWriteTransaction/rollback()``, nothing it did is kept.
    ///
    /// `body` runs again from the start if the store's map has to grow to fit what it writes:
    /// keep side effects outside the store out of it.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin or commit.
    /// - Precondition: no write transaction of this database is open on the calling thread
    ///   (LMDB would deadlock), and the transaction is not used after `body` returns.
    public func write<R>(_ body: (ReadWriteTransaction) throws -> R) throws -> R {
        try performWrite(body)
    }

    func performWrite<R>(_ body: (ReadWriteTransaction) throws -> R) throws -> R {
        try environment.write { lmdb in
            let transaction = ReadWriteTransaction(lmdb, database: self)
            defer { transaction.isActive = false }
            let result = try body(transaction)
            if !transaction.isRolledBack { try transaction.finish() }
            return result
        }
    }

    /// Runs `body` in a read-only transaction from asynchronous code.
    ///
    /// A read transaction never waits for writers, so this runs on the calling task.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin.
    public func read<R: Sendable>(_ body: @Sendable (ReadTransaction) throws -> R) async throws -> R {
        try performRead(body)
    }

    /// Runs `body` in a read-write transaction on the database's writer thread and returns when
    /// it has committed; the calling task is suspended meanwhile, no thread is blocked.
    /// Writes submitted by one task run in the order it submitted them.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin or commit.
    public func write<R: Sendable>(_ body: @escaping @Sendable (ReadWriteTransaction) throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            writer.enqueue {
                continuation.resume(with: Result { try self.performWrite(body) })
            }
        }
    }
}
