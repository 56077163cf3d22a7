/// A connection to a ``Database``: the handle through which one part of a program reads and
/// writes.
///
/// A connection is `Sendable` and may be used from several threads; its transactions behave as
/// the database's do (``Database/read(_:)-(ReadTransaction)->R``,
/// ``Database/write(_:)-(ReadWriteTransaction)->R``).
///
/// ```swift
/// let connection = db.newConnection()
/// let count = try connection.read { try $0.numberOfKeys(inCollection: "products") }
/// ```
public final class Connection: Sendable {
    /// The database this connection belongs to.
    public let database: Database

    init(database: Database) {
        self.database = database
    }

    /// Runs `body` in a read-only transaction; see ``Database/read(_:)-(ReadTransaction)->R``.
    public func read<R>(_ body: (ReadTransaction) throws -> R) throws -> R {
        try database.read(body)
    }

    /// Runs `body` in a read-write transaction; see ``Database/write(_:)-(ReadWriteTransaction)->R``.
    public func write<R>(_ body: (ReadWriteTransaction) throws -> R) throws -> R {
        try database.write(body)
    }

    /// Runs `body` in a read-only transaction from asynchronous code.
    public func read<R: Sendable>(_ body: @Sendable (ReadTransaction) throws -> R) async throws -> R {
        try await database.read(body)
    }

    /// Runs `body` in a read-write transaction on the writer thread; see
    /// ``Database/write(_:)-(@Sendable(ReadWriteTransaction)->R)``.
    public func write<R: Sendable>(_ body: @escaping @Sendable (ReadWriteTransaction) throws -> R) async throws -> R {
        try await database.write(body)
    }
}
