import Synchronization

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
/// the object at (`collection`, `key`): any other code may read or write it there too. Inside a
/// transaction, and from asynchronous code, use ``update(in:_:)``, ``set(_:in:)``,
/// ``reset(in:)`` and ``value(in:)``: `try await db.write { try launches.update(in: $0) { $0 += 1 } }`
/// runs on the database's writer thread.
public final class Persistent<Value: Codable & Sendable>: Sendable {
    /// The collection single values are kept in unless another is named.
    public static var defaultCollection: String { "larder.persistent" }

    /// The database the value lives in.
    public let database: Database
    /// Where the value lives, for a value bound to a key; `nil` for one bound to a root.
    public let index: YapDB.Index?
    /// The root that names the value, for a value bound to a root (see ``init(_:root:default:)``).
    public let rootName: String?
    /// What ``value`` is while nothing is stored.
    public let defaultValue: Value
    private let connection: Connection
    /// Where a value is stored, for a value bound to a root (its own index).
    private let place: (@Sendable (Value) -> YapDB.Index)?

    /// The value stored under `key` in `collection`, `defaultValue` while there is none.
    /// - Throws: ``LarderError`` for an invalid key or collection.
    public init(_ database: Database, key: String, inCollection collection: String = Persistent.defaultCollection, default defaultValue: Value) throws {
        try StorageKey.validate(collection: collection, key: key, maxKeySize: database.environment.maxKeySize, operation: "persistent")
        self.database = database
        self.index = YapDB.Index(collection: collection, key: key)
        self.rootName = nil
        self.defaultValue = defaultValue
        self.connection = database.newConnection()
        self.place = nil
    }

    /// The value the root called `name` names (see ``ReadWriteTransaction/setRoot(_:named:)``),
    /// `defaultValue` while there is no such root or its value is gone.
    ///
    /// ```swift
    /// let current = try Persistent(db, root: "currentDocument", default: Document(id: "untitled"))
    /// try current.set(opened)   // stores `opened` at its own index and points the root at it
    /// ```
    ///
    /// The value lives at its own index (`Value.collection`, its key). Storing a value with
    /// another key moves the root to it; the value it named before stays stored.
    /// - Throws: ``LarderError`` for an invalid root name.
    public init(_ database: Database, root name: String, default defaultValue: Value) throws where Value: Persistable {
        try StorageKey.validate(collection: ReadWriteTransaction.rootsCollection, key: name, maxKeySize: database.environment.maxKeySize, operation: "persistent")
        self.database = database
        self.index = nil
        self.rootName = name
        self.defaultValue = defaultValue
        self.connection = database.newConnection()
        self.place = { $0.index }
    }

    /// The current value (the default while none is stored).
    /// - Throws: ``LarderError`` when the stored bytes do not decode as `Value`.
    public var value: Value {
        get throws {
            try connection.read { try read($0) ?? defaultValue }
        }
    }

    /// Where the value is now: its key's index, or the index its root names.
    private func currentIndex(_ txn: ReadTransaction) throws -> YapDB.Index? {
        if let index { return index }
        return try rootName.flatMap { try txn.rootIndex(named: $0) }
    }

    private func read(_ txn: ReadTransaction) throws -> Value? {
        guard let index = try currentIndex(txn) else { return nil }
        return try txn.object(forKey: index.key, inCollection: index.collection, as: Value.self)
    }

    private func store(_ value: Value, in txn: ReadWriteTransaction) throws {
        if let index {
            return try txn.setObject(value, forKey: index.key, inCollection: index.collection)
        }
        guard let place, let rootName else { return }
        let target = place(value)
        try txn.setObject(value, forKey: target.key, inCollection: target.collection)
        if try txn.rootIndex(named: rootName) != target {
            try txn.setObject(target, forKey: rootName, inCollection: ReadWriteTransaction.rootsCollection)
        }
    }

    /// Changes the value with `body` in one write transaction (a read-modify-write no other write
    /// can interleave with) and returns the new value.
    /// - Throws: what `body` throws (nothing is stored then), or a ``LarderError``.
    @discardableResult
    public func update(_ body: (inout Value) throws -> Void) throws -> Value {
        try connection.write { try update(in: $0, body) }
    }

    /// Stores `value`.
    /// - Throws: ``LarderError`` when it does not encode or (bound to a root) its key is invalid.
    public func set(_ value: Value) throws {
        try connection.write { try set(value, in: $0) }
    }

    /// Forgets the value: ``value`` is the default again. Bound to a key, the stored value is
    /// removed; bound to a root, the root is (the value it named stays stored).
    /// - Throws: ``LarderError`` when the write fails (the value is then still stored).
    public func reset() throws {
        try connection.write { try reset(in: $0) }
    }

    // MARK: Inside a transaction

    /// The value as `txn` sees it (the default while none is stored).
    /// - Throws: ``LarderError`` when the stored bytes do not decode as `Value`.
    public func value(in txn: ReadTransaction) throws -> Value {
        try read(txn) ?? defaultValue
    }

    /// Changes the value with `body` in `txn` and returns the new value: together with whatever
    /// else `txn` writes, and, in an asynchronous write, on the database's writer thread.
    ///
    /// ```swift
    /// let launches = try Persistent(db, key: "launches", default: 0)
    /// let count = try await db.write { try launches.update(in: $0) { $0 += 1 } }
    /// ```
    /// - Throws: what `body` throws (the transaction then has stored nothing for it), or a
    ///   ``LarderError``.
    /// - Precondition: `txn` is a transaction of this value's store.
    @discardableResult
    public func update(in txn: ReadWriteTransaction, _ body: (inout Value) throws -> Void) throws -> Value {
        checkStore(of: txn)
        var value = try read(txn) ?? defaultValue
        try body(&value)
        try store(value, in: txn)
        return value
    }

    /// Stores `value` in `txn` (see ``update(in:_:)``).
    /// - Throws: ``LarderError`` when it does not encode or (bound to a root) its key is invalid.
    /// - Precondition: `txn` is a transaction of this value's store.
    public func set(_ value: Value, in txn: ReadWriteTransaction) throws {
        checkStore(of: txn)
        try store(value, in: txn)
    }

    /// Forgets the value in `txn`, as ``reset()`` does.
    /// - Throws: ``LarderError`` when the write fails.
    /// - Precondition: `txn` is a transaction of this value's store.
    public func reset(in txn: ReadWriteTransaction) throws {
        checkStore(of: txn)
        if let index {
            try txn.removeObject(forKey: index.key, inCollection: index.collection)
        } else if let rootName {
            try txn.removeRoot(named: rootName)
        }
    }

    private func checkStore(of txn: ReadTransaction) {
        precondition(
            txn.database.environment === database.environment,
            "Larder misuse: a Persistent value was written in a transaction of another store. Use a transaction of the database it was made with.")
    }

    /// The value now, then after every commit that changes it, from any connection or process
    /// (see ``Database/Configuration/changePollInterval`` for other processes). A slow consumer
    /// gets the latest value, not every intermediate one. Ends when the consuming task is
    /// cancelled. Bound to a root, a commit that moves the root counts as a change.
    public func values() -> AsyncMapSequence<ObjectObservation<Value>, Value> {
        let defaultValue = defaultValue
        let observation: ObjectObservation<Value>
        if let index {
            observation = ObjectObservation(
                lease: SubscriptionLease(database: database, collection: index.collection), index: index, reader: connection,
                read: { try $0.object(forKey: index.key, inCollection: index.collection, as: Value.self) })
        } else {
            let rootEntry = YapDB.Index(collection: ReadWriteTransaction.rootsCollection, key: rootName ?? "")
            let target = Mutex<YapDB.Index?>(nil)
            observation = ObjectObservation(
                lease: SubscriptionLease(database: database, collection: nil),
                isRelevant: { changes in
                    changes.hasObjectChange(for: rootEntry) || target.withLock { $0 }.map { changes.hasObjectChange(for: $0) } ?? false
                },
                reader: connection,
                read: { txn in
                    let index = try txn.rootIndex(named: rootEntry.key)
                    target.withLock { $0 = index }
                    return try index.flatMap { try txn.object(forKey: $0.key, inCollection: $0.collection, as: Value.self) }
                })
        }
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
