/// One value kept in the store under a key, with a default: settings, a counter, the state of a
/// screen. Read it, update it in one transaction, and observe changes made anywhere (another
/// connection or another process).
///
/// ```swift
/// let launches = try Persistent(db, key: "launches", default: 0)
/// try launches.update { $0 += 1 }
/// for try await count in launches.values() { print(count) }   // now, then after each change
/// ```
///
/// It reads and writes through a connection of its own (and its cache). The value is stored as
/// the object at (`collection`, `key`): any other code may read or write it there too.
public final class Persistent<Value: Codable & Sendable>: Sendable {
    /// The collection single values are kept in unless another is named.
    public static var defaultCollection: String { "larder.persistent" }

    /// The database the value lives in.
    public let database: Database
    /// Where the value lives.
    public let index: YapDB.Index
    /// What ``value`` is while nothing is stored.
    public let defaultValue: Value
    private let connection: Connection

    /// The value stored under `key` in `collection`, `defaultValue` while there is none.
    /// - Throws: ``LarderError`` for an invalid key or collection.
    public init(_ database: Database, key: String, inCollection collection: String = Persistent.defaultCollection, default defaultValue: Value) throws {
        try StorageKey.validate(collection: collection, key: key, maxKeySize: database.environment.maxKeySize, operation: "persistent")
        self.database = database
        self.index = YapDB.Index(collection: collection, key: key)
        self.defaultValue = defaultValue
        self.connection = database.newConnection()
    }

    /// The current value (the default while none is stored).
    /// - Throws: ``LarderError`` when the stored bytes do not decode as `Value`.
    public var value: Value {
        get throws {
            try connection.read { try read($0) }
        }
    }

    private func read(_ txn: ReadTransaction) throws -> Value {
        try txn.object(forKey: index.key, inCollection: index.collection, as: Value.self) ?? defaultValue
    }

    /// Changes the value with `body` in one write transaction (a read-modify-write no other write
    /// can interleave with) and returns the new value.
    /// - Throws: what `body` throws (nothing is stored then), or a ``LarderError``.
    @discardableResult
    public func update(_ body: (inout Value) throws -> Void) throws -> Value {
        try connection.write { txn in
            var value = try read(txn)
            try body(&value)
            try txn.setObject(value, forKey: index.key, inCollection: index.collection)
            return value
        }
    }

    /// Stores `value`.
    public func set(_ value: Value) throws {
        try connection.write { try $0.setObject(value, forKey: index.key, inCollection: index.collection) }
    }

    /// Removes the stored value: ``value`` is the default again.
    public func reset() throws {
        _ = try connection.write { try $0.removeObject(forKey: index.key, inCollection: index.collection) }
    }

    /// The value now, then after every commit that changes it, from any connection or process
    /// (see ``Database/Configuration/changePollInterval`` for other processes). A slow consumer
    /// gets the latest value, not every intermediate one. Ends when the consuming task is cancelled.
    public func values() -> AsyncMapSequence<ObjectObservation<Value>, Value> {
        let key = index.key, collection = index.collection, defaultValue = defaultValue
        let observation = ObjectObservation<Value>(
            lease: SubscriptionLease(database: database, collection: collection), index: index, connection: connection,
            read: { try $0.object(forKey: key, inCollection: collection, as: Value.self) })
        return observation.map { $0 ?? defaultValue }
    }

    /// Calls `body` with the value now and after every change, on a task of its own, until the
    /// returned handle is cancelled or released. A read that fails ends the observation and goes
    /// to `onError`.
    public func onChange(_ body: @escaping @Sendable (Value) -> Void, onError: @escaping @Sendable (any Error) -> Void = { _ in }) -> ObservationHandle {
        let sequence = values()
        return ObservationHandle(Task {
            do {
                for try await value in sequence { body(value) }
            } catch {
                onError(error)
            }
        })
    }
}

/// Keeps a callback observation running; ``cancel()`` or releasing the handle stops it.
public final class ObservationHandle: Sendable {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) {
        self.task = task
    }

    /// Stops the observation.
    public func cancel() {
        task.cancel()
    }

    deinit { task.cancel() }
}
