/// Typed reads of objects and metadata.
///
/// Each read comes in two forms that differ only in where the archiver comes from: types that
/// are ``Saveable`` use their own archiver; other `Codable` types use ``MessagePackArchiver``. In
/// both, an archiver registered for the collection (``Database/register(_:forCollection:)``) wins.
/// The `archiver:` forms take the archiver explicitly.
extension ReadTransaction {
    /// The archiver for `T` in `collection`: the registered one, else `fallback`.
    @inline(__always)
    @usableFromInline
    final func archiver<T>(_ type: T.Type, in collection: String, fallback: @autoclosure () -> any Archiver<T>) -> any Archiver<T> {
        database.archivers.archiver(for: collection, T.self) ?? fallback()
    }

    // MARK: Objects

    /// The object at (`collection`, `key`), read with `archiver`, or `nil` if there is none.
    /// - Throws: ``LarderError`` for an invalid collection or key (``LarderError/Code/emptyKey``,
    ///   ``LarderError/Code/keyTooLong``, ``LarderError/Code/invalidCollection``), or stored bytes
    ///   that do not decode (``LarderError/Code/decodingFailed``, ``LarderError/Code/unknownFormat``,
    ///   ``LarderError/Code/corruptValue``).
    public final func object<A: Archiver>(forKey key: String, inCollection collection: String, archiver: A) throws -> A.Value? {
        try cachedValue(.object, collection: collection, key: key, archiver: archiver, operation: "object")
    }

    /// The value at (`collection`, `key`) from the connection's cache, else read, decoded and
    /// remembered in the cache. With the connection's identity map on, an object that is a class
    /// instance is the instance the map holds for the index, when it has a live one.
    @inline(__always)
    private final func cachedValue<A: Archiver>(_ half: ConnectionCache.Half, collection: String, key: String, archiver: A, operation: String) throws -> A.Value? {
        if core.cache.keepsNothing(half) {
            // Nothing to look up and nothing to remember: read and decode, as a miss would.
            core.cache.countSkippedMiss(half)
            return try withStoredValue(metadata: half == .metadata, collection: collection, key: key, operation: operation) { payload, format in
                try unarchive(payload, format: format, with: archiver, operation: operation, collection: collection, key: key)
            }
        }
        let index = YapDB.Index(collection: collection, key: key)
        let commit = cacheCommit(for: index)
        // A snapshot older than the cache's (pinned) may still share the identity map's instances
        // that no commit since has changed. Writes always start from the newest commit.
        let identityCommit = commit ?? (snapshot.cacheUsable || self is ReadWriteTransaction ? nil : snapshot.commit)
        let cacheKey = ConnectionCache.Key(index)
        let decoder = ArchiverIdentity(archiver)
        if let cached = core.cache.value(half, at: cacheKey, commit: commit, identityCommit: identityCommit, archiver: decoder, as: A.Value.self) { return cached }
        let stored = try withStoredValue(metadata: half == .metadata, collection: collection, key: key, operation: operation) { payload, format in
            try unarchive(payload, format: format, with: archiver, operation: operation, collection: collection, key: key)
        }
        guard let stored, let commit else { return stored }
        return core.cache.remember(stored, half, at: cacheKey, commit: commit, archiver: decoder)
    }

    /// The object at (`collection`, `key`), or `nil` if there is none.
    ///
    /// ```swift
    /// let product = try txn.object(forKey: "p1", inCollection: "products", as: Product.self)
    /// ```
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    @inlinable
    public final func object<T: Saveable>(forKey key: String, inCollection collection: String, as type: T.Type = T.self) throws -> T? {
        try typedValue(metadata: false, collection: collection, key: key, archiver: T.archiver, operation: "object")
    }

    /// The object at (`collection`, `key`), or `nil` if there is none.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    @inlinable
    public final func object<T: Codable>(forKey key: String, inCollection collection: String, as type: T.Type = T.self) throws -> T? {
        try typedValue(metadata: false, collection: collection, key: key, archiver: MessagePackArchiver<T>(), uniformArchiver: true, operation: "object")
    }

    /// The object at `index`, or `nil` if there is none.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    public final func object<T: Saveable>(at index: YapDB.Index, as type: T.Type = T.self) throws -> T? {
        try object(forKey: index.key, inCollection: index.collection, as: T.self)
    }

    /// The object at `index`, or `nil` if there is none.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    public final func object<T: Codable>(at index: YapDB.Index, as type: T.Type = T.self) throws -> T? {
        try object(forKey: index.key, inCollection: index.collection, as: T.self)
    }

    /// The objects stored under `keys` in `collection`, by key; keys with no object are absent.
    ///
    /// A `[String: T]` has one entry for two keys that Swift's `String ==` calls equal
    /// (`"caf\u{E9}"` and `"cafe\u{301}"`), which the store keeps apart: the later of the two
    /// found is there. `objects(at:as:)` keys its result by ``YapDB/Index``, which compares
    /// bytes.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    public final func objects<T: Saveable>(forKeys keys: some Sequence<String>, inCollection collection: String, as type: T.Type = T.self) throws -> [String: T] {
        try collect(keys) { try object(forKey: $0, inCollection: collection, as: T.self) }
    }

    /// The objects stored under `keys` in `collection`, by key; keys with no object are absent.
    ///
    /// As the `Saveable` form: one entry for two keys Swift calls equal.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    public final func objects<T: Codable>(forKeys keys: some Sequence<String>, inCollection collection: String, as type: T.Type = T.self) throws -> [String: T] {
        try collect(keys) { try object(forKey: $0, inCollection: collection, as: T.self) }
    }

    /// The objects stored at `indexes`, by index; indexes with no object are absent.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    public final func objects<T: Saveable>(at indexes: some Sequence<YapDB.Index>, as type: T.Type = T.self) throws -> [YapDB.Index: T] {
        try collect(indexes) { try object(at: $0, as: T.self) }
    }

    /// The objects stored at `indexes`, by index; indexes with no object are absent.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    public final func objects<T: Codable>(at indexes: some Sequence<YapDB.Index>, as type: T.Type = T.self) throws -> [YapDB.Index: T] {
        try collect(indexes) { try object(at: $0, as: T.self) }
    }

    // MARK: Metadata

    /// The metadata at (`collection`, `key`), read with `archiver`, or `nil` if there is none.
    /// Reading metadata never reads or decodes the object.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    public final func metadata<A: Archiver>(forKey key: String, inCollection collection: String, archiver: A) throws -> A.Value? {
        try cachedValue(.metadata, collection: collection, key: key, archiver: archiver, operation: "metadata")
    }

    /// The metadata at (`collection`, `key`), or `nil` if there is none.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    @inlinable
    public final func metadata<M: Saveable>(forKey key: String, inCollection collection: String, as type: M.Type = M.self) throws -> M? {
        try typedValue(metadata: true, collection: collection, key: key, archiver: M.archiver, operation: "metadata")
    }

    /// The metadata at (`collection`, `key`), or `nil` if there is none.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    @inlinable
    public final func metadata<M: Codable>(forKey key: String, inCollection collection: String, as type: M.Type = M.self) throws -> M? {
        try typedValue(metadata: true, collection: collection, key: key, archiver: MessagePackArchiver<M>(), uniformArchiver: true, operation: "metadata")
    }

    /// The metadata at `index`, or `nil` if there is none.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    public final func metadata<M: Saveable>(at index: YapDB.Index, as type: M.Type = M.self) throws -> M? {
        try metadata(forKey: index.key, inCollection: index.collection, as: M.self)
    }

    /// The metadata at `index`, or `nil` if there is none.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    public final func metadata<M: Codable>(at index: YapDB.Index, as type: M.Type = M.self) throws -> M? {
        try metadata(forKey: index.key, inCollection: index.collection, as: M.self)
    }

    // MARK: Rows (object and metadata)

    /// The object and metadata at (`collection`, `key`), or `nil` if there is no object.
    ///
    /// Metadata here is any `Codable` type (one that is also ``Saveable`` uses its own archiver);
    /// read metadata of a type that is only `Saveable` with ``metadata(forKey:inCollection:as:)-7zh1u``.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    public final func row<T: Saveable, M: Codable>(forKey key: String, inCollection collection: String, as type: T.Type = T.self, metadata metadataType: M.Type = M.self) throws -> (object: T, metadata: M?)? {
        try row(forKey: key, inCollection: collection, metadata: M.self) { try object(forKey: key, inCollection: collection, as: T.self) }
    }

    /// The object and metadata at (`collection`, `key`), or `nil` if there is no object.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    public final func row<T: Codable, M: Codable>(forKey key: String, inCollection collection: String, as type: T.Type = T.self, metadata metadataType: M.Type = M.self) throws -> (object: T, metadata: M?)? {
        try row(forKey: key, inCollection: collection, metadata: M.self) { try object(forKey: key, inCollection: collection, as: T.self) }
    }

    /// The value `read` finds for each of `keys` (or indexes), by key; absent where it finds none.
    /// The one body of the `Saveable` and `Codable` forms of `objects(forKeys:inCollection:as:)`
    /// and `objects(at:as:)`, which differ only in how they read one value.
    private final func collect<Key: Hashable, T>(_ keys: some Sequence<Key>, _ read: (Key) throws -> T?) throws -> [Key: T] {
        var found: [Key: T] = [:]
        for key in keys {
            if let value = try read(key) { found[key] = value }
        }
        return found
    }

    /// The object `readObject` finds at (`collection`, `key`) with its metadata, or `nil` if
    /// there is no object: the one body of both forms of `row(forKey:inCollection:as:metadata:)`.
    private final func row<T, M: Codable>(forKey key: String, inCollection collection: String, metadata: M.Type, object readObject: () throws -> T?) throws -> (object: T, metadata: M?)? {
        guard let object = try readObject() else { return nil }
        return (object, try self.metadata(forKey: key, inCollection: collection, archiver: metadataArchiver(M.self, in: collection)))
    }

    /// The archiver of a `Codable` metadata type: registered, else its own if it is also
    /// ``Saveable`` (so that it reads what the `Saveable` overloads wrote), else MessagePack.
    final func metadataArchiver<M: Codable>(_ type: M.Type, in collection: String) -> any Archiver<M> {
        archiver(M.self, in: collection, fallback: ArchiverLookup.codable(M.self))
    }
}

/// Archiver choice that static overloads cannot make.
enum ArchiverLookup {
    /// A `Codable` type's archiver: its own when it is also ``Saveable``, else MessagePack.
    static func codable<T: Codable>(_ type: T.Type) -> any Archiver<T> {
        if let saveable = T.self as? any Saveable.Type, let own = saveable.archiver as? any Archiver<T> { return own }
        return MessagePackArchiver<T>()
    }
}
