/// Reads and writes of ``Persistable`` values, which know their own collection and key.
///
/// ```swift
/// try db.write { txn in
///     try txn.write([Product(id: "p1", name: "Hammer"), Product(id: "p2", name: "Saw")])
/// }
/// let all = try db.read { try $0.readAll(Product.self) }
/// ```
extension ReadTransaction {
    /// The value of type `T` with key `key`, or `nil`.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    public final func read<T: Persistable & Saveable>(_ type: T.Type, key: String) throws -> T? {
        try object(forKey: key, inCollection: T.collection, as: T.self)
    }

    /// The value of type `T` with key `key`, or `nil`.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    public final func read<T: Persistable & Codable>(_ type: T.Type, key: String) throws -> T? {
        try object(forKey: key, inCollection: T.collection, as: T.self)
    }

    /// The value of type `T` with identifier `id`, or `nil`.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    public final func read<T: Persistable & Saveable>(_ type: T.Type, id: T.ID) throws -> T? {
        try object(forKey: T.key(for: id), inCollection: T.collection, as: T.self)
    }

    /// The value of type `T` with identifier `id`, or `nil`.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    public final func read<T: Persistable & Codable>(_ type: T.Type, id: T.ID) throws -> T? {
        try object(forKey: T.key(for: id), inCollection: T.collection, as: T.self)
    }

    /// The values of type `T` stored under `keys`, in the order of `keys`; missing keys are skipped.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    public final func read<T: Persistable & Saveable>(_ type: T.Type, keys: some Sequence<String>) throws -> [T] {
        try keys.compactMap { try object(forKey: $0, inCollection: T.collection, as: T.self) }
    }

    /// The values of type `T` stored under `keys`, in the order of `keys`; missing keys are skipped.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    public final func read<T: Persistable & Codable>(_ type: T.Type, keys: some Sequence<String>) throws -> [T] {
        try keys.compactMap { try object(forKey: $0, inCollection: T.collection, as: T.self) }
    }

    /// Every value of type `T`, in key order. In a collection that holds several types (a
    /// ``PolymorphicArchiver`` registered for it), the values of the other types are skipped.
    /// - Complexity: O(n) for the n values of the collection, each decoded.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    public final func readAll<T: Persistable & Saveable>(_ type: T.Type) throws -> [T] {
        try readAllValues(T.self) { try objects(inCollection: T.collection, as: T.self).map(\.object) } one: { try object(forKey: $0, inCollection: T.collection, as: T.self) }
    }

    /// Every value of type `T`, in key order. In a collection that holds several types (a
    /// ``PolymorphicArchiver`` registered for it), the values of the other types are skipped.
    /// - Complexity: O(n) for the n values of the collection, each decoded.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    public final func readAll<T: Persistable & Codable>(_ type: T.Type) throws -> [T] {
        try readAllValues(T.self) { try objects(inCollection: T.collection, as: T.self).map(\.object) } one: { try object(forKey: $0, inCollection: T.collection, as: T.self) }
    }

    /// The one body of both forms of `readAll`: every value at once by `all`; when that meets a
    /// value of another type of a polymorphic family, value by value with `one`, skipping those.
    private func readAllValues<T: Persistable>(_ type: T.Type, all: () throws -> [T], one: (String) throws -> T?) throws -> [T] {
        do {
            return try all()
        } catch let error as LarderError where error.underlying == PolymorphicMemberArchiver<Int>.otherMember {
            var values: [T] = []
            for key in try keys(inCollection: T.collection) {
                do {
                    if let value = try one(key) { values.append(value) }
                } catch let error as LarderError where error.underlying == PolymorphicMemberArchiver<Int>.otherMember {
                    continue  // a value of another type of the family
                }
            }
            return values
        }
    }

    /// The metadata stored beside `value`, or `nil`.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    public final func readMetadata<T: Persistable, M: Codable>(of value: T, as type: M.Type = M.self) throws -> M? {
        try metadata(forKey: value.key, inCollection: T.collection, archiver: metadataArchiver(M.self, in: T.collection))
    }
}

extension ReadWriteTransaction {
    /// Stores `value` in its collection under its key, removing any metadata there.
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    public func write<T: Persistable & Saveable>(_ value: T) throws {
        try setObject(value, forKey: value.key, inCollection: T.collection)
    }

    /// Stores `value` in its collection under its key, removing any metadata there.
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    @_disfavoredOverload
    public func write<T: Persistable & Codable>(_ value: T) throws {
        try setObject(value, forKey: value.key, inCollection: T.collection)
    }

    /// Stores `value` and its `metadata` (`nil` removes stored metadata).
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    public func write<T: Persistable & Saveable, M: Codable>(_ value: T, metadata: M?) throws {
        try setObject(value, forKey: value.key, inCollection: T.collection, metadata: metadata)
    }

    /// Stores `value` and its `metadata` (`nil` removes stored metadata).
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    @_disfavoredOverload
    public func write<T: Persistable & Codable, M: Codable>(_ value: T, metadata: M?) throws {
        try setObject(value, forKey: value.key, inCollection: T.collection, metadata: metadata)
    }

    /// Stores every value of `values`.
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    public func write<T: Persistable & Saveable>(_ values: some Sequence<T>) throws {
        for value in values { try write(value) }
    }

    /// Stores every value of `values`.
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    @_disfavoredOverload
    public func write<T: Persistable & Codable>(_ values: some Sequence<T>) throws {
        for value in values { try write(value) }
    }

    /// Replaces the metadata of `value` (which must be stored); `nil` removes it.
    /// - Returns: `false` when `value` is not stored.
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    @discardableResult
    public func writeMetadata<T: Persistable, M: Codable>(_ metadata: M?, of value: T) throws -> Bool {
        try replaceMetadata(metadata, forKey: value.key, inCollection: T.collection, archiver: metadataArchiver(M.self, in: T.collection))
    }

    /// Removes `value` (and its metadata) from the store.
    /// - Returns: whether it was stored.
    /// - Throws: as ``removeObject(forKey:inCollection:)``.
    @discardableResult
    public func remove<T: Persistable>(_ value: T) throws -> Bool {
        try removeObject(forKey: value.key, inCollection: T.collection)
    }

    /// Removes every value of `values`.
    /// - Returns: how many were stored.
    /// - Throws: as ``removeObject(forKey:inCollection:)``.
    @discardableResult
    public func remove<T: Persistable>(_ values: some Sequence<T>) throws -> Int {
        try removeObjects(forKeys: values.map(\.key), inCollection: T.collection)
    }

    /// Removes the value of type `T` stored under `key`.
    /// - Returns: whether there was one.
    /// - Throws: as ``removeObject(forKey:inCollection:)``.
    @discardableResult
    public func remove<T: Persistable>(_ type: T.Type, key: String) throws -> Bool {
        try removeObject(forKey: key, inCollection: T.collection)
    }

    /// Removes the values of type `T` stored under `keys`.
    /// - Returns: how many there were.
    /// - Throws: as ``removeObject(forKey:inCollection:)``.
    @discardableResult
    public func remove<T: Persistable>(_ type: T.Type, keys: some Sequence<String>) throws -> Int {
        try removeObjects(forKeys: keys, inCollection: T.collection)
    }
}
