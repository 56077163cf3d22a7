/// A spatial index: a box in the plane for each object (a point is a box of zero size), kept in
/// an R-tree, so that the objects whose boxes meet a rectangle, lie inside one, or are nearest a
/// point are found without reading the others.
///
/// ```swift
/// struct Shop: Codable, Sendable { var name: String; var x: Double; var y: Double }
/// let byPlace = SpatialIndex<Shop, NoMetadata>(collections: ["shops"], versionTag: "1") { _, shop in
///     SpatialBox(x: shop.x, y: shop.y)
/// }
/// let places = try db.register(byPlace, named: "byPlace")
/// let (inTown, nearest) = try db.read { txn in
///     (try txn[places].indexes(intersecting: SpatialBox(minX: 0, minY: 0, maxX: 10, maxY: 10)),
///      try txn[places].nearest(toX: 2, y: 3, count: 5))
/// }
/// ```
///
/// The box closure returns the object's box, or `nil` to leave it out. It must be a pure function
/// of its arguments, and give boxes that are ``SpatialBox/isValid`` (a write whose object gives
/// another one throws ``LarderError/Code/encodingFailed``). Objects of a collection that do not
/// decode as `Object` are not indexed.
///
/// Storage: `x.<name>.nodes` holds the R-tree (`SpatialTree`), `x.<name>.boxes` each indexed
/// object's box by its collection and key, so that a write finds the entry to move.
public struct SpatialIndex<Object: Codable & Sendable, Metadata: Codable & Sendable>: Sendable {
    /// The box of the object at `index`, or `nil` to leave it out of the index.
    public typealias Box = @Sendable (_ index: YapDB.Index, _ object: Object, _ metadata: Metadata?) -> SpatialBox?

    /// The collections indexed, matched by their UTF-8 bytes; `nil` for every collection. A list,
    /// not a `Set<String>`: a set keeps one of two names Swift's `String ==` calls equal
    /// (`"caf\u{E9}"`, `"cafe\u{301}"`), which the store keeps apart.
    public let collections: [String]?
    /// ``collections``, under the name the other kinds give it.
    public var collectionNames: [String]? { collections }
    /// Change it whenever `box` changes: a new tag rebuilds the index.
    public let versionTag: String
    let box: Box

    /// An index whose boxes read the object and its metadata.
    public init(collections: [String]? = nil, versionTag: String, metadata: Metadata.Type, box: @escaping Box) {
        self.collections = collections
        self.versionTag = versionTag
        self.box = box
    }
}

extension SpatialIndex where Metadata == NoMetadata {
    /// An index whose boxes read the object only; changes of metadata alone do not touch it.
    public init(collections: [String]? = nil, versionTag: String, box: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> SpatialBox?) {
        self.init(collections: collections, versionTag: versionTag, metadata: NoMetadata.self) { index, object, _ in box(index, object) }
    }
}

extension SpatialIndex: ExtensionDefinition {
    /// What registering it returns: the handle the index is queried with.
    public typealias Handle = SpatialIndexHandle<Object, Metadata>

    /// How a store keeps this index (``Database/register(_:named:progress:)`` calls it).
    public func registration(named name: String, in database: Database) -> ExtensionRegistration<Handle> {
        ExtensionRegistration(
            kind: SpatialIndexRuntime<Object, Metadata>.kindName, collections: collections.map(Set.init(names:)),
            parts: SpatialIndexRuntime<Object, Metadata>.partNames, handle: Handle(name: name)
        ) { parts in
            SpatialIndexRuntime(name: name, definition: self, parts: parts)
        }
    }
}
