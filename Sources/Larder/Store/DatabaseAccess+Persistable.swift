/// One-call reads and writes of ``Persistable`` values, each in a transaction of its own.
///
/// On a ``Database`` or a ``Connection`` alike:
///
/// ```swift
/// try db.write(Product(id: "p1", name: "Hammer", price: 24))
/// let hammer = try db.newConnection().read(Product.self, key: "p1")
/// try await db.remove(hammer!)
/// ```
///
/// To read or write several things consistently, use one `db.read { txn in … }` or
/// `db.write { txn in … }` closure instead.
extension DatabaseAccess {
    /// The value of type `T` with key `key`, or `nil`.
    /// - Throws: as ``ReadTransaction/object(forKey:inCollection:archiver:)``.
    public func read<T: Persistable & Saveable>(_ type: T.Type, key: String) throws -> T? {
        try read { try $0.read(T.self, key: key) }
    }

    /// The value of type `T` with key `key`, or `nil`.
    /// - Throws: as ``ReadTransaction/object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    public func read<T: Persistable & Codable>(_ type: T.Type, key: String) throws -> T? {
        try read { try $0.read(T.self, key: key) }
    }

    /// The values of type `T` under `keys`, in the order of `keys`; missing keys are skipped.
    /// - Throws: as ``ReadTransaction/object(forKey:inCollection:archiver:)``.
    public func read<T: Persistable & Saveable>(_ type: T.Type, keys: some Sequence<String>) throws -> [T] {
        try read { try $0.read(T.self, keys: keys) }
    }

    /// The values of type `T` under `keys`, in the order of `keys`; missing keys are skipped.
    /// - Throws: as ``ReadTransaction/object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    public func read<T: Persistable & Codable>(_ type: T.Type, keys: some Sequence<String>) throws -> [T] {
        try read { try $0.read(T.self, keys: keys) }
    }

    /// Every value of type `T`, in key order.
    /// - Throws: as ``ReadTransaction/object(forKey:inCollection:archiver:)``.
    public func readAll<T: Persistable & Saveable>(_ type: T.Type) throws -> [T] {
        try read { try $0.readAll(T.self) }
    }

    /// Every value of type `T`, in key order.
    /// - Throws: as ``ReadTransaction/object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    public func readAll<T: Persistable & Codable>(_ type: T.Type) throws -> [T] {
        try read { try $0.readAll(T.self) }
    }

    /// Stores `values` in one transaction (removing stored metadata, as `setObject` does).
    /// - Throws: as ``ReadWriteTransaction/setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    public func write<T: Persistable & Saveable>(_ values: T...) throws {
        try write { try $0.write(values) }
    }

    /// Stores `values` in one transaction (removing stored metadata, as `setObject` does).
    /// - Throws: as ``ReadWriteTransaction/setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    @_disfavoredOverload
    public func write<T: Persistable & Codable>(_ values: T...) throws {
        try write { try $0.write(values) }
    }

    /// Stores `values` in one transaction on the writer thread.
    /// - Throws: as ``ReadWriteTransaction/setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    public func write<T: Persistable & Saveable & Sendable>(_ values: T...) async throws {
        try await write { try $0.write(values) }
    }

    /// Stores `values` in one transaction on the writer thread.
    /// - Throws: as ``ReadWriteTransaction/setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    @_disfavoredOverload
    public func write<T: Persistable & Codable & Sendable>(_ values: T...) async throws {
        try await write { try $0.write(values) }
    }

    /// Removes `values` (and their metadata) in one transaction.
    /// - Returns: how many were stored.
    /// - Throws: as ``ReadWriteTransaction/removeObject(forKey:inCollection:)``.
    @discardableResult
    public func remove<T: Persistable>(_ values: T...) throws -> Int {
        let keys = values.map(\.key)
        return try write { try $0.removeObjects(forKeys: keys, inCollection: T.collection) }
    }

    /// Removes `values` (and their metadata) in one transaction on the writer thread.
    /// - Returns: how many were stored.
    /// - Throws: as ``ReadWriteTransaction/removeObject(forKey:inCollection:)``.
    @discardableResult
    public func remove<T: Persistable>(_ values: T...) async throws -> Int {
        let keys = values.map(\.key)
        let collection = T.collection
        return try await write { try $0.removeObjects(forKeys: keys, inCollection: collection) }
    }
}
