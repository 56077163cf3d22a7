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
/// An object may have several entries (a note's tags, a message's participants): build the index
/// with `entries:` instead of `columns:`, returning one ``TupleKey`` per entry. A query then finds
/// the object by any of them, and lists it once however many of its entries match.
///
/// ```swift
/// let byTag = SecondaryIndex<Note, NoMetadata>(collections: ["notes"], versionTag: "1", entries: { _, note in
///     note.tags.map { TupleKey($0) }
/// })
/// ```
///
/// Storage: `x.<name>.entries` holds `columns ‖ collection ‖ key` (one ``TupleKey``) with an empty
/// value, one per entry. A plain database, no `DUPSORT`. There is no map from an object to its
/// entries: they are derived again from its previous value when it changes.
public struct SecondaryIndex<Object: Codable & Sendable, Metadata: Codable & Sendable>: Sendable {
    /// The columns of the object at `index`, or `nil` to leave it out of the index.
    public typealias Columns = @Sendable (_ index: YapDB.Index, _ object: Object, _ metadata: Metadata?) -> TupleKey?
    /// The entries of the object at `index`, one ``TupleKey`` of columns each (none leaves it out).
    public typealias Entries = @Sendable (_ index: YapDB.Index, _ object: Object, _ metadata: Metadata?) -> [TupleKey]

    /// The collections indexed, as given to the initializer (`collections:`), matched by their
    /// UTF-8 bytes; `nil` for every collection. A list, not a `Set<String>`: a set keeps one of
    /// two names Swift's `String ==` calls equal (`"caf\u{E9}"`, `"cafe\u{301}"`), which the
    /// store keeps apart as two collections.
    public let collectionNames: [String]?
    /// Change it whenever `columns` changes: a new tag rebuilds the index.
    public let versionTag: String
    let columns: Columns?
    /// The entries, for an index with several per object; `nil` when ``columns`` gives one.
    let entries: Entries?

    /// An index whose columns read the object and its metadata.
    public init(collections: [String]? = nil, versionTag: String, metadata: Metadata.Type, columns: @escaping Columns) {
        self.collectionNames = collections
        self.versionTag = versionTag
        self.columns = columns
        self.entries = nil
    }

    /// An index with any number of entries per object, read from the object and its metadata.
    public init(collections: [String]? = nil, versionTag: String, metadata: Metadata.Type, entries: @escaping Entries) {
        self.collectionNames = collections
        self.versionTag = versionTag
        self.columns = nil
        self.entries = entries
    }

    /// Whether an object may have several entries.
    var hasSeveralEntries: Bool { entries != nil }
}

extension SecondaryIndex where Metadata == NoMetadata {
    /// An index whose columns read the object only; changes of metadata alone do not touch it.
    public init(collections: [String]? = nil, versionTag: String, columns: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> TupleKey?) {
        self.init(collections: collections, versionTag: versionTag, metadata: NoMetadata.self) { index, object, _ in columns(index, object) }
    }

    /// An index with any number of entries per object, read from the object only.
    public init(collections: [String]? = nil, versionTag: String, entries: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> [TupleKey]) {
        self.init(collections: collections, versionTag: versionTag, metadata: NoMetadata.self, entries: { index, object, _ in entries(index, object) })
    }
}

extension SecondaryIndex: ExtensionDefinition {
    /// What registering it returns: the handle the index is queried with.
    public typealias Handle = SecondaryIndexHandle<Object, Metadata>

    /// How a store keeps this index (``Database/register(_:named:progress:)`` calls it).
    public func registration(named name: String, in database: Database) -> ExtensionRegistration<Handle> {
        ExtensionRegistration(
            kind: SecondaryIndexRuntime<Object, Metadata>.kindName, collections: collectionNames.map(Set.init(names:)),
            parts: SecondaryIndexRuntime<Object, Metadata>.partNames, handle: Handle(name: name)
        ) { parts in
            SecondaryIndexRuntime(name: name, definition: self, parts: parts)
        }
    }
}
