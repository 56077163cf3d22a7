extension Database {
    /// Declares the versions of a collection's values and how older ones become current (see
    /// ``ValueMigrations``): from now on every write to the collection records the current
    /// version, and every read of an older value migrates it in memory.
    ///
    /// Register before the first read or write of the collection, as archivers are; registering
    /// again for the same collection and half replaces the declaration. Nothing is written: a
    /// store is raised to format 5 by the first write of a versioned value.
    ///
    /// When ``Configuration/onEvent`` is set and some version below the current one has no chain
    /// of steps to it (say no step starts at 0), the collection's values are looked at (their
    /// framing, O(n)), and values at such versions are reported as
    /// ``DatabaseEvent/unmigratableValues(_:)``: reading them would fail.
    public func register(_ migrations: ValueMigrations) {
        self.migrations.register(migrations)
        if let onEvent = configuration.onEvent, let report = unmigratableValues(under: migrations) {
            onEvent(.unmigratableValues(report))
        }
    }

    /// The values of `migrations`'s collection at versions from which its steps do not reach the
    /// current one; `nil` when there are none (or the collection cannot be read: that is for the
    /// reads to report).
    func unmigratableValues(under migrations: ValueMigrations) -> UnmigratableValues? {
        // The versions below the current one from which the steps reach it, counted down.
        var stranded = Set<Int>()
        var reaches = true
        for version in stride(from: migrations.currentVersion - 1, through: 0, by: -1) {
            reaches = reaches && migrations.hasStep(from: version)
            if !reaches { stranded.insert(version) }
        }
        guard !stranded.isEmpty else { return nil }
        let collection = migrations.collection, metadata = migrations.metadata
        var counts: [Int: Int] = [:]
        var firstKey: String?
        try? read { txn in
            try txn.walk(metadata ? txn.lmdb.databases.metadata : txn.lmdb.databases.objects, collection: collection, range: .all, operation: "register") { key, value in
                if let version = try? ValueFraming.unframe(value).version, stranded.contains(Int(version)) {
                    counts[Int(version), default: 0] += 1
                    if firstKey == nil { firstKey = String(decoding: key, as: UTF8.self) }
                }
                return true
            }
        }
        guard let firstKey else { return nil }
        return UnmigratableValues(collection: collection, metadata: metadata, currentVersion: migrations.currentVersion, counts: counts, firstKey: firstKey)
    }

    /// Declares the versions of `type`'s values, as ``Migratable`` says them.
    public func registerMigrations<T: Migratable>(of type: T.Type) {
        register(ValueMigrations(of: type))
    }

    /// Rewrites every value of `collection` (its objects, or with `metadata` its metadata) that is
    /// older than the version registered for it, in transactions of `chunkSize` values each, and
    /// returns the last progress.
    ///
    /// Each chunk commits on its own, like any write: changesets, extensions and the change log see
    /// the rewritten values (their content is what reads already saw, so views and indexes do
    /// not move). A migration that stops (an error, a killed process) leaves the chunks it
    /// committed; calling it again goes on, since values already at the current version are
    /// only looked at. Other writers may run between chunks.
    ///
    /// ```swift
    /// try db.migrate(collection: "people") { print("\($0.scanned) of \($0.total)") }
    /// ```
    /// - Throws: ``LarderError/Code/invalidConfiguration`` when no versions are registered for
    ///   the collection; ``LarderError/Code/newerValueVersion`` when a value is newer than the
    ///   registered version, and ``LarderError/Code/migrationFailed`` when one cannot be
    ///   migrated (the chunk it is in is not written; earlier chunks are); errors of writes.
    /// - Complexity: O(n) reads of the collection's n values, and a write of each old one.
    @discardableResult
    public func migrate(
        collection: String, metadata: Bool = false, chunkSize: Int = 1000, progress: ((MigrationProgress) -> Void)? = nil
    ) throws -> MigrationProgress {
        precondition(chunkSize > 0, "Larder misuse: a migration's chunkSize must be at least 1")
        guard let declared = migrations.migrations(for: collection, metadata: metadata) else {
            throw LarderError(.invalidConfiguration, "no versions are registered for \(metadata ? "the metadata of " : "")collection \"\(collection)\": register its ValueMigrations first", operation: "migrate")
        }
        let total = try read { try $0.numberOfKeys(inCollection: collection) }
        var scanned = 0, migrated = 0
        var after: String?
        while true {
            let chunk = try write { txn in try txn.migrateChunk(of: declared, after: after, limit: chunkSize) }
            scanned += chunk.scanned
            migrated += chunk.migrated
            after = chunk.lastKey
            let report = MigrationProgress(collection: collection, scanned: scanned, total: total, migrated: migrated)
            progress?(report)
            if !chunk.hasMore { return report }
        }
    }

    /// Migrates `collection` as ``migrate(collection:metadata:chunkSize:progress:)`` does, on a
    /// thread of its own at `priority` instead of the awaiting task's, so that a long migration
    /// holds no thread of Swift's cooperative pool. Not cancelled with the task: the chunk being
    /// written commits, and the migration goes on to its end or its first error.
    /// - Throws: as ``migrate(collection:metadata:chunkSize:progress:)``.
    @discardableResult
    public func migrate(
        collection: String, metadata: Bool = false, chunkSize: Int = 1000, priority: TaskPriority,
        progress: (@Sendable (MigrationProgress) -> Void)? = nil
    ) async throws -> MigrationProgress {
        try await runOffThePool(priority: priority) {
            try self.migrate(collection: collection, metadata: metadata, chunkSize: chunkSize, progress: progress)
        }
    }

    /// ``storedVersions(inCollection:metadata:)``, counted on a thread of its own at `priority`
    /// instead of the awaiting task's (it reads every value of the collection).
    /// - Throws: as ``storedVersions(inCollection:metadata:)``.
    public func storedVersions(inCollection collection: String, metadata: Bool = false, priority: TaskPriority) async throws -> [Int: Int] {
        try await runOffThePool(priority: priority) { try self.storedVersions(inCollection: collection, metadata: metadata) }
    }

    /// How many values of `collection` (its objects, or with `metadata` its metadata) are stored
    /// at each version; values written without one are at version 0.
    /// - Throws: ``LarderError`` for an invalid collection name or a damaged value.
    /// - Complexity: O(n) for the collection's n values (their framing is read, not decoded).
    public func storedVersions(inCollection collection: String, metadata: Bool = false) throws -> [Int: Int] {
        try read { try $0.storedVersions(inCollection: collection, metadata: metadata) }
    }
}

extension ReadTransaction {
    /// How many values of `collection` (its objects, or with `metadata` its metadata) this
    /// transaction sees at each version; values written without one are at version 0. See
    /// ``Database/storedVersions(inCollection:metadata:)``.
    /// - Throws: ``LarderError`` for an invalid collection name or a damaged value (naming it).
    /// - Complexity: O(n) for the collection's n values (their framing is read, not decoded).
    public final func storedVersions(inCollection collection: String, metadata: Bool = false) throws -> [Int: Int] {
        var counts: [Int: Int] = [:]
        try walk(metadata ? lmdb.databases.metadata : lmdb.databases.objects, collection: collection, range: .all, operation: "storedVersions") { key, value in
            do {
                counts[Int(try ValueFraming.unframe(value).version), default: 0] += 1
            } catch let error as LarderError {
                throw error.adding(operation: "storedVersions", index: YapDB.Index(collection: collection, key: String(decoding: key, as: UTF8.self)))
            }
            return true
        }
        return counts
    }
}

extension ReadWriteTransaction {
    /// What one chunk of a migration did.
    struct MigrationChunk {
        var scanned = 0
        var migrated = 0
        /// The last key looked at; `nil` when there was none.
        var lastKey: String?
        /// Whether keys follow the last one.
        var hasMore = false
    }

    /// Rewrites the values of `migrations`'s collection older than its current version, among
    /// the `limit` keys after `after` (from the first when `nil`).
    func migrateChunk(of migrations: ValueMigrations, after: String?, limit: Int) throws -> MigrationChunk {
        let collection = migrations.collection, metadata = migrations.metadata
        var chunk = MigrationChunk()
        var rewritten: [(key: String, bytes: [UInt8])] = []
        let checksummed = database.shared.configuration.checksumsValues
        let database = metadata ? lmdb.databases.metadata : lmdb.databases.objects
        try walk(database, collection: collection, range: KeyRange(from: after), operation: "migrate") { keyBytes, stored in
            let key = String(decoding: keyBytes, as: UTF8.self)
            // The range starts at `after` itself; the key that follows may be one Swift's
            // `String ==` calls equal to it, which is another key.
            if let after, ExactString.bytesEqual(key, after) { return true }
            if chunk.scanned == limit {
                chunk.hasMore = true
                return false
            }
            chunk.scanned += 1
            chunk.lastKey = key
            let value: ValueFraming.Unframed
            do {
                value = try ValueFraming.unframe(stored)
            } catch let error as LarderError {
                throw error.adding(operation: "migrate", index: YapDB.Index(collection: collection, key: key))
            }
            if Int(value.version) > migrations.currentVersion {
                throw LarderError(.newerValueVersion, "the value was written at version \(value.version) of collection \"\(collection)\"; the registered version is \(migrations.currentVersion)", operation: "migrate", index: YapDB.Index(collection: collection, key: key), recoverySuggestion: LarderError.Advice.newer(value.version))
            }
            if Int(value.version) < migrations.currentVersion {
                do {
                    let current = try migrations.migrate(value.payload, format: value.format, from: value.version)
                    let bytes = current.bytes.withUnsafeBytes {
                        ValueFraming.framed($0, format: current.format, version: UInt32(migrations.currentVersion), checksummed: checksummed)
                    }
                    rewritten.append((key, bytes))
                } catch let error as LarderError {
                    throw error.adding(operation: "migrate", index: YapDB.Index(collection: collection, key: key))
                }
            }
            return true
        }
        for (key, bytes) in rewritten {
            let index = YapDB.Index(collection: collection, key: key)
            let image = try StorageKey.with(collection: collection, key: key, maxKeySize: maxKeySize, operation: "migrate") { try storedImage(at: $0) }
            try restore(index, object: metadata ? image.object : bytes, metadata: metadata ? bytes : image.metadata)
        }
        chunk.migrated = rewritten.count
        return chunk
    }
}
