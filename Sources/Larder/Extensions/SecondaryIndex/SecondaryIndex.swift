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

    /// The collections indexed, matched by their UTF-8 bytes (a collection whose name Swift's
    /// `String ==` calls equal to one of them is another collection); `nil` for every collection.
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

extension SecondaryIndex: ExtensionDefinition {
    /// What registering it returns: the handle the index is queried with.
    public typealias Handle = SecondaryIndexHandle<Object, Metadata>

    /// How a store keeps this index (``Database/register(_:named:progress:)`` calls it).
    public func registration(named name: String, in database: Database) -> ExtensionRegistration<Handle> {
        ExtensionRegistration(
            kind: SecondaryIndexRuntime<Object, Metadata>.kindName, collections: collections.map(Set.init(names:)),
            parts: SecondaryIndexRuntime<Object, Metadata>.partNames, handle: Handle(name: name)
        ) { parts in
            SecondaryIndexRuntime(name: name, definition: self, parts: parts)
        }
    }
}
