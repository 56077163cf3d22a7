/// A transaction that reads and writes. Everything it does is committed together when its
/// closure returns, or not at all.
///
/// Every read of ``ReadTransaction`` works here too and sees this transaction's own writes.
public final class ReadWriteTransaction: ReadTransaction {
    /// What a write transaction has done so far that is not in LMDB itself. A group commit hands
    /// it from one caller's nested transaction to the next (``forked()``), and drops a failed
    /// caller's copy.
    struct State {
        /// Changes of collection counts not yet written to the store's count records.
        var countChanges = CountChanges()
        /// What the transaction changed: the changeset of its commit.
        var changes = ChangeRecorder()
        /// The parts of the write path that hear of each change (see ``WriteParticipant``).
        var participants: WriteParticipants

        init(participants: WriteParticipants) {
            self.participants = participants
        }

        /// A copy for a nested transaction: the participants are forked too.
        func forked() -> State {
            var copy = self
            copy.participants = participants.forked()
            return copy
        }
    }

    // The stored properties below are touched by every write. A transaction is used by one
    // thread at a time (the one running its closure), and no access to one of them overlaps
    // another (a participant that reads the transaction during a change reads `state` between
    // the transaction's own modifications, never inside one), so the run-time exclusivity check
    // Swift would make on each access of a class's property is switched off for them: it cost
    // about 6% of a raw insert.

    /// Reused for every object archived in this transaction.
    @exclusivity(unchecked) private var valueBuffer: [UInt8] = []
    /// Reused for metadata, archived before anything is stored so that a failure stores nothing.
    @exclusivity(unchecked) private var metadataBuffer: [UInt8] = []
    @exclusivity(unchecked) var state: State
    /// The commit information set by ``setCommitInfo(_:)``.
    var commitInfo: [UInt8]?
    var isRolledBack = false
    /// Set while an undo or redo puts stored bytes back (``restore(_:object:metadata:)``):
    /// participants follow the bytes, and nothing that derives further writes from a change (the
    /// delete rules, garbage collection) runs, since what it did is among the bytes put back.
    private(set) var isRestoring = false

    init(_ lmdb: LMDBTransaction, database: Database, core: ConnectionCore, snapshot: Snapshot, state: State) {
        self.state = state
        super.init(lmdb, database: database, core: core, snapshot: snapshot)
    }

    /// The parts of the write path this transaction keeps informed.
    var participants: WriteParticipants { state.participants }

    /// The participant of type `P` in this transaction, made by `make` and joined at `rank` if it
    /// has none (a participant that takes part in some transactions only, as undo capture in an
    /// undoable write). It hears only what happens after it joins.
    func participant<P: WriteParticipant>(_ type: P.Type, joiningAt rank: ParticipantRank, make: () -> P) -> P {
        if let existing = state.participants.first(P.self) { return existing }
        let made = make()
        state.participants = state.participants.adding(made, rank: rank)
        return made
    }

    override func cacheCommit(for index: YapDB.Index) -> UInt64? {
        // What this transaction changed is not what the cache holds; a transaction that records
        // its reads reads the store, so that each read is recorded.
        guard snapshot.cacheUsable, readRecorder == nil, !state.changes.hasChange(for: index) else { return nil }
        return snapshot.commit
    }

    /// Whether a write method has been called on this transaction (a group commit's caller
    /// starts with the state of the callers before it, so the state cannot tell).
    @exclusivity(unchecked) var hasWritten = false

    @inline(__always)
    private func checkWritable() {
        hasWritten = true
        checkActive()
        precondition(enumerationDepth == 0, "Larder misuse: the store was modified inside an enumeration. Collect the keys first, then change them after the enumeration.")
        precondition(!isRolledBack, "Larder misuse: a write transaction was used after rollback().")
    }

    /// Abandons everything this transaction wrote: nothing is committed when the closure
    /// returns. The closure should return soon after; any further write stops the program.
    public func rollback() {
        checkActive()
        isRolledBack = true
    }

    /// Attaches `info` to this transaction's commit: observers find it in the changeset
    /// (``Changeset/commitInfo(as:)``), in this process and others. Keep it small (it is stored
    /// in the change log); a second call replaces the first.
    ///
    /// ```swift
    /// try db.write { txn in
    ///     try txn.setObject(order, forKey: order.id, inCollection: "orders")
    ///     try txn.setCommitInfo(["reason": "checkout"])
    /// }
    /// ```
    /// - Throws: ``LarderError/Code/encodingFailed`` when `info` does not encode.
    public func setCommitInfo(_ info: some Encodable) throws {
        checkWritable()
        do {
            commitInfo = try MessagePackEncoder().encode(info)
        } catch {
            throw LarderError(.encodingFailed, "the commit information could not be encoded", operation: "setCommitInfo", underlying: String(describing: error))
        }
    }

    /// Adds `payload` to the commit's changeset as what extension `name` changed (a registration
    /// reports that it rebuilt or removed one).
    func recordExtensionChanges(_ payload: [UInt8], named name: String) {
        state.changes.recordExtensionChanges(payload, named: name)
    }

    // MARK: The participants

    /// Tells the participants that want it that the bytes at `index` are about to change.
    @inline(__always)
    private func willChange(_ index: YapDB.Index, at storageKey: UnsafeRawBufferPointer) throws {
        for participant in state.participants.all where participant.wantsBeforeImages {
            try participant.willChange(index, at: storageKey, in: self)
        }
    }

    /// Tells every participant of `change`, in order. The change is described only when one
    /// wants to hear of it (see ``WriteParticipant/wantsChanges``).
    @inline(__always)
    private func didChange(_ change: @autoclosure () -> WriteChange) throws {
        let participants = state.participants
        guard participants.wantChanges else { return }
        let change = change()
        for participant in participants.all {
            try participant.didChange(change, in: self)
        }
    }

    /// Completes what the closure did, once it has returned: the participants' last work (garbage
    /// collection, the undo step), the commit information. A group commit calls it after each
    /// caller's closure, in the caller's nested transaction; calling it again does nothing more.
    func completeClosure() throws {
        for participant in state.participants.all { try participant.closureDidReturn(in: self) }
        if let commitInfo { state.changes.recordCommitInfo(commitInfo) }
        commitInfo = nil
    }

    /// The bytes stored at `storageKey` now; without `metadata`, the object's only.
    func storedImage(at storageKey: UnsafeRawBufferPointer, metadata: Bool = true) throws -> StoredImage {
        StoredImage(object: try lmdb.get(lmdb.databases.objects, key: storageKey).map { [UInt8]($0) },
                    metadata: metadata ? try lmdb.get(lmdb.databases.metadata, key: storageKey).map { [UInt8]($0) } : nil)
    }

    // MARK: Storing

    /// Archives `value` with its framing (see ``ValueFraming``) into `buffer` (emptied first).
    /// The value records `version`, its collection's current version (see ``ValueMigrations``).
    private func archive<A: Archiver>(_ value: A.Value, with archiver: A, into buffer: inout [UInt8], version: UInt32, index: @autoclosure () -> YapDB.Index, operation: String) throws {
        let format = archiver.format
        guard format.rawValue != ValueFraming.checksummedTag, format.rawValue != ValueFraming.versionTag else {
            throw LarderError(.encodingFailed, "format bytes 0x3E and 0x3F are reserved for the version and checksum framings; an archiver cannot use them", operation: operation, index: index())
        }
        if version != 0 { try recordVersionedFormat() }
        let checksummed = database.shared.configuration.checksumsValues
        ValueFraming.begin(&buffer, format: format, checksummed: checksummed, version: version)
        do {
            try archiver.archive(value, into: &buffer)
        } catch let error as LarderError {
            throw error.adding(operation: operation, index: index())
        } catch {
            if let limit = MessagePackNestingLimit.find(in: error) {
                throw LarderError(.valueTooDeep, "the value of type \(A.Value.self) nests too deep to store: \(limit)", operation: operation, index: index(),
                                  underlying: String(describing: error))
            }
            throw LarderError(.encodingFailed, "the value of type \(A.Value.self) could not be archived", operation: operation, index: index(), underlying: String(describing: error))
        }
        if checksummed {
            ValueFraming.seal(&buffer, checksummed: true)
            try recordChecksummedFormat()
        }
    }

    /// Whether this transaction has seen the store's format version at 2 or more (or raised it).
    private var checksummedFormatRecorded = false

    /// Raises the store's recorded format version to 2 (the first with checksummed values), once
    /// per transaction, so that an older Larder refuses the store instead of misreading it.
    private func recordChecksummedFormat() throws {
        guard !checksummedFormatRecorded else { return }
        let key = StoreFormat.versionKey
        if let stored = try lmdb.get(lmdb.databases.larder, key: key), stored.count == 4,
           UInt32(bigEndian: stored.loadUnaligned(as: UInt32.self)) >= StoreFormat.checksummed {
            checksummedFormatRecorded = true
            return
        }
        var version = StoreFormat.checksummed.bigEndian
        try withUnsafeBytes(of: &version) { try lmdb.put(lmdb.databases.larder, key: key, value: $0) }
        checksummedFormatRecorded = true
    }

    /// Whether this transaction has seen the store's format version at 5 or more (or raised it).
    private var versionedFormatRecorded = false

    /// Raises the store's recorded format version to 5 (the first with versioned values), once
    /// per transaction, so that an older Larder refuses the store instead of misreading them.
    private func recordVersionedFormat() throws {
        guard !versionedFormatRecorded else { return }
        try Environment.raiseFormatVersion(to: StoreFormat.versionedValues, in: lmdb)
        versionedFormatRecorded = true
    }

    /// The versions the writes inside ``withStoredVersions(object:metadata:_:)`` record.
    private var versionOverride: (object: UInt32, metadata: UInt32)?

    /// The version a value written to `collection`'s objects (or metadata) records.
    @inline(__always)
    private func currentVersion(of collection: String, metadata: Bool) -> UInt32 {
        if let versionOverride { return metadata ? versionOverride.metadata : versionOverride.object }
        return database.migrations.currentVersion(for: collection, metadata: metadata)
    }

    /// Runs `body`, whose writes record versions `object` and `metadata` whatever the
    /// collections declare: for tools that copy stored values as they are (the `larder` tool's
    /// import).
    package func withStoredVersions<R>(object: Int, metadata: Int, _ body: () throws -> R) throws -> R {
        guard let object = UInt32(exactly: object), let metadata = UInt32(exactly: metadata) else {
            throw LarderError(.invalidConfiguration, "a value version is between 0 and \(UInt32.max)")
        }
        versionOverride = (object, metadata)
        defer { versionOverride = nil }
        return try body()
    }

    /// Cursors on the objects and the metadata database, opened by the first store into each and
    /// freed by LMDB when the transaction ends: a store through one searches the tree once, where
    /// a store that must say whether it replaced something would otherwise search it twice.
    @exclusivity(unchecked) private var objectsCursor: OpaquePointer?
    @exclusivity(unchecked) private var metadataCursor: OpaquePointer?

    /// Stores `bytes` at `storageKey` in `database`; returns whether an entry was there before.
    private func put(_ bytes: [UInt8], in database: DatabaseHandle, at storageKey: UnsafeRawBufferPointer) throws -> Bool {
        try bytes.withUnsafeBytes { bytes in
            if database.raw == lmdb.databases.objects.raw {
                return try lmdb.put(database, key: storageKey, value: bytes, through: &objectsCursor)
            }
            if database.raw == lmdb.databases.metadata.raw {
                return try lmdb.put(database, key: storageKey, value: bytes, through: &metadataCursor)
            }
            if try lmdb.putIfAbsent(database, key: storageKey, value: bytes) { return false }
            try lmdb.put(database, key: storageKey, value: bytes)
            return true
        }
    }

    /// Sets the object and, when `metadata` is not nil, the metadata; without it the metadata is
    /// removed (YapDatabase's rule for `setObject`).
    private func set<A: Archiver, B: Archiver>(_ object: A.Value, with archiver: A, metadata: B.Value?, metadataArchiver: B, forKey key: String, inCollection collection: String) throws {
        guard let metadata else {
            try set(object, with: archiver, forKey: key, inCollection: collection)
            return
        }
        try setting(forKey: key, inCollection: collection) { index, storageKey in
            try archive(object, with: archiver, into: &valueBuffer, version: currentVersion(of: collection, metadata: false), index: index, operation: "setObject")
            try archive(metadata, with: metadataArchiver, into: &metadataBuffer, version: currentVersion(of: collection, metadata: true), index: index, operation: "setObject")
            let existed = try storeArchived(index, at: storageKey, withMetadata: true)
            try didChange(.row(ChangedRow(index: index, object: .written, metadata: .written, writtenObject: CachedValue(object), objectArchiver: archiver,
                                          metadataValue: CachedValue(metadata), metadataArchiver: metadataArchiver, createdObject: !existed,
                                          storedObject: valueBuffer, storedMetadata: metadataBuffer)))
        }
    }

    /// Sets the object and removes any metadata (YapDatabase's rule for `setObject`).
    ///
    /// Kept apart from the form with metadata so that a write without metadata handles no
    /// optional of a generic type: this function is not specialized for its callers' types, and
    /// each use of such an optional looks up its type metadata (about 325 instructions, an eighth
    /// of the work around a raw insert's `mdb_put`; callgrind).
    private func set<A: Archiver>(_ object: A.Value, with archiver: A, forKey key: String, inCollection collection: String) throws {
        try setting(forKey: key, inCollection: collection) { index, storageKey in
            try archive(object, with: archiver, into: &valueBuffer, version: currentVersion(of: collection, metadata: false), index: index, operation: "setObject")
            let existed = try storeArchived(index, at: storageKey, withMetadata: false)
            try didChange(.row(ChangedRow(index: index, object: .written, metadata: .removed, writtenObject: CachedValue(object), objectArchiver: archiver,
                                          createdObject: !existed, storedObject: valueBuffer)))
        }
    }

    /// The frame of both `set` forms: checks the transaction, validates and frames the storage
    /// key, and names the operation and index in the errors `body` throws.
    private func setting(forKey key: String, inCollection collection: String, _ body: (YapDB.Index, UnsafeRawBufferPointer) throws -> Void) throws {
        checkWritable()
        let index = YapDB.Index(collection: collection, key: key)
        do {
            try StorageKey.with(collection: collection, key: key, maxKeySize: maxKeySize, operation: "setObject") { try body(index, $0) }
        } catch let error as LarderError {
            throw error.adding(operation: "setObject", index: index)
        }
    }

    /// The part of ``set(_:with:metadata:metadataArchiver:forKey:inCollection:)`` that knows no
    /// value types: stores `valueBuffer` (and `metadataBuffer` when `withMetadata`, or removes the
    /// metadata otherwise), counts and records the change. Returns whether an object was there.
    private func storeArchived(_ index: YapDB.Index, at storageKey: UnsafeRawBufferPointer, withMetadata: Bool) throws -> Bool {
        try willChange(index, at: storageKey)
        let existed = try put(valueBuffer, in: lmdb.databases.objects, at: storageKey)
        if !existed { state.countChanges.add(1, to: index.collection) }
        state.changes.recordObject(index, existed ? .updated : .inserted)
        if withMetadata {
            let had = try put(metadataBuffer, in: lmdb.databases.metadata, at: storageKey)
            state.changes.recordMetadata(index, had ? .updated : .inserted)
        } else if existed {
            // A new object has no metadata to remove (metadata lives only beside an object).
            if try lmdb.delete(lmdb.databases.metadata, key: storageKey) { state.changes.recordMetadata(index, .removed) }
        }
        return existed
    }

    /// Stores `object` at (`collection`, `key`) with `archiver`, replacing any object there, and
    /// sets the metadata to `metadata` (removing it when `nil`).
    /// - Throws: ``LarderError`` for an invalid collection or key (``LarderError/Code/emptyKey``,
    ///   ``LarderError/Code/keyTooLong``, ``LarderError/Code/invalidCollection``), a value that
    ///   does not archive (``LarderError/Code/encodingFailed``), or a failure of LMDB. The store
    ///   is unchanged by a call that throws.
    public func setObject<A: Archiver, B: Archiver>(_ object: A.Value, forKey key: String, inCollection collection: String, archiver: A, metadata: B.Value?, metadataArchiver: B) throws {
        try set(object, with: archiver, metadata: metadata, metadataArchiver: metadataArchiver, forKey: key, inCollection: collection)
    }

    /// Stores `object` at (`collection`, `key`), replacing any object there and **removing any
    /// metadata** there (use ``replaceObject(_:forKey:inCollection:)-3fm36`` to keep it).
    ///
    /// ```swift
    /// try db.write { try $0.setObject(Product(id: "p1", name: "Hammer"), forKey: "p1", inCollection: "products") }
    /// ```
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    public func setObject<T: Saveable>(_ object: T, forKey key: String, inCollection collection: String) throws {
        try set(object, with: archiver(T.self, in: collection, fallback: T.archiver), forKey: key, inCollection: collection)
    }

    /// Stores `object` at (`collection`, `key`), replacing any object there and **removing any
    /// metadata** there.
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    @_disfavoredOverload
    public func setObject<T: Codable>(_ object: T, forKey key: String, inCollection collection: String) throws {
        try set(object, with: archiver(T.self, in: collection, fallback: MessagePackArchiver<T>()), forKey: key, inCollection: collection)
    }

    /// Stores `object` and `metadata` at (`collection`, `key`), replacing what was there; a
    /// `nil` metadata removes the stored one.
    ///
    /// Metadata is any `Codable` type (one that is also ``Saveable`` uses its own archiver).
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    public func setObject<T: Saveable, M: Codable>(_ object: T, forKey key: String, inCollection collection: String, metadata: M?) throws {
        try set(object, with: archiver(T.self, in: collection, fallback: T.archiver), metadata: metadata, metadataArchiver: metadataArchiver(M.self, in: collection), forKey: key, inCollection: collection)
    }

    /// Stores `object` and `metadata` at (`collection`, `key`), replacing what was there; a
    /// `nil` metadata removes the stored one.
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    @_disfavoredOverload
    public func setObject<T: Codable, M: Codable>(_ object: T, forKey key: String, inCollection collection: String, metadata: M?) throws {
        try set(object, with: archiver(T.self, in: collection, fallback: MessagePackArchiver<T>()), metadata: metadata, metadataArchiver: metadataArchiver(M.self, in: collection), forKey: key, inCollection: collection)
    }

    // MARK: Replacing one half

    /// Replaces the object at (`collection`, `key`) if there is one, leaving its metadata alone.
    /// - Returns: `false` (and stores nothing) when there is no object there.
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    @discardableResult
    public func replaceObject<A: Archiver>(_ object: A.Value, forKey key: String, inCollection collection: String, archiver: A) throws -> Bool {
        try replace(object, with: archiver, in: \.objects, forKey: key, inCollection: collection, operation: "replaceObject")
    }

    /// Replaces the object at (`collection`, `key`) if there is one, leaving its metadata alone.
    /// - Returns: `false` (and stores nothing) when there is no object there.
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    @discardableResult
    public func replaceObject<T: Saveable>(_ object: T, forKey key: String, inCollection collection: String) throws -> Bool {
        try replaceObject(object, forKey: key, inCollection: collection, archiver: archiver(T.self, in: collection, fallback: T.archiver))
    }

    /// Replaces the object at (`collection`, `key`) if there is one, leaving its metadata alone.
    /// - Returns: `false` (and stores nothing) when there is no object there.
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    @discardableResult @_disfavoredOverload
    public func replaceObject<T: Codable>(_ object: T, forKey key: String, inCollection collection: String) throws -> Bool {
        try replaceObject(object, forKey: key, inCollection: collection, archiver: archiver(T.self, in: collection, fallback: MessagePackArchiver<T>()))
    }

    /// Replaces the metadata at (`collection`, `key`) if there is an object there, leaving the
    /// object alone; `nil` removes the metadata.
    /// - Returns: `false` (and stores nothing) when there is no object there.
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    @discardableResult
    public func replaceMetadata<A: Archiver>(_ metadata: A.Value?, forKey key: String, inCollection collection: String, archiver: A) throws -> Bool {
        guard let metadata else { return try removeMetadata(forKey: key, inCollection: collection) }
        return try replace(metadata, with: archiver, in: \.metadata, forKey: key, inCollection: collection, operation: "replaceMetadata")
    }

    /// Replaces the metadata at (`collection`, `key`) if there is an object there; `nil` removes it.
    /// - Returns: `false` (and stores nothing) when there is no object there.
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    @discardableResult
    public func replaceMetadata<M: Saveable>(_ metadata: M?, forKey key: String, inCollection collection: String) throws -> Bool {
        try replaceMetadata(metadata, forKey: key, inCollection: collection, archiver: archiver(M.self, in: collection, fallback: M.archiver))
    }

    /// Replaces the metadata at (`collection`, `key`) if there is an object there; `nil` removes it.
    /// - Returns: `false` (and stores nothing) when there is no object there.
    /// - Throws: as ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``.
    @discardableResult @_disfavoredOverload
    public func replaceMetadata<M: Codable>(_ metadata: M?, forKey key: String, inCollection collection: String) throws -> Bool {
        try replaceMetadata(metadata, forKey: key, inCollection: collection, archiver: archiver(M.self, in: collection, fallback: MessagePackArchiver<M>()))
    }

    private func replace<A: Archiver>(_ value: A.Value, with archiver: A, in half: (Environment.Databases) -> DatabaseHandle, forKey key: String, inCollection collection: String, operation: String) throws -> Bool {
        checkWritable()
        let index = YapDB.Index(collection: collection, key: key)
        do {
            return try StorageKey.with(collection: collection, key: key, maxKeySize: maxKeySize, operation: operation) { storageKey in
                readRecorder?.key(key, inCollection: collection)
                guard try lmdb.get(lmdb.databases.objects, key: storageKey) != nil else { return false }
                let database = half(lmdb.databases)
                let version = currentVersion(of: collection, metadata: database == lmdb.databases.metadata)
                try archive(value, with: archiver, into: &valueBuffer, version: version, index: index, operation: operation)
                try willChange(index, at: storageKey)
                let existed = try put(valueBuffer, in: database, at: storageKey)
                if database == lmdb.databases.objects {
                    state.changes.recordObject(index, .updated)
                    try didChange(.row(.written(object: value, by: archiver, at: index, stored: valueBuffer)))
                } else {
                    state.changes.recordMetadata(index, existed ? .updated : .inserted)
                    try didChange(.row(.written(metadata: value, by: archiver, at: index, stored: valueBuffer)))
                }
                return true
            }
        } catch let error as LarderError {
            throw error.adding(operation: operation, index: index)
        }
    }

    /// Removes the metadata at (`collection`, `key`), leaving the object.
    /// - Returns: whether there was metadata to remove.
    /// - Throws: ``LarderError`` for an invalid collection or key, or a failure of LMDB.
    @discardableResult
    public func removeMetadata(forKey key: String, inCollection collection: String) throws -> Bool {
        checkWritable()
        let index = YapDB.Index(collection: collection, key: key)
        let removed = try StorageKey.with(collection: collection, key: key, maxKeySize: maxKeySize, operation: "removeMetadata") { storageKey in
            readRecorder?.key(key, inCollection: collection)  // it says whether there was metadata
            try willChange(index, at: storageKey)
            return try lmdb.delete(lmdb.databases.metadata, key: storageKey)
        }
        if removed {
            state.changes.recordMetadata(index, .removed)
            try didChange(.row(ChangedRow(index: index, object: nil, metadata: .removed)))
        }
        return removed
    }

    // MARK: Touching

    /// Marks the object at (`collection`, `key`) as changed without changing it, so that the
    /// commit's changeset lists it (views and observers then treat it as updated).
    /// - Returns: `false` when there is no object there.
    /// - Throws: ``LarderError`` for an invalid collection or key.
    @discardableResult
    public func touchObject(forKey key: String, inCollection collection: String) throws -> Bool {
        checkWritable()
        guard try hasObject(forKey: key, inCollection: collection) else { return false }
        let index = YapDB.Index(collection: collection, key: key)
        state.changes.recordObject(index, .updated)
        try didChange(.row(ChangedRow(index: index, object: .touched, metadata: nil)))
        return true
    }

    /// Marks the metadata at (`collection`, `key`) as changed without changing it.
    /// - Returns: `false` when there is no object there.
    /// - Throws: ``LarderError`` for an invalid collection or key.
    @discardableResult
    public func touchMetadata(forKey key: String, inCollection collection: String) throws -> Bool {
        checkWritable()
        guard try hasObject(forKey: key, inCollection: collection) else { return false }
        let index = YapDB.Index(collection: collection, key: key)
        state.changes.recordMetadata(index, .updated)
        try didChange(.row(ChangedRow(index: index, object: nil, metadata: .touched)))
        return true
    }

    // MARK: Removing

    /// Removes the object and metadata at (`collection`, `key`).
    /// - Returns: whether there was an object to remove.
    /// - Throws: ``LarderError`` for an invalid collection or key, or a failure of LMDB.
    @discardableResult
    public func removeObject(forKey key: String, inCollection collection: String) throws -> Bool {
        checkWritable()
        let index = YapDB.Index(collection: collection, key: key)
        do {
            return try StorageKey.with(collection: collection, key: key, maxKeySize: maxKeySize, operation: "removeObject") { storageKey in
                readRecorder?.key(key, inCollection: collection)  // it says whether there was an object
                try willChange(index, at: storageKey)
                guard try lmdb.delete(lmdb.databases.objects, key: storageKey) else { return false }
                state.countChanges.add(-1, to: collection)
                state.changes.recordObject(index, .removed)
                if try lmdb.delete(lmdb.databases.metadata, key: storageKey) { state.changes.recordMetadata(index, .removed) }
                try didChange(.removed(index))
                return true
            }
        } catch let error as LarderError {
            throw error.adding(operation: "removeObject", index: index)
        }
    }

    /// Removes the objects and metadata at `keys` in `collection`.
    /// - Returns: how many objects there were to remove.
    /// - Throws: as ``removeObject(forKey:inCollection:)``; on a throw, the keys before the
    ///   failing one are removed in this transaction (throw out of the closure to undo them).
    @discardableResult
    public func removeObjects(forKeys keys: some Sequence<String>, inCollection collection: String) throws -> Int {
        var removed = 0
        for key in keys where try removeObject(forKey: key, inCollection: collection) { removed += 1 }
        return removed
    }

    /// Removes every object and metadata value of `collection`.
    /// - Complexity: O(k log n) for the k keys of the collection.
    /// - Throws: ``LarderError`` for an invalid collection name, or a failure of LMDB.
    public func removeAllObjects(inCollection collection: String) throws {
        checkWritable()
        try StorageKey.validate(collection: collection, operation: "removeAllObjects")
        let prefix = StorageKey.prefix(of: collection)
        if state.participants.wantBeforeImagesOfBulkRemovals {
            for key in try keys(inCollection: collection) {
                try StorageKey.with(collection: collection, key: key, maxKeySize: maxKeySize, operation: "removeAllObjects") {
                    try willChange(YapDB.Index(collection: collection, key: key), at: $0)
                }
            }
        }
        let removed = try lmdb.removeAll(in: lmdb.databases.objects, withPrefix: prefix)
        try lmdb.removeAll(in: lmdb.databases.metadata, withPrefix: prefix)
        if removed > 0 {
            state.countChanges.add(-removed, to: collection)
            state.changes.recordCleared(collection)
            try didChange(.cleared(collection))
        }
    }

    /// Removes everything: every object and metadata value of every collection.
    /// - Throws: a ``LarderError`` from LMDB.
    public func removeAllObjectsInAllCollections() throws {
        checkWritable()
        if state.participants.wantBeforeImagesOfBulkRemovals {
            var indexes: [YapDB.Index] = []
            try enumerateKeysInAllCollections { index, _ in indexes.append(index) }
            for index in indexes {
                try StorageKey.with(collection: index.collection, key: index.key, maxKeySize: maxKeySize, operation: "removeAllObjectsInAllCollections") {
                    try willChange(index, at: $0)
                }
            }
        }
        try lmdb.empty(lmdb.databases.objects)
        try lmdb.empty(lmdb.databases.metadata)
        try lmdb.removeAllCollectionCounts()
        state.countChanges.removeAll()
        state.changes.recordRemovedEverything()
        try didChange(.removedEverything)
    }

    // MARK: Restoring

    /// Puts back the stored bytes of one index (an undo or a redo): `object` and `metadata` are
    /// whole stored values (format byte included), `nil` for none. Goes through the changeset,
    /// the counts, the cache and the extensions like any write.
    func restore(_ index: YapDB.Index, object: [UInt8]?, metadata: [UInt8]?) throws {
        checkWritable()
        isRestoring = true
        defer { isRestoring = false }
        try restoreBytes(index, object: object, metadata: metadata)
    }

    /// The work of ``restore(_:object:metadata:)``, with ``isRestoring`` already set.
    private func restoreBytes(_ index: YapDB.Index, object: [UInt8]?, metadata: [UInt8]?) throws {
        if ValueFraming.hasVersion(object) || ValueFraming.hasVersion(metadata) { try recordVersionedFormat() }
        try StorageKey.with(collection: index.collection, key: index.key, maxKeySize: maxKeySize, operation: "undo") { storageKey in
            try willChange(index, at: storageKey)
            let current = try storedImage(at: storageKey)
            guard let object else {
                guard current.object != nil else { return }
                _ = try lmdb.delete(lmdb.databases.objects, key: storageKey)
                state.countChanges.add(-1, to: index.collection)
                state.changes.recordObject(index, .removed)
                if try lmdb.delete(lmdb.databases.metadata, key: storageKey) { state.changes.recordMetadata(index, .removed) }
                try didChange(.removed(index))
                return
            }
            let objectChanged = current.object != object
            if objectChanged {
                try object.withUnsafeBytes { try lmdb.put(lmdb.databases.objects, key: storageKey, value: $0) }
                if current.object == nil { state.countChanges.add(1, to: index.collection) }
                state.changes.recordObject(index, current.object == nil ? .inserted : .updated)
            }
            let metadataChanged = current.metadata != metadata
            if metadataChanged {
                if let metadata {
                    try metadata.withUnsafeBytes { try lmdb.put(lmdb.databases.metadata, key: storageKey, value: $0) }
                    state.changes.recordMetadata(index, current.metadata == nil ? .inserted : .updated)
                } else {
                    _ = try lmdb.delete(lmdb.databases.metadata, key: storageKey)
                    state.changes.recordMetadata(index, .removed)
                }
            }
            if objectChanged || metadataChanged {
                try didChange(.row(ChangedRow(index: index, object: objectChanged ? .restored : nil, metadata: metadataChanged ? .restored : nil)))
            }
        }
    }

    // MARK: Applying another store's rows

    /// Runs `body`, which puts back stored bytes (``restoreRow(_:object:metadata:touchingObject:touchingMetadata:)``,
    /// the removals), as a restore: participants that derive further writes from a change (delete
    /// rules, garbage collection, undo capture) stand aside, since the writes they would make are
    /// among the bytes being put back.
    func restoring<R>(_ body: () throws -> R) throws -> R {
        checkWritable()
        isRestoring = true
        defer { isRestoring = false }
        return try body()
    }

    /// Puts back the stored bytes of one row (inside ``restoring(_:)``); where the bytes were
    /// already there, records the object (`touchingObject`) or the metadata (`touchingMetadata`)
    /// as touched, so observers still hear of a change another store made.
    func restoreRow(_ index: YapDB.Index, object: [UInt8]?, metadata: [UInt8]?, touchingObject: Bool, touchingMetadata: Bool) throws {
        precondition(isRestoring, "restoreRow is called inside restoring(_:)")
        let before = try StorageKey.with(collection: index.collection, key: index.key, maxKeySize: maxKeySize, operation: "replicate") {
            try storedImage(at: $0)
        }
        try restoreBytes(index, object: object, metadata: object == nil ? nil : metadata)
        guard object != nil else { return }
        if touchingObject, before.object == object {
            state.changes.recordObject(index, .updated)
            try didChange(.row(ChangedRow(index: index, object: .touched, metadata: nil)))
        }
        if touchingMetadata, before.metadata == metadata, metadata != nil {
            state.changes.recordMetadata(index, .updated)
            try didChange(.row(ChangedRow(index: index, object: nil, metadata: .touched)))
        }
    }

    /// The changes recorded so far, as a changeset.
    func recordedChangeset() -> Changeset {
        state.changes.changeset()
    }

    /// Records commit information another store's commit carried.
    func recordCommitInfo(_ info: [UInt8]) {
        state.changes.recordCommitInfo(info)
    }

    /// Forgets the changes recorded so far (see ``startRecordingReads()``). The counts' pending
    /// changes stay: reads in the transaction still need them.
    func resetRecordedChanges() {
        state.changes = ChangeRecorder()
    }

    // MARK: Counts

    override func pendingCountChange(of collection: String) -> Int {
        state.countChanges[collection]
    }

    override var hasPendingCountChanges: Bool {
        state.countChanges.all().values.contains { $0 != 0 }
    }

    override func pendingNewCollections() throws -> [String] {
        var names: [String] = []
        for (name, change) in state.countChanges.all() where change > 0 {
            if try storedCount(of: name.string) == 0 { names.append(name.string) }
        }
        return names
    }

    /// Writes the collection counts and, when anything changed, the change log entry; runs just
    /// before the commit. Returns the commit's changeset, `nil` when nothing changed.
    func finish() throws -> Changeset? {
        try completeClosure()
        try lmdb.moveStoreRecordsToMainDatabase()  // a store of format 5 or older, on its first write
        for (collection, change) in state.countChanges.all() where change != 0 {
            try lmdb.setCollectionCount(collection.string, to: try storedCount(of: collection.string) + change)
        }
        state.countChanges.removeAll()
        // The participants work on a copy: they may read this transaction (and so its state)
        // while they add to the changeset.
        var changes = state.changes.changeset()
        for participant in state.participants.all { try participant.willCommit(&changes, in: self) }
        state.changes = ChangeRecorder(changes)
        return changes.isEmpty ? nil : changes
    }
}
