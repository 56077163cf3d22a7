/// Keys, enumeration and ranges.
///
/// Enumerations walk a collection in key order (UTF-8 bytes) with an LMDB cursor, within the
/// bounds of a ``KeyRange``. A `where` filter sees each key before its value is decoded, so
/// skipped keys cost no decoding. Set the closure's `stop` argument to `true` to end early.
///
/// Modifying the store from inside an enumeration's closure stops the program with a message:
/// collect what to change first, then change it.
extension ReadTransaction {
    /// Walks the entries of `database` whose storage keys lie in `collection` and `range`, calling
    /// `body` with the key part (after `collection ‖ 0x00`) and the stored value, until it
    /// returns `false`.
    final func walk(
        _ database: DatabaseHandle, collection: String, range: KeyRange, operation: String,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        checkActive()
        try StorageKey.validate(collection: collection, operation: operation)
        readRecorder?.collection(collection)
        let prefix = StorageKey.prefix(of: collection)
        // A collection whose name leaves no room for a key holds none (no write can store one),
        // as `numberOfKeys(inCollection:)` says: it is empty, not an error of the range.
        guard prefix.count < maxKeySize else { return }
        var lower = prefix
        if let from = range.from { lower = Self.greater(lower, prefix + Array(from.utf8)) }
        if let start = range.prefix { lower = Self.greater(lower, prefix + Array(start.utf8)) }
        var upper = prefix
        upper[upper.count - 1] = 1  // the first key after the collection: collection ‖ 0x01
        if let to = range.to { upper = Self.lesser(upper, prefix + Array(to.utf8)) }
        if let start = range.prefix, let successor = KeyRange.successor(of: Array(start.utf8)) {
            upper = Self.lesser(upper, prefix + successor)
        }
        for bound in [lower, upper] where bound.count > maxKeySize {
            throw LarderError(.keyTooLong, "the range's bound (collection + 1 + its from, to or prefix) takes \(bound.count) bytes; the key limit is \(maxKeySize)", operation: operation)
        }
        guard lower.lexicographicallyPrecedes(upper) else { return }
        let limit = range.limit ?? Int.max
        guard limit > 0 else { return }
        enumerationDepth += 1
        defer { enumerationDepth -= 1 }
        var visited = 0
        try lmdb.forEachEntry(in: database, from: lower, to: upper, reversed: range.reversed) { key, value in
            visited += 1
            let name = try Self.keyPart(of: key, prefix: prefix, collection: collection, operation: operation)
            return try body(name, value) && visited < limit
        }
    }

    /// Runs `each` for every collection, with `filter` narrowed to that collection's keys,
    /// until `each` sets `stopped`.
    private final func forEach(
        _ collections: some Sequence<String>, where filter: ((YapDB.Index) -> Bool)?,
        _ each: (_ collection: String, _ keyFilter: ((String) -> Bool)?, _ stopped: inout Bool) throws -> Void
    ) throws {
        for collection in collections {
            var stopped = false
            try each(collection, filter.map { accepts in { accepts(YapDB.Index(collection: collection, key: $0)) } }, &stopped)
            if stopped { return }
        }
    }

    /// The key part of a storage key the walk met between its bounds. In an undamaged store
    /// every such key starts with `prefix`; a damaged page can put any key there, even one
    /// shorter than the prefix, so that is checked before slicing.
    private static func keyPart(
        of key: UnsafeRawBufferPointer, prefix: [UInt8], collection: String, operation: String
    ) throws(LarderError) -> UnsafeRawBufferPointer {
        guard key.count >= prefix.count, key.starts(with: prefix) else {
            throw LarderError(
                .corrupted,
                "the store is damaged: a key out of order was found among the keys of collection \"\(collection)\"; run `larder check` and restore the store from a backup",
                operation: operation, index: YapDB.Index(collection: collection, key: ""))
        }
        return UnsafeRawBufferPointer(rebasing: key[prefix.count...])
    }

    private static func greater(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] { a.lexicographicallyPrecedes(b) ? b : a }
    private static func lesser(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] { a.lexicographicallyPrecedes(b) ? a : b }

    /// Calls `body` with the payload and format of `value`, a stored object (or `metadata`) of
    /// `collection` at `key`, framing removed and at the collection's current version (see
    /// ``withCurrentVersion(of:collection:metadata:_:)``); returns what `body` returns.
    private final func withFramed<R>(
        _ value: UnsafeRawBufferPointer, metadata: Bool = false, operation: String, collection: String, key: String,
        _ body: (UnsafeRawBufferPointer, ArchiveFormat) throws -> R
    ) throws -> R {
        do {
            return try withCurrentVersion(of: try ValueFraming.unframe(value), collection: collection, metadata: metadata, body)
        } catch let error as LarderError {
            throw error.adding(operation: operation, index: YapDB.Index(collection: collection, key: key))
        }
    }

    // MARK: Keys

    /// The keys of `collection` within `range`, in order.
    /// - Complexity: O(log n + k) for k keys returned.
    /// - Throws: ``LarderError`` for an invalid collection name or over-long bounds.
    public final func keys(inCollection collection: String, range: KeyRange = .all) throws -> [String] {
        var keys: [String] = []
        try walk(lmdb.databases.objects, collection: collection, range: range, operation: "keys") { key, _ in
            keys.append(String(decoding: key, as: UTF8.self))
            return true
        }
        return keys
    }

    /// Calls `body` with each key of `collection` within `range`, in order.
    /// - Throws: what `body` throws, or ``LarderError`` as ``keys(inCollection:range:)``.
    public final func enumerateKeys(inCollection collection: String, range: KeyRange = .all, _ body: (_ key: String, _ stop: inout Bool) throws -> Void) throws {
        try walk(lmdb.databases.objects, collection: collection, range: range, operation: "enumerateKeys") { key, _ in
            var stop = false
            try body(String(decoding: key, as: UTF8.self), &stop)
            return !stop
        }
    }

    /// Calls `body` with the index of every object in the store, in storage order (collections
    /// by name, keys within each).
    /// - Throws: what `body` throws, or a ``LarderError`` from LMDB.
    public final func enumerateKeysInAllCollections(_ body: (_ index: YapDB.Index, _ stop: inout Bool) throws -> Void) throws {
        checkActive()
        readRecorder?.everything()
        enumerationDepth += 1
        defer { enumerationDepth -= 1 }
        try lmdb.forEachEntry(in: lmdb.databases.objects) { key, _ in
            var stop = false
            try body(StorageKey.index(from: key), &stop)
            return !stop
        }
    }

    // MARK: Objects

    /// Calls `body` with each key and object of `collection` within `range` that `filter`
    /// accepts, decoding with `archiver`. The filter runs before decoding.
    /// - Throws: what `body` throws, or ``LarderError`` for an invalid collection or a value
    ///   that does not decode.
    @inlinable
    public final func enumerateObjects<A: Archiver>(
        inCollection collection: String, archiver: A, range: KeyRange = .all, where filter: ((String) -> Bool)? = nil,
        _ body: (_ key: String, _ object: A.Value, _ stop: inout Bool) throws -> Void
    ) throws {
        // A generic shell the caller's module specializes, around the non-generic walk: the
        // decode of each value looks up no generic metadata.
        try walkObjects(inCollection: collection, range: range, where: filter) { key, payload, format in
            let object = try unarchive(payload, format: format, with: archiver, operation: "enumerateObjects", collection: collection, key: key)
            var stop = false
            try body(key, object, &stop)
            return !stop
        }
    }

    /// The non-generic core of ``enumerateObjects(inCollection:archiver:range:where:_:)``: calls
    /// `body` with each key `filter` accepts and its stored bytes (framing removed) until it
    /// returns `false`.
    @usableFromInline
    final func walkObjects(
        inCollection collection: String, range: KeyRange, where filter: ((String) -> Bool)?,
        _ body: (_ key: String, _ payload: UnsafeRawBufferPointer, _ format: ArchiveFormat) throws -> Bool
    ) throws {
        try walk(lmdb.databases.objects, collection: collection, range: range, operation: "enumerateObjects") { keyBytes, value in
            let key = String(decoding: keyBytes, as: UTF8.self)
            if let filter, !filter(key) { return true }
            return try withFramed(value, operation: "enumerateObjects", collection: collection, key: key) { try body(key, $0, $1) }
        }
    }

    /// How many entries a walk of `collection` over `range` through `filter` will find, when that
    /// is known without walking (the whole collection, no filter: its kept count), or 0; used to
    /// size a result array once instead of growing it by doubling.
    @usableFromInline
    final func expectedCount(inCollection collection: String, range: KeyRange, where filter: ((String) -> Bool)?) -> Int {
        guard filter == nil, range == .all else { return 0 }
        // An invalid collection name is reported by the walk that follows.
        return (try? numberOfKeys(inCollection: collection)) ?? 0
    }

    /// Calls `body` with each key and object of `collection`, read with the archiver registered
    /// for the collection, else `ownArchiver`: the one body of the `Saveable` and `Codable` forms
    /// of `enumerateObjects(inCollection:as:range:where:_:)`, which differ only in the type's own
    /// archiver. With no archiver registered anywhere, `ownArchiver` is used as its own type (no
    /// existential on the walk).
    @inlinable
    final func enumerateObjects<A: Archiver>(
        inCollection collection: String, ownArchiver: A, range: KeyRange, where filter: ((String) -> Bool)?,
        _ body: (_ key: String, _ object: A.Value, _ stop: inout Bool) throws -> Void
    ) throws {
        if usesOwnArchivers {
            try enumerateObjects(inCollection: collection, archiver: ownArchiver, range: range, where: filter, body)
        } else {
            try enumerateObjects(inCollection: collection, archiver: archiver(A.Value.self, in: collection, fallback: ownArchiver), range: range, where: filter, body)
        }
    }

    /// The objects `enumerate` walks in `collection`, with their keys, in order: the one body of
    /// both forms of `objects(inCollection:as:range:where:)`.
    @inlinable
    final func keyedObjects<T>(
        inCollection collection: String, range: KeyRange, where filter: ((String) -> Bool)?,
        _ enumerate: (_ body: (String, T, inout Bool) throws -> Void) throws -> Void
    ) throws -> [(key: String, object: T)] {
        var found: [(key: String, object: T)] = []
        found.reserveCapacity(expectedCount(inCollection: collection, range: range, where: filter))
        try enumerate { key, object, _ in found.append((key, object)) }
        return found
    }

    /// Calls `body` with each object `enumerateOne` walks in each of `collections` (given the
    /// collection, its key filter and the per-key body): the one body of both forms of
    /// `enumerateObjects(inCollections:as:where:_:)`.
    final func forEachObject<T>(
        in collections: some Sequence<String>, where filter: ((YapDB.Index) -> Bool)?,
        _ body: (_ index: YapDB.Index, _ object: T, _ stop: inout Bool) throws -> Void,
        _ enumerateOne: (String, ((String) -> Bool)?, (String, T, inout Bool) throws -> Void) throws -> Void
    ) throws {
        // The body is called only while this call runs; Swift cannot see that through the two
        // closures it passes through.
        try withoutActuallyEscaping(body) { body in
            try forEach(collections, where: filter) { collection, keyFilter, stopped in
                try enumerateOne(collection, keyFilter) { key, object, stop in
                    try body(YapDB.Index(collection: collection, key: key), object, &stop)
                    stopped = stop
                }
            }
        }
    }

    /// Whether no archiver is registered for any collection: every type reads with its own.
    @usableFromInline
    final var usesOwnArchivers: Bool { database.archivers.isEmpty }

    /// Calls `body` with each key and object of `collection`; see
    /// ``enumerateObjects(inCollection:archiver:range:where:_:)``.
    /// - Throws: as ``enumerateObjects(inCollection:archiver:range:where:_:)``.
    @inlinable
    public final func enumerateObjects<T: Saveable>(
        inCollection collection: String, as type: T.Type = T.self, range: KeyRange = .all, where filter: ((String) -> Bool)? = nil,
        _ body: (_ key: String, _ object: T, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerateObjects(inCollection: collection, ownArchiver: T.archiver, range: range, where: filter, body)
    }

    /// Calls `body` with each key and object of `collection`; see
    /// ``enumerateObjects(inCollection:archiver:range:where:_:)``.
    /// - Throws: as ``enumerateObjects(inCollection:archiver:range:where:_:)``.
    @_disfavoredOverload @inlinable
    public final func enumerateObjects<T: Codable>(
        inCollection collection: String, as type: T.Type = T.self, range: KeyRange = .all, where filter: ((String) -> Bool)? = nil,
        _ body: (_ key: String, _ object: T, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerateObjects(inCollection: collection, ownArchiver: MessagePackArchiver<T>(), range: range, where: filter, body)
    }

    /// The objects of `collection` within `range` that `filter` accepts, with their keys, in order.
    /// - Throws: as ``enumerateObjects(inCollection:archiver:range:where:_:)``.
    @inlinable
    public final func objects<T: Saveable>(inCollection collection: String, as type: T.Type = T.self, range: KeyRange = .all, where filter: ((String) -> Bool)? = nil) throws -> [(key: String, object: T)] {
        try keyedObjects(inCollection: collection, range: range, where: filter) { try enumerateObjects(inCollection: collection, as: T.self, range: range, where: filter, $0) }
    }

    /// The objects of `collection` within `range` that `filter` accepts, with their keys, in order.
    /// - Throws: as ``enumerateObjects(inCollection:archiver:range:where:_:)``.
    @_disfavoredOverload @inlinable
    public final func objects<T: Codable>(inCollection collection: String, as type: T.Type = T.self, range: KeyRange = .all, where filter: ((String) -> Bool)? = nil) throws -> [(key: String, object: T)] {
        try keyedObjects(inCollection: collection, range: range, where: filter) { try enumerateObjects(inCollection: collection, as: T.self, range: range, where: filter, $0) }
    }

    /// Calls `body` with every object of type `T` in the collections `collections` (every key
    /// of each, in order) whose index `filter` accepts. The filter runs before decoding.
    /// - Throws: as ``enumerateObjects(inCollection:archiver:range:where:_:)``.
    @_disfavoredOverload
    public final func enumerateObjects<T: Codable>(
        inCollections collections: some Sequence<String>, as type: T.Type = T.self, where filter: ((YapDB.Index) -> Bool)? = nil,
        _ body: (_ index: YapDB.Index, _ object: T, _ stop: inout Bool) throws -> Void
    ) throws {
        try forEachObject(in: collections, where: filter, body) { try enumerateObjects(inCollection: $0, as: T.self, where: $1, $2) }
    }

    /// Calls `body` with every object of type `T` in the collections `collections`; see the
    /// `Codable` form.
    /// - Throws: as ``enumerateObjects(inCollection:archiver:range:where:_:)``.
    public final func enumerateObjects<T: Saveable>(
        inCollections collections: some Sequence<String>, as type: T.Type = T.self, where filter: ((YapDB.Index) -> Bool)? = nil,
        _ body: (_ index: YapDB.Index, _ object: T, _ stop: inout Bool) throws -> Void
    ) throws {
        try forEachObject(in: collections, where: filter, body) { try enumerateObjects(inCollection: $0, as: T.self, where: $1, $2) }
    }

    // MARK: Metadata and rows

    /// Calls `body` with each key and metadata value of `collection` that has metadata, within
    /// `range`; the filter runs before decoding. Objects are not read.
    /// - Throws: as ``enumerateObjects(inCollection:archiver:range:where:_:)``.
    public final func enumerateMetadata<M: Codable>(
        inCollection collection: String, as type: M.Type = M.self, range: KeyRange = .all, where filter: ((String) -> Bool)? = nil,
        _ body: (_ key: String, _ metadata: M, _ stop: inout Bool) throws -> Void
    ) throws {
        let archiver = metadataArchiver(M.self, in: collection)
        try walk(lmdb.databases.metadata, collection: collection, range: range, operation: "enumerateMetadata") { keyBytes, value in
            let key = String(decoding: keyBytes, as: UTF8.self)
            if let filter, !filter(key) { return true }
            let metadata = try withFramed(value, metadata: true, operation: "enumerateMetadata", collection: collection, key: key) { payload, format in
                try unarchive(payload, format: format, with: archiver, operation: "enumerateMetadata", collection: collection, key: key)
            }
            var stop = false
            try body(key, metadata, &stop)
            return !stop
        }
    }

    /// Calls `body` with the metadata of every index in the collections `collections` that has
    /// metadata and whose index `filter` accepts; the filter runs before decoding.
    /// - Throws: as ``enumerateObjects(inCollection:archiver:range:where:_:)``.
    public final func enumerateMetadata<M: Codable>(
        inCollections collections: some Sequence<String>, as type: M.Type = M.self, where filter: ((YapDB.Index) -> Bool)? = nil,
        _ body: (_ index: YapDB.Index, _ metadata: M, _ stop: inout Bool) throws -> Void
    ) throws {
        try forEach(collections, where: filter) { collection, keyFilter, stopped in
            try enumerateMetadata(inCollection: collection, as: M.self, where: keyFilter) { key, metadata, stop in
                try body(YapDB.Index(collection: collection, key: key), metadata, &stop)
                stopped = stop
            }
        }
    }

    /// Calls `body` with the object and metadata of every index in the collections
    /// `collections` whose index `filter` accepts; the filter runs before decoding.
    /// - Throws: as ``enumerateObjects(inCollection:archiver:range:where:_:)``.
    public final func enumerateRows<T: Codable, M: Codable>(
        inCollections collections: some Sequence<String>, as type: T.Type = T.self, metadata metadataType: M.Type = M.self,
        where filter: ((YapDB.Index) -> Bool)? = nil, _ body: (_ index: YapDB.Index, _ object: T, _ metadata: M?, _ stop: inout Bool) throws -> Void
    ) throws {
        try forEach(collections, where: filter) { collection, keyFilter, stopped in
            try enumerateRows(
                inCollection: collection, objectArchiver: archiver(T.self, in: collection, fallback: ArchiverLookup.codable(T.self)),
                metadataArchiver: metadataArchiver(M.self, in: collection), range: .all, where: keyFilter
            ) { key, object, metadata, stop in
                try body(YapDB.Index(collection: collection, key: key), object, metadata, &stop)
                stopped = stop
            }
        }
    }

    /// Calls `body` with each key, object and metadata (`nil` where there is none) of
    /// `collection` within `range`; the filter runs before decoding.
    /// - Throws: as ``enumerateObjects(inCollection:archiver:range:where:_:)``.
    @_disfavoredOverload
    public final func enumerateRows<T: Codable, M: Codable>(
        inCollection collection: String, as type: T.Type = T.self, metadata metadataType: M.Type = M.self, range: KeyRange = .all,
        where filter: ((String) -> Bool)? = nil, _ body: (_ key: String, _ object: T, _ metadata: M?, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerateRows(inCollection: collection, objectArchiver: archiver(T.self, in: collection, fallback: MessagePackArchiver<T>()),
                          metadataArchiver: metadataArchiver(M.self, in: collection), range: range, where: filter, body)
    }

    /// Calls `body` with each key, object and metadata of `collection`; see the `Codable` form.
    /// - Throws: as ``enumerateObjects(inCollection:archiver:range:where:_:)``.
    public final func enumerateRows<T: Saveable, M: Codable>(
        inCollection collection: String, as type: T.Type = T.self, metadata metadataType: M.Type = M.self, range: KeyRange = .all,
        where filter: ((String) -> Bool)? = nil, _ body: (_ key: String, _ object: T, _ metadata: M?, _ stop: inout Bool) throws -> Void
    ) throws {
        try enumerateRows(inCollection: collection, objectArchiver: archiver(T.self, in: collection, fallback: T.archiver),
                          metadataArchiver: metadataArchiver(M.self, in: collection), range: range, where: filter, body)
    }

    private final func enumerateRows<A: Archiver, B: Archiver>(
        inCollection collection: String, objectArchiver: A, metadataArchiver: B, range: KeyRange,
        where filter: ((String) -> Bool)?, _ body: (String, A.Value, B.Value?, inout Bool) throws -> Void
    ) throws {
        let metadataDatabase = lmdb.databases.metadata
        let prefix = StorageKey.prefix(of: collection)
        try walk(lmdb.databases.objects, collection: collection, range: range, operation: "enumerateRows") { keyBytes, value in
            let key = String(decoding: keyBytes, as: UTF8.self)
            if let filter, !filter(key) { return true }
            let object = try withFramed(value, operation: "enumerateRows", collection: collection, key: key) { payload, format in
                try unarchive(payload, format: format, with: objectArchiver, operation: "enumerateRows", collection: collection, key: key)
            }
            let storageKey = prefix + keyBytes
            var metadata: B.Value?
            if let stored = try storageKey.withUnsafeBytes({ try lmdb.get(metadataDatabase, key: $0) }) {
                metadata = try withFramed(stored, metadata: true, operation: "enumerateRows", collection: collection, key: key) { payload, format in
                    try unarchive(payload, format: format, with: metadataArchiver, operation: "enumerateRows", collection: collection, key: key)
                }
            }
            var stop = false
            try body(key, object, metadata, &stop)
            return !stop
        }
    }
}

extension KeyRange {
    /// The smallest byte string greater than every string that starts with `prefix`, or `nil`
    /// when there is none (the prefix is empty or all 0xFF).
    static func successor(of prefix: [UInt8]) -> [UInt8]? {
        LMDBTransaction.keyAfterPrefix(prefix)
    }
}
