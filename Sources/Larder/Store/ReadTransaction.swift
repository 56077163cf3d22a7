/// A read-only view of the store, consistent as of the moment it began.
///
/// You get one inside ``Database/read(_:)-9an1w`` and, as a
/// ``ReadWriteTransaction``, inside writes, where every read also sees the writes made so far.
/// Missing values read as `nil`, never as errors.
///
/// A transaction belongs to its closure: it is not `Sendable`, and using it after the closure
/// returns stops the program with a message that names the misuse.
public class ReadTransaction {
    /// The commit a transaction sees, and whether it may use its connection's cache.
    struct Snapshot {
        var commit: UInt64
        var cacheUsable: Bool
    }

    let lmdb: LMDBTransaction
    let database: Database
    let core: ConnectionCore
    let snapshot: Snapshot
    var isActive = true
    /// Enumerations in progress; writes are refused while one runs (they would move its cursor).
    var enumerationDepth = 0
    /// Hears what this transaction reads, when somebody asks (a replica's write records its
    /// reads); `nil` otherwise, and then a read costs one test more.
    final var readRecorder: (any ReadObserver)?

    init(_ lmdb: LMDBTransaction, database: Database, core: ConnectionCore, snapshot: Snapshot) {
        self.lmdb = lmdb
        self.database = database
        self.core = core
        self.snapshot = snapshot
    }

    /// The number of the last commit this transaction sees: every commit up to it, and none
    /// after. Commits are numbered from 1 in the order they happen, by every process; a write
    /// transaction sees the commit it started from (its own is the next).
    public final var lastCommit: UInt64 {
        checkActive()
        return snapshot.commit
    }

    /// The commit whose cached values this transaction may use for `index`, `nil` when none.
    func cacheCommit(for index: YapDB.Index) -> UInt64? {
        snapshot.cacheUsable && readRecorder == nil ? snapshot.commit : nil
    }

    @inline(__always)
    final func checkActive() {
        precondition(isActive, "Larder misuse: a transaction was used after its closure returned, or while a savepoint of it ran. Transactions live only inside read { } and write { }; inside savepoint { }, use the transaction its closure receives.")
    }

    @inline(__always)
    final var maxKeySize: Int { lmdb.environment.maxKeySize }

    // MARK: Raw access

    /// Calls `body` with the stored bytes of the object (or `metadata`), framing removed (the
    /// format byte, the version, and the checksum after verifying it), and returns its result;
    /// `nil` when there is no such value. The bytes are those of the collection's current version
    /// (see ``ValueMigrations``), migrated when the value is older, unless `asStored`: then they
    /// are the bytes as stored, and `version` says which version they are.
    ///
    /// - Warning: The buffer is lent, not given: it is valid only inside `body` and must not be
    ///   stored or returned.
    final func withStoredValue<R>(
        metadata: Bool, collection: String, key: String, operation: String,
        _ body: (_ payload: UnsafeRawBufferPointer, _ format: ArchiveFormat) throws -> R
    ) throws -> R? {
        checkActive()
        do {
            return try StorageKey.with(collection: collection, key: key, maxKeySize: maxKeySize, operation: operation) { storageKey in
                readRecorder?.key(key, inCollection: collection)
                guard let stored = try lmdb.get(metadata ? lmdb.databases.metadata : lmdb.databases.objects, key: storageKey) else { return nil }
                return try withCurrentVersion(of: try ValueFraming.unframe(stored), collection: collection, metadata: metadata, body)
            }
        } catch let error as LarderError {
            throw error.adding(operation: operation, index: YapDB.Index(collection: collection, key: key))
        }
    }

    /// ``withStoredValue(metadata:collection:key:operation:_:)``, with the version of the bytes
    /// `body` gets, and a choice between the current version and the bytes as stored. The typed
    /// reads take the other form, which does not look the current version up a second time.
    final func withStoredValue<R>(
        metadata: Bool, collection: String, key: String, operation: String, asStored: Bool,
        _ body: (_ payload: UnsafeRawBufferPointer, _ format: ArchiveFormat, _ version: UInt32) throws -> R
    ) throws -> R? {
        checkActive()
        let index = YapDB.Index(collection: collection, key: key)
        do {
            return try StorageKey.with(collection: collection, key: key, maxKeySize: maxKeySize, operation: operation) { storageKey in
                readRecorder?.key(key, inCollection: collection)
                guard let stored = try lmdb.get(metadata ? lmdb.databases.metadata : lmdb.databases.objects, key: storageKey) else { return nil }
                let value = try ValueFraming.unframe(stored)
                if asStored { return try body(value.payload, value.format, value.version) }
                return try withCurrentVersion(of: value, collection: collection, metadata: metadata) { payload, format in
                    try body(payload, format, database.migrations.currentVersion(for: collection, metadata: metadata))
                }
            }
        } catch let error as LarderError {
            throw error.adding(operation: operation, index: index)
        }
    }

    /// Decodes `payload` with `archiver`, turning its failures into ``LarderError``s with context.
    @inlinable
    final func unarchive<A: Archiver>(
        _ payload: UnsafeRawBufferPointer, format: ArchiveFormat, with archiver: A, operation: String,
        collection: String, key: String
    ) throws -> A.Value {
        do {
            return try archiver.unarchive(payload, format: format)
        } catch {
            throw decodingFailure(error, type: A.Value.self, format: format, operation: operation, collection: collection, key: key)
        }
    }

    /// The error a failed decode of (`collection`, `key`) as `type` throws: an archiver's own
    /// ``LarderError`` with context added, else ``LarderError/Code/decodingFailed``.
    @usableFromInline
    final func decodingFailure(_ error: any Error, type: Any.Type, format: ArchiveFormat, operation: String, collection: String, key: String) -> any Error {
        let index = YapDB.Index(collection: collection, key: key)
        if let error = error as? LarderError { return error.adding(operation: operation, index: index) }
        if let limit = MessagePackNestingLimit.find(in: error) {
            return LarderError(.valueTooDeep, "the stored value nests too deep to read as \(type) here: \(limit)", operation: operation, index: index,
                               underlying: String(describing: error))
        }
        return LarderError(
            .decodingFailed, "the stored bytes do not decode as \(type) (format \(format))",
            operation: operation, index: index, underlying: String(describing: error), recoverySuggestion: LarderError.Advice.decoding)
    }

    // MARK: Typed reads: non-generic cores of the inlinable shells

    /// How the typed read of (`collection`, `key`) with an archiver of type `archiverType` goes
    /// on: from the cache, a miss to remember, uncached, or by the general path (see ``TypedRead``).
    @usableFromInline
    final func typedRead(metadata: Bool, collection: String, key: String, archiverType: ObjectIdentifier, uniformArchiver: Bool) -> TypedRead {
        checkActive()
        let half: ConnectionCache.Half = metadata ? .metadata : .object
        guard database.archivers.isEmpty else { return .general }
        if !uniformArchiver {
            switch ArchiverKinds.instancesMayDiffer(archiverType) {
            case false?: break
            case true?: return .general
            case nil: return .unknownArchiver
            }
        }
        if core.cache.keepsNothing(half) {
            core.cache.countSkippedMiss(half)
            return .uncached
        }
        let index = YapDB.Index(collection: collection, key: key)
        guard let commit = cacheCommit(for: index) else { return .general }
        let key = ConnectionCache.Key(index)
        switch core.cache.typedLookup(half, at: key, commit: commit, archiver: ArchiverIdentity(type: archiverType)) {
        case .hit(let value)?: return .hit(value)
        case .miss?: return .miss(TypedRead.Slot(key: key, commit: commit))
        case nil: return .general
        }
    }

    /// Calls `body` with the stored bytes (framing removed) of the object or metadata at
    /// (`collection`, `key`); returns whether there were any.
    @usableFromInline
    final func lendStoredValue(metadata: Bool, collection: String, key: String, operation: String, _ body: (UnsafeRawBufferPointer, ArchiveFormat) throws -> Void) throws -> Bool {
        try withStoredValue(metadata: metadata, collection: collection, key: key, operation: operation) { try body($0, $1) } != nil
    }

    /// Keeps `value`, read after a ``TypedRead/miss(_:)``, in the cache; returns what the read
    /// returns.
    @usableFromInline
    final func rememberRead<T>(_ value: T, metadata: Bool, at slot: TypedRead.Slot, archiverType: ObjectIdentifier) -> T {
        core.cache.remember(value, metadata ? .metadata : .object, at: slot.key, commit: slot.commit, archiver: ArchiverIdentity(type: archiverType))
    }

    /// A typed read of the object or metadata at (`collection`, `key`) with `archiver` when no
    /// archiver is registered for the collection: the shell that the public typed reads call, to
    /// be specialized in the caller's module around the non-generic cores above. Pass
    /// `uniformArchiver` for an archiver type known to read alike in all its instances.
    @inlinable
    final func typedValue<A: Archiver>(metadata: Bool, collection: String, key: String, archiver: A, uniformArchiver: Bool = false, operation: String) throws -> A.Value? {
        let read = typedRead(metadata: metadata, collection: collection, key: key, archiverType: ObjectIdentifier(A.self), uniformArchiver: uniformArchiver)
        switch read {
        case .hit(let cached):
            if let value = cached.value.value(as: A.Value.self) { return value }
        case .general:
            return try generalRead(metadata: metadata, collection: collection, key: key, archiver: archiver)
        case .unknownArchiver:
            // Learned once per archiver type; then this read starts again.
            _ = ArchiverKinds.instancesMayDiffer(ObjectIdentifier(A.self), archiver)
            return try typedValue(metadata: metadata, collection: collection, key: key, archiver: archiver, operation: operation)
        case .miss, .uncached:
            break
        }
        var decoded: A.Value?
        _ = try lendStoredValue(metadata: metadata, collection: collection, key: key, operation: operation) { payload, format in
            decoded = try unarchive(payload, format: format, with: archiver, operation: operation, collection: collection, key: key)
        }
        guard let decoded else { return nil }
        if case .miss(let slot) = read { return rememberRead(decoded, metadata: metadata, at: slot, archiverType: ObjectIdentifier(A.self)) }
        return decoded
    }

    /// The general typed read: with the archiver registered for the collection if there is one,
    /// else `archiver`, through the cache and the identity map.
    @usableFromInline
    final func generalRead<A: Archiver>(metadata: Bool, collection: String, key: String, archiver fallback: A) throws -> A.Value? {
        let archiver = archiver(A.Value.self, in: collection, fallback: fallback)
        return try metadata
            ? self.metadata(forKey: key, inCollection: collection, archiver: archiver)
            : object(forKey: key, inCollection: collection, archiver: archiver)
    }

    /// Calls `body` with the stored bytes of the object at (`collection`, `key`) (framing byte
    /// removed) and their format, straight from the memory map, without copying or decoding;
    /// returns what `body` returns, or `nil` when there is no object. The fastest read there is,
    /// for raw values and for decoders of your own.
    ///
    /// - Warning: the buffer is lent: valid only inside `body`; do not keep or return it.
    /// - Throws: ``LarderError`` for an invalid collection or key, or a damaged stored value;
    ///   what `body` throws.
    @inlinable
    public final func withStoredObject<R>(forKey key: String, inCollection collection: String, _ body: (_ format: ArchiveFormat, _ bytes: UnsafeRawBufferPointer) throws -> R) throws -> R? {
        // A small generic shell the caller's module specializes, around a non-generic read: no
        // generic metadata is looked up on this hot path.
        var result: R?
        try lendStoredObject(forKey: key, inCollection: collection) { format, bytes in result = try body(format, bytes) }
        return result
    }

    /// The non-generic core of ``withStoredObject(forKey:inCollection:_:)``.
    @usableFromInline
    final func lendStoredObject(forKey key: String, inCollection collection: String, _ body: (ArchiveFormat, UnsafeRawBufferPointer) throws -> Void) throws {
        _ = try withStoredValue(metadata: false, collection: collection, key: key, operation: "withStoredObject") { try body($1, $0) }
    }

    /// The stored bytes of the object at (`collection`, `key`) and their format, copied out of
    /// the map; `nil` when there is none. Useful for tools that show any value.
    ///
    /// The bytes are as stored, not migrated: ``storedVersion(forKey:inCollection:metadata:)``
    /// says which version of the collection's values they are (see ``ValueMigrations``).
    /// - Throws: ``LarderError`` for an invalid collection or key, or a damaged stored value.
    public final func storedObject(forKey key: String, inCollection collection: String) throws -> (format: ArchiveFormat, bytes: [UInt8])? {
        try withStoredValue(metadata: false, collection: collection, key: key, operation: "storedObject", asStored: true) { payload, format, _ in (format, [UInt8](payload)) }
    }

    /// The stored bytes of the metadata at (`collection`, `key`) and their format; `nil` when
    /// none. As stored, like ``storedObject(forKey:inCollection:)``.
    /// - Throws: ``LarderError`` for an invalid collection or key, or a damaged stored value.
    public final func storedMetadata(forKey key: String, inCollection collection: String) throws -> (format: ArchiveFormat, bytes: [UInt8])? {
        try withStoredValue(metadata: true, collection: collection, key: key, operation: "storedMetadata", asStored: true) { payload, format, _ in (format, [UInt8](payload)) }
    }

    /// The version of its collection's values (see ``ValueMigrations``) that the object (or the
    /// metadata, with `metadata`) at (`collection`, `key`) was written with: 0 for a value
    /// written without one; `nil` when there is no such value.
    /// - Throws: ``LarderError`` for an invalid collection or key, or a damaged stored value.
    public final func storedVersion(forKey key: String, inCollection collection: String, metadata: Bool = false) throws -> Int? {
        try withStoredValue(metadata: metadata, collection: collection, key: key, operation: "storedVersion", asStored: true) { _, _, version in Int(version) }
    }

    /// The stored bytes of the object (or `metadata`) at (`collection`, `key`), their format and
    /// version, as stored: what the `larder` tool exports.
    package final func storedValue(metadata: Bool, forKey key: String, inCollection collection: String) throws -> (format: ArchiveFormat, bytes: [UInt8], version: Int)? {
        try withStoredValue(metadata: metadata, collection: collection, key: key, operation: metadata ? "storedMetadata" : "storedObject", asStored: true) {
            ($1, [UInt8]($0), Int($2))
        }
    }

    // MARK: Existence and counts

    /// Whether an object is stored at (`collection`, `key`).
    /// - Throws: ``LarderError`` for an invalid collection or key.
    public final func hasObject(forKey key: String, inCollection collection: String) throws -> Bool {
        checkActive()
        do {
            return try StorageKey.with(collection: collection, key: key, maxKeySize: maxKeySize, operation: "hasObject") { storageKey in
                readRecorder?.key(key, inCollection: collection)
                return try lmdb.get(lmdb.databases.objects, key: storageKey) != nil
            }
        } catch let error as LarderError {
            throw error.adding(operation: "hasObject", index: YapDB.Index(collection: collection, key: key))
        }
    }

    /// The number of keys in `collection`.
    /// - Complexity: O(1): counts are kept per collection.
    /// - Throws: ``LarderError`` for an invalid collection name.
    public final func numberOfKeys(inCollection collection: String) throws -> Int {
        checkActive()
        try StorageKey.validate(collection: collection, operation: "numberOfKeys")
        readRecorder?.collection(collection)
        return try storedCount(of: collection) + pendingCountChange(of: collection)
    }

    /// The number of keys across all collections.
    /// - Complexity: O(1).
    /// - Throws: ``LarderError`` with an LMDB failure.
    public final func numberOfKeysInAllCollections() throws -> Int {
        checkActive()
        readRecorder?.everything()
        return try lmdb.count(lmdb.databases.objects)
    }

    /// The number of collections that hold at least one key.
    /// - Complexity: O(collections).
    /// - Throws: ``LarderError`` with an LMDB failure.
    public final func numberOfCollections() throws -> Int {
        checkActive()
        readRecorder?.everything()
        if hasPendingCountChanges { return try collections().count }
        // A count is recorded only while it is above zero: each record is a collection (its
        // value is not read, so `statistics()` still answers on a store with a damaged count).
        var count = 0
        try lmdb.forEachCollectionCountRecord { _, _ in
            count += 1
            return true
        }
        return count
    }

    /// The names of the collections that hold at least one key, in storage (UTF-8 byte) order.
    /// - Complexity: O(collections).
    /// - Throws: ``LarderError`` with an LMDB failure.
    public final func collections() throws -> [String] {
        checkActive()
        readRecorder?.everything()
        var names: [String] = []
        try lmdb.forEachCollectionCount { stored, count in
            let name = String(decoding: stored, as: UTF8.self)
            if count + pendingCountChange(of: name) > 0 { names.append(name) }
            return true
        }
        names.append(contentsOf: try pendingNewCollections())
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    final func storedCount(of collection: String) throws -> Int {
        try lmdb.collectionCount(collection)
    }

    /// Uncommitted change of a collection's count (overridden by write transactions).
    func pendingCountChange(of collection: String) -> Int { 0 }
    /// Whether any collection's count has an uncommitted change (overridden by write transactions).
    var hasPendingCountChanges: Bool { false }
    /// Collections that have keys only through uncommitted writes (overridden by write transactions).
    func pendingNewCollections() throws -> [String] { [] }
}

@available(*, unavailable, message: "A transaction belongs to its closure; pass values out, not the transaction.")
extension ReadTransaction: Sendable {}
