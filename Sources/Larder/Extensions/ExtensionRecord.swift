/// What the store remembers of a registered extension, in the `larder` database under
/// `extension:<name>` (MessagePack), so that registration with an unchanged tag does nothing and
/// writes by a process that does not have the extension registered mark it stale.
struct ExtensionRecord: Codable, Equatable {
    var kind: String
    var versionTag: String
    /// `nil`: every collection.
    var collections: [String]?
    /// Set when a process wrote to its collections without the extension registered, or an
    /// extension it depends on was rebuilt or removed: the next registration rebuilds it
    /// whatever the tag.
    var stale: Bool
    /// The extensions it is built from.
    var dependencies: [String]? = nil

    /// Marks stale every recorded extension that depends on `name`.
    static func markDependentsStale(of name: String, in lmdb: LMDBTransaction) throws {
        for (dependent, var record) in try all(in: lmdb) where !record.stale && (record.dependencies ?? []).contains(where: { ExactString.bytesEqual($0, name) }) {
            record.stale = true
            try record.write(dependent.string, in: lmdb)
        }
    }

    static let keyPrefix = "extension:"

    static func key(_ name: String) -> String { keyPrefix + name }

    static func read(_ name: String, in lmdb: LMDBTransaction) throws -> ExtensionRecord? {
        guard let stored = try lmdb.get(lmdb.databases.larder, key: key(name)) else { return nil }
        do {
            return try MessagePackDecoder().decode(ExtensionRecord.self, from: stored)
        } catch {
            throw LarderError(.corruptValue, "the record of extension \(name) does not decode", operation: "register", underlying: String(describing: error))
        }
    }

    func write(_ name: String, in lmdb: LMDBTransaction) throws {
        let bytes = try MessagePackEncoder().encode(self)
        try bytes.withUnsafeBytes { try lmdb.put(lmdb.databases.larder, key: Self.key(name), value: $0) }
    }

    static func remove(_ name: String, in lmdb: LMDBTransaction) throws {
        var bytes = Array(key(name).utf8)
        _ = try bytes.withUnsafeMutableBytes { try lmdb.delete(lmdb.databases.larder, key: UnsafeRawBufferPointer($0)) }
    }

    /// The names of the extensions recorded in the store.
    static func names(in lmdb: LMDBTransaction) throws -> [String] {
        let prefix = Array(keyPrefix.utf8)
        var names: [String] = []
        try lmdb.forEachEntry(in: lmdb.databases.larder, withPrefix: prefix) { key, _ in
            names.append(String(decoding: UnsafeRawBufferPointer(rebasing: key[prefix.count...]), as: UTF8.self))
            return true
        }
        return names
    }

    /// Every record in the store, by extension name (its bytes).
    static func all(in lmdb: LMDBTransaction) throws -> [ExactString: ExtensionRecord] {
        var records: [ExactString: ExtensionRecord] = [:]
        for name in try names(in: lmdb) { records[ExactString(name)] = try read(name, in: lmdb) }
        return records
    }
}
