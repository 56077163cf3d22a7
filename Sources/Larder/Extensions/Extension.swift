/// A change that a write transaction hands to the extensions that read its collection, as it
/// happens, inside the transaction.
enum ExtensionChange {
    /// The object or metadata at an index was set, replaced or touched.
    case row(ExtensionRow)
    /// The object (and so its metadata) at the index was removed.
    case removed(YapDB.Index)
    /// Every object of the collection was removed.
    case cleared(String)
    /// Every object of every collection was removed.
    case removedEverything
}

/// What changed at one index, with the values written when the write knew them (so that an
/// extension need not decode what was just encoded).
struct ExtensionRow {
    let index: YapDB.Index
    let objectChanged: Bool
    let metadataChanged: Bool
    /// The object written, when the change wrote one.
    let writtenObject: Any?
    /// The metadata written (`.some(nil)`: removed), when the change wrote or removed it.
    let writtenMetadata: Any??
}

/// The one protocol of the extension machinery: something kept up to date inside write
/// transactions from the changes of the collections it reads, keeping its state in named LMDB
/// databases of its own (`x.<name>.<part>`).
///
/// The store knows extensions only through this protocol. It is internal on purpose: the kinds
/// Larder offers (``AutoView``, ``FilteredView``, ``SecondaryIndex``) are registered with
/// ``Database/register(_:named:progress:)-(AutoView<Object,Metadata>,_,_)`` and friends.
protocol ExtensionRuntime: AnyObject, Sendable {
    /// The name it was registered under.
    var name: String { get }
    /// What kind of extension it is ("view", "filteredView", "secondaryIndex").
    var kind: String { get }
    /// Changes when the definition changes; a new tag rebuilds the extension.
    var versionTag: String { get }
    /// The collections whose changes it receives; `nil` for all.
    var collections: Set<String>? { get }
    /// Extensions that must be registered first (and are updated first in each write).
    var dependencies: [String] { get }
    /// Whether a change of metadata alone concerns it.
    var readsMetadata: Bool { get }
    /// Its databases, by part name.
    var parts: ExtensionParts { get }

    /// Brings its state up to date with one change. Called for changes in its collections only.
    func apply(_ change: ExtensionChange, in txn: ReadWriteTransaction) throws
    /// Recomputes its state from scratch (its parts are empty when this is called). Reports
    /// progress as (done, total).
    func rebuild(in txn: ReadWriteTransaction, progress: (Int, Int) -> Void) throws
    /// Called once before the commit, before any extension's ``finish(in:)`` and before the
    /// collection counts are written: the last moment an extension may still change objects.
    func willFinish(in txn: ReadWriteTransaction) throws
    /// Called once before the commit: returns what it wants in the commit's changeset.
    func finish(in txn: ReadWriteTransaction) throws -> [UInt8]?
    /// Its state in a form that does not depend on the order in which it was built, by part, for
    /// ``Database/verifyExtensions()``.
    func logicalContents(in txn: ReadTransaction) throws -> [String: [[UInt8]]]
    /// The same extension over other databases (scratch ones, for verification).
    func rebound(to parts: ExtensionParts) -> any ExtensionRuntime
}

extension ExtensionRuntime {
    func willFinish(in txn: ReadWriteTransaction) throws {}

    /// Whether `change` concerns this extension.
    func receives(_ index: YapDB.Index) -> Bool {
        collections?.contains(index.collection) ?? true
    }
}

/// The named databases of one extension, and byte-level access to them in a transaction.
struct ExtensionParts: Sendable {
    let names: [String]
    let handles: [String: DatabaseHandle]

    subscript(part: String) -> DatabaseHandle {
        guard let handle = handles[part] else { preconditionFailure("Larder: extension part \(part) was not opened") }
        return handle
    }

    /// The LMDB name of `part` of extension `name`.
    static func databaseName(extension name: String, part: String, scratch: Bool = false) -> String {
        "x.\(name).\(part)" + (scratch ? "~verify" : "")
    }

    /// Opens (creating) the parts of extension `name` in `lmdb`, a write transaction.
    static func open(extension name: String, parts: [String], in lmdb: LMDBTransaction, scratch: Bool = false) throws -> ExtensionParts {
        var handles: [String: DatabaseHandle] = [:]
        for part in parts {
            handles[part] = try lmdb.openDatabase(databaseName(extension: name, part: part, scratch: scratch), create: true)
        }
        return ExtensionParts(names: parts, handles: handles)
    }

    /// Every entry of `part`, in key order, as `key ‖ value` pairs joined for comparison.
    func entries(of part: String, in lmdb: LMDBTransaction) throws -> [[UInt8]] {
        var all: [[UInt8]] = []
        try lmdb.forEachEntry(in: self[part]) { key, value in
            var joined = [UInt8](key)
            joined.append(contentsOf: [0xFF, 0x00, 0xFF])  // a visible seam for difference reports
            joined.append(contentsOf: value)
            all.append(joined)
            return true
        }
        return all
    }

    /// Empties every part.
    func empty(in lmdb: LMDBTransaction) throws {
        for part in names { try lmdb.empty(self[part]) }
    }
}

/// How far the (re)building of an extension has come, reported during registration.
public struct RegistrationProgress: Sendable, Equatable {
    /// The extension being built.
    public let extensionName: String
    /// Items processed so far.
    public let processed: Int
    /// Items to process in all.
    public let total: Int
}

/// A difference between an extension's stored state and its state recomputed from the objects,
/// found by ``Database/verifyExtensions()``.
public struct ExtensionDifference: Sendable, Equatable, CustomStringConvertible {
    /// The extension.
    public let extensionName: String
    /// The part of its state that differs.
    public let part: String
    /// What differs.
    public let detail: String

    /// `extension.part: detail`, one line.
    public var description: String { "\(extensionName).\(part): \(detail)" }
}

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
        for (dependent, var record) in try all(in: lmdb) where !record.stale && (record.dependencies ?? []).contains(name) {
            record.stale = true
            try record.write(dependent, in: lmdb)
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

    /// Every record in the store, by extension name.
    static func all(in lmdb: LMDBTransaction) throws -> [String: ExtensionRecord] {
        var records: [String: ExtensionRecord] = [:]
        for name in try names(in: lmdb) { records[name] = try read(name, in: lmdb) }
        return records
    }
}
