extension ReadTransaction {
    /// Calls `body` with `value`'s payload and format at the current version of its collection's
    /// values (see ``ValueMigrations``): as stored when it is there already or the collection
    /// declares no versions, else migrated in memory.
    /// - Throws: ``LarderError/Code/newerValueVersion`` for a value newer than the declared
    ///   version; ``LarderError/Code/migrationFailed``; what `body` throws.
    @inline(__always)
    final func withCurrentVersion<R>(
        of value: ValueFraming.Unframed, collection: String, metadata: Bool, _ body: (UnsafeRawBufferPointer, ArchiveFormat) throws -> R
    ) throws -> R {
        if value.version == 0 && database.migrations.isEmpty { return try body(value.payload, value.format) }
        return try database.migrations.withCurrentVersion(of: value, collection: collection, metadata: metadata, body)
    }
}

extension MigrationRegistry {
    /// ``ReadTransaction/withCurrentVersion(of:collection:metadata:_:)`` once the registry is
    /// known not to be empty or the value to have a version.
    func withCurrentVersion<R>(
        of value: ValueFraming.Unframed, collection: String, metadata: Bool, _ body: (UnsafeRawBufferPointer, ArchiveFormat) throws -> R
    ) throws -> R {
        guard let migrations = migrations(for: collection, metadata: metadata), Int(value.version) != migrations.currentVersion else {
            return try body(value.payload, value.format)
        }
        guard Int(value.version) < migrations.currentVersion else {
            throw LarderError(.newerValueVersion, "the value was written at version \(value.version) of collection \"\(collection)\"\(metadata ? " (metadata)" : ""); this program knows versions up to \(migrations.currentVersion): upgrade it to read this value", recoverySuggestion: LarderError.Advice.newer(value.version))
        }
        let migrated = try migrations.migrate(value.payload, format: value.format, from: value.version)
        return try migrated.bytes.withUnsafeBytes { try body($0, migrated.format) }
    }
}

extension MigrationRegistry {
    /// Whether `a` and `b`, two stored values (framing included) of `collection`'s objects (or
    /// metadata), or their absence, are the same value: equal bytes, or equal once both are at
    /// the collection's current version (one may have been rewritten by a migration since the
    /// other was recorded).
    func same(_ a: [UInt8]?, _ b: [UInt8]?, collection: String, metadata: Bool) -> Bool {
        if a == b { return true }
        guard let a, let b, migrations(for: collection, metadata: metadata) != nil else { return false }
        func current(_ bytes: [UInt8]) -> (ArchiveFormat, [UInt8])? {
            try? bytes.withUnsafeBytes { stored in
                try withCurrentVersion(of: try ValueFraming.unframe(stored), collection: collection, metadata: metadata) { ($1, [UInt8]($0)) }
            }
        }
        guard let left = current(a), let right = current(b) else { return false }
        return left == right
    }
}
