/// A secondary index: typed columns computed from each object (and, if asked, its metadata),
/// kept sorted so that equality, range, prefix and compound queries are LMDB range scans.
///
/// ```swift
/// let byPrice = SecondaryIndex<Product, NoMetadata>(collections: ["products"], versionTag: "1") { _, product in
///     TupleKey(product.category, product.price)      // columns: category, then price
/// }
/// let handle = try db.register(byPrice, named: "byPrice")
/// let cheapTools = try db.read { txn in
///     try txn[handle].objects(matching: .range(where: TupleKey("tools"), from: 0.0, to: 20.0))
/// }
/// ```
///
/// The columns closure returns a ``TupleKey`` (its components are the columns, compared by value,
/// see ``TupleKey``), or `nil` to leave an object out. It must be a pure function of its
/// arguments: the index is kept from its results. Objects of a collection that do not decode as
/// `Object` are not indexed.
///
/// Storage: `x.<name>.entries` holds `columns ‖ collection ‖ key` (one ``TupleKey``) with an empty
/// value; `x.<name>.map` holds each indexed object's entry key under its storage key, to remove
/// it when the object changes. Plain databases, no `DUPSORT`.
public struct SecondaryIndex<Object: Codable & Sendable, Metadata: Codable & Sendable>: Sendable {
    /// The columns of the object at `index`, or `nil` to leave it out of the index.
    public typealias Columns = @Sendable (_ index: YapDB.Index, _ object: Object, _ metadata: Metadata?) -> TupleKey?

    /// The collections indexed; `nil` for every collection.
    public let collections: Set<String>?
    /// Change it whenever `columns` changes: a new tag rebuilds the index.
    public let versionTag: String
    let columns: Columns

    /// An index whose columns read the object and its metadata.
    public init(collections: Set<String>? = nil, versionTag: String, metadata: Metadata.Type, columns: @escaping Columns) {
        self.collections = collections
        self.versionTag = versionTag
        self.columns = columns
    }
}

extension SecondaryIndex where Metadata == NoMetadata {
    /// An index whose columns read the object only; changes of metadata alone do not touch it.
    public init(collections: Set<String>? = nil, versionTag: String, columns: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> TupleKey?) {
        self.init(collections: collections, versionTag: versionTag, metadata: NoMetadata.self) { index, object, _ in columns(index, object) }
    }
}

/// The name of a registered ``SecondaryIndex``: what `txn[handle]` reads through.
public struct SecondaryIndexHandle<Object: Codable & Sendable, Metadata: Codable & Sendable>: Sendable, Hashable {
    /// The name the index was registered under.
    public let name: String
}

/// Which entries of a secondary index a query selects, by the values of its columns.
public struct IndexQuery: Sendable, Hashable {
    /// Entries with keys in [lower, upper); `upper` `nil`: to the end.
    let lower: [UInt8]
    let upper: [UInt8]?

    /// Every entry.
    public static let all = IndexQuery(lower: [], upper: nil)

    /// Entries whose leading columns equal `columns` (all columns, or the first few).
    /// - Complexity: O(m) for the m bytes of `columns`; building a query reads nothing.
    public static func equal(_ columns: TupleKey) -> IndexQuery {
        let prefix = columns.bytes
        return IndexQuery(lower: prefix, upper: KeyRange.successor(of: prefix))
    }

    /// Entries whose leading columns equal `leading` and whose next column lies between `from`
    /// and `to` (either may be `nil`: unbounded); `from` is included unless `fromInclusive` is
    /// `false`, `to` is excluded unless `toInclusive` is `true`.
    ///
    /// ```swift
    /// .range(where: TupleKey("tools"), from: 10.0, to: 20.0)   // category == "tools", 10 <= price < 20
    /// ```
    ///
    /// Bounds compare by kind first (see ``TupleKey``): against a `Double` column, give `Double`
    /// bounds (`10.0`, not `10`, which is an integer and sorts before every double).
    /// - Complexity: O(m) for the m bytes of the columns and bounds; building a query reads
    ///   nothing.
    public static func range(
        where leading: TupleKey = TupleKey([]), from: (any TupleKeyComponent)? = nil, fromInclusive: Bool = true,
        to: (any TupleKeyComponent)? = nil, toInclusive: Bool = false
    ) -> IndexQuery {
        let prefix = leading.bytes
        func bound(_ value: any TupleKeyComponent) -> [UInt8] { prefix + TupleKey([value.tupleComponent]).bytes }
        let lower = from.map { fromInclusive ? bound($0) : KeyRange.successor(of: bound($0)) ?? [0xFF] } ?? prefix
        let upper = to.map { toInclusive ? KeyRange.successor(of: bound($0)) : bound($0) } ?? KeyRange.successor(of: prefix)
        return IndexQuery(lower: lower, upper: upper)
    }

    /// Entries whose leading columns equal `leading` and whose next column is a string that
    /// starts with `stringPrefix` (UTF-8 bytes).
    /// - Complexity: O(m) for the m bytes of the columns and prefix; building a query reads
    ///   nothing.
    public static func prefix(where leading: TupleKey = TupleKey([]), stringPrefix: String) -> IndexQuery {
        var bytes = leading.bytes
        let encoded = TupleKey([.string(stringPrefix)]).bytes
        bytes.append(contentsOf: encoded.dropLast())  // without the terminator: any continuation matches
        return IndexQuery(lower: bytes, upper: KeyRange.successor(of: bytes))
    }
}

/// Ascending or descending order of query results (named so that it does not shadow
/// Foundation's `SortOrder`).
public enum IndexOrder: Sendable, Hashable {
    /// Smallest columns first (by ``TupleKey`` order), then by collection and key.
    case ascending
    /// Largest columns first: the ascending order reversed.
    case descending
}

/// The former name of ``IndexOrder``, which shadowed Foundation's `SortOrder`.
@available(*, deprecated, renamed: "IndexOrder", message: "SortOrder was renamed IndexOrder so that it does not shadow Foundation.SortOrder")
public typealias SortOrder = IndexOrder

extension ReadTransaction {
    /// Reads the secondary index `handle` in this transaction.
    /// - Throws: ``LarderError/Code/extensionNotRegistered`` when it is not registered in this process.
    public subscript<Object, Metadata>(handle: SecondaryIndexHandle<Object, Metadata>) -> SecondaryIndexReader<Object, Metadata> {
        get throws {
            SecondaryIndexReader(transaction: self, runtime: try extensionRuntime(named: handle.name, as: SecondaryIndexRuntime<Object, Metadata>.self))
        }
    }
}

/// Queries of a secondary index inside one transaction (see ``SecondaryIndex``).
///
/// Each query is a range scan of the index's LMDB database: O(log n) to find the first entry,
/// then O(1) per entry visited. Each method states its cost under `- Complexity:`.
public struct SecondaryIndexReader<Object: Codable & Sendable, Metadata: Codable & Sendable> {
    let transaction: ReadTransaction
    let runtime: SecondaryIndexRuntime<Object, Metadata>

    /// Calls `body` with each matching entry's index and columns, in order, until it sets `stop`.
    /// - Throws: what `body` throws; ``LarderError`` with ``LarderError/Code/corruptValue`` when a
    ///   stored entry is damaged, or with an LMDB failure.
    /// - Complexity: O(log n + k) for n entries in the index and k entries visited (until `stop`).
    public func enumerate(
        matching query: IndexQuery = .all, order: IndexOrder = .ascending,
        _ body: (_ index: YapDB.Index, _ columns: TupleKey, _ stop: inout Bool) throws -> Void
    ) throws {
        transaction.checkActive()
        try transaction.lmdb.forEachEntry(in: runtime.parts["entries"], from: query.lower, to: query.upper, reversed: order == .descending) { key, _ in
            let (index, columns) = try SecondaryIndexRuntime<Object, Metadata>.split(entry: key)
            var stop = false
            try body(index, columns, &stop)
            return !stop
        }
    }

    /// The indexes of the matching entries, in order, at most `limit`.
    /// - Throws: ``LarderError`` as ``enumerate(matching:order:_:)``.
    /// - Complexity: O(log n + k) for n entries in the index and k indexes returned.
    public func indexes(matching query: IndexQuery = .all, order: IndexOrder = .ascending, limit: Int? = nil) throws -> [YapDB.Index] {
        var found: [YapDB.Index] = []
        guard limit.map({ $0 > 0 }) ?? true else { return found }
        try enumerate(matching: query, order: order) { index, _, stop in
            found.append(index)
            if let limit, found.count >= limit { stop = true }
        }
        return found
    }

    /// The matching objects, decoded, in order, at most `limit`.
    /// - Throws: ``LarderError`` as ``enumerate(matching:order:_:)``, or with
    ///   ``LarderError/Code/decodingFailed`` when a stored object does not decode as `Object`.
    /// - Complexity: O(log n + k) for n entries in the index and k objects returned, plus one
    ///   read of each object (none on a cache hit).
    public func objects(matching query: IndexQuery = .all, order: IndexOrder = .ascending, limit: Int? = nil) throws -> [(index: YapDB.Index, object: Object)] {
        try indexes(matching: query, order: order, limit: limit).compactMap { index in
            try transaction.extensionObject(Object.self, at: index, written: nil).map { (index, $0) }
        }
    }

    /// How many entries match.
    /// - Throws: ``LarderError`` with an LMDB failure.
    /// - Complexity: O(log n + k) for n entries in the index and the k entries that match: it
    ///   visits each one (the index keeps no counts).
    public func count(matching query: IndexQuery = .all) throws -> Int {
        var count = 0
        try transaction.lmdb.forEachEntry(in: runtime.parts["entries"], from: query.lower, to: query.upper) { _, _ in
            count += 1
            return true
        }
        return count
    }
}

/// The secondary index as the store runs it.
final class SecondaryIndexRuntime<Object: Codable & Sendable, Metadata: Codable & Sendable>: ExtensionRuntime {
    static var kindName: String { ExtensionKind.secondaryIndex }
    static var partNames: [String] { ["entries", "map"] }

    let name: String
    let definition: SecondaryIndex<Object, Metadata>
    let parts: ExtensionParts

    init(name: String, definition: SecondaryIndex<Object, Metadata>, parts: ExtensionParts) {
        self.name = name
        self.definition = definition
        self.parts = parts
    }

    var kind: String { Self.kindName }
    var versionTag: String { definition.versionTag }
    var collections: Set<String>? { definition.collections }
    var dependencies: [String] { [] }
    var readsMetadata: Bool { Metadata.self != NoMetadata.self }

    func rebound(to parts: ExtensionParts) -> any ExtensionRuntime {
        SecondaryIndexRuntime(name: name, definition: definition, parts: parts)
    }

    /// The index and columns of an entry key.
    static func split(entry: UnsafeRawBufferPointer) throws -> (YapDB.Index, TupleKey) {
        var components = try TupleKey(decoding: entry).components
        guard components.count >= 2, case .string(let key) = components.removeLast(), case .string(let collection) = components.removeLast() else {
            throw LarderError(.corruptValue, "a secondary index entry does not end with a collection and a key", operation: "secondaryIndex")
        }
        return (YapDB.Index(collection: collection, key: key), TupleKey(components))
    }

    /// The entry key of `index` with `columns`.
    private func entryKey(_ columns: TupleKey, _ index: YapDB.Index, maxKeySize: Int) throws -> [UInt8] {
        var bytes = columns.bytes
        TupleKey([.string(index.collection), .string(index.key)]).encode(into: &bytes)
        guard bytes.count <= maxKeySize else {
            throw LarderError(.keyTooLong, "the index entry (columns, collection and key) takes \(bytes.count) bytes; the limit is \(maxKeySize)", operation: "secondaryIndex", index: index, extensionName: name)
        }
        return bytes
    }

    func apply(_ change: ExtensionChange, in txn: ReadWriteTransaction) throws {
        switch change {
        case .row(let row):
            try update(row.index, in: txn, writtenObject: row.writtenObject, writtenMetadata: row.metadataChanged ? row.writtenMetadata : nil)
        case .removed(let index):
            try remove(index, in: txn)
        case .cleared(let collection):
            try txn.lmdb.removeAll(in: parts["map"], withPrefix: StorageKey.prefix(of: collection)) { entry in
                _ = try txn.lmdb.delete(parts["entries"], key: entry)
            }
        case .removedEverything:
            try parts.empty(in: txn.lmdb)
        }
    }

    private func update(_ index: YapDB.Index, in txn: ReadWriteTransaction, writtenObject: Any?, writtenMetadata: Any??) throws {
        var newEntry: [UInt8]?
        if let object = try txn.extensionObject(Object.self, at: index, written: writtenObject) {
            let metadata = readsMetadata ? try txn.extensionMetadata(Metadata.self, at: index, written: writtenMetadata) : nil
            if let columns = definition.columns(index, object, metadata) {
                newEntry = try entryKey(columns, index, maxKeySize: txn.maxKeySize)
            }
        }
        try StorageKey.with(collection: index.collection, key: index.key, maxKeySize: txn.maxKeySize, operation: "secondaryIndex") { storageKey in
            let old = try txn.lmdb.get(parts["map"], key: storageKey).map { [UInt8]($0) }
            guard old != newEntry else { return }
            if let old { _ = try old.withUnsafeBytes { try txn.lmdb.delete(parts["entries"], key: $0) } }
            if let newEntry {
                try newEntry.withUnsafeBytes { entry in
                    try txn.lmdb.put(parts["entries"], key: entry, value: UnsafeRawBufferPointer(start: nil, count: 0))
                    try txn.lmdb.put(parts["map"], key: storageKey, value: entry)
                }
            } else {
                _ = try txn.lmdb.delete(parts["map"], key: storageKey)
            }
        }
    }

    private func remove(_ index: YapDB.Index, in txn: ReadWriteTransaction) throws {
        try StorageKey.with(collection: index.collection, key: index.key, maxKeySize: txn.maxKeySize, operation: "secondaryIndex") { storageKey in
            guard let old = try txn.lmdb.get(parts["map"], key: storageKey).map({ [UInt8]($0) }) else { return }
            _ = try old.withUnsafeBytes { try txn.lmdb.delete(parts["entries"], key: $0) }
            _ = try txn.lmdb.delete(parts["map"], key: storageKey)
        }
    }

    func rebuild(in txn: ReadWriteTransaction, progress: (Int, Int) -> Void) throws {
        let total = try txn.objectCount(in: collections)
        var done = 0
        progress(0, total)
        try txn.forEachObjectIndex(in: collections) { index in
            try update(index, in: txn, writtenObject: nil, writtenMetadata: nil)
            done += 1
            if done % 1024 == 0 { progress(done, total) }
        }
        progress(done, total)
    }

    func finish(in txn: ReadWriteTransaction) throws -> [UInt8]? { nil }

    func logicalContents(in txn: ReadTransaction) throws -> [String: [[UInt8]]] {
        ["entries": try parts.entries(of: "entries", in: txn.lmdb), "map": try parts.entries(of: "map", in: txn.lmdb)]
    }
}

extension Database {
    /// Registers `index` under `name` and returns the handle to query it with; see
    /// ``Database`` ("Registering, unregistering and checking extensions") for what registration
    /// does. Registering again with the same definition returns the same handle at no cost.
    /// - Throws: ``LarderError/Code/extensionConflict`` when `name` is registered with another
    ///   definition; ``LarderError/Code/invalidExtensionName``; errors from building the index
    ///   (the store is then unchanged).
    @discardableResult
    public func register<Object, Metadata>(
        _ index: SecondaryIndex<Object, Metadata>, named name: String, progress: ((RegistrationProgress) -> Void)? = nil
    ) throws -> SecondaryIndexHandle<Object, Metadata> {
        try registerExtension(
            named: name, kind: SecondaryIndexRuntime<Object, Metadata>.kindName, versionTag: index.versionTag,
            collections: index.collections, dependencies: [], parts: SecondaryIndexRuntime<Object, Metadata>.partNames, progress: progress
        ) { parts in
            SecondaryIndexRuntime(name: name, definition: index, parts: parts)
        }
        return SecondaryIndexHandle(name: name)
    }
}
