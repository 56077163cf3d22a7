/// A view: the objects of some collections, in groups, each group sorted, kept up to date in every
/// write transaction, with positions that list user interfaces can use directly (YapDatabase's
/// `YapDatabaseAutoView`; named so that it does not shadow `SwiftUI.View`).
///
/// ```swift
/// let byCategory = AutoView<Product, NoMetadata>(collections: ["products"], versionTag: "1",
///     grouping: { _, product in product.category },            // nil leaves an object out
///     sorting: { _, product in TupleKey(product.price, product.name) })
/// let products = try db.register(byCategory, named: "productsByCategory")
/// let page = try db.read { txn in try txn[products].objects(inGroup: "tools", positions: 0..<20) }
/// ```
///
/// Groups are strings, listed in UTF-8 byte order. Within a group, items are ordered by their sort
/// key (a ``TupleKey``, compared by value), then by collection and key. Both closures must be pure
/// functions of their arguments. Objects of the collections that do not decode as `Object` are
/// not in the view.
///
/// An object may be in several groups (a note under each of its tags): build the view with
/// `groups:` instead of `grouping:`, returning every group of the object (none leaves it out).
/// It is then an item of each, at the place its sort key gives it there; its row changes are
/// reported per group.
///
/// Reads (``ViewReader``) cost O(log n) for a position or an item, O(log n + k) for k items, and
/// O(1) for counts; ``ViewHandle/changes(in:)-(Changeset)`` gives each commit's row and section changes.
public struct AutoView<Object: Codable & Sendable, Metadata: Codable & Sendable>: Sendable {
    /// The group of the object at `index`, or `nil` to leave it out of the view.
    public typealias Grouping = @Sendable (_ index: YapDB.Index, _ object: Object, _ metadata: Metadata?) -> String?
    /// The sort key of the object at `index` within its group.
    public typealias Sorting = @Sendable (_ index: YapDB.Index, _ object: Object, _ metadata: Metadata?) -> TupleKey
    /// The groups of the object at `index` (none leaves it out of the view; a group named twice
    /// counts once).
    public typealias Groups = @Sendable (_ index: YapDB.Index, _ object: Object, _ metadata: Metadata?) -> [String]

    /// How a view groups its objects: into one group at most, or several.
    enum GroupingKind: Sendable {
        case one(Grouping)
        case several(Groups)
    }

    /// The collections the view reads, as given to the initializer (`collections:`), matched by their
    /// UTF-8 bytes; `nil` for every collection. A list, not a `Set<String>`: a set keeps one of
    /// two names Swift's `String ==` calls equal (`"caf\u{E9}"`, `"cafe\u{301}"`), which the
    /// store keeps apart as two collections.
    public let collectionNames: [String]?
    /// Change it whenever `grouping` or `sorting` changes: a new tag rebuilds the view.
    public let versionTag: String
    let grouping: GroupingKind
    let sorting: Sorting

    /// A view whose closures read the object and its metadata.
    public init(collections: [String]? = nil, versionTag: String, metadata: Metadata.Type, grouping: @escaping Grouping, sorting: @escaping Sorting) {
        self.collectionNames = collections
        self.versionTag = versionTag
        self.grouping = .one(grouping)
        self.sorting = sorting
    }

    /// A view that may put an object in several groups, whose closures read the object and its
    /// metadata.
    public init(collections: [String]? = nil, versionTag: String, metadata: Metadata.Type, groups: @escaping Groups, sorting: @escaping Sorting) {
        self.collectionNames = collections
        self.versionTag = versionTag
        self.grouping = .several(groups)
        self.sorting = sorting
    }
}

extension AutoView where Metadata == NoMetadata {
    /// A view whose closures read the object only; changes of metadata alone do not touch it.
    public init(
        collections: [String]? = nil, versionTag: String,
        grouping: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> String?,
        sorting: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> TupleKey
    ) {
        self.init(collections: collections, versionTag: versionTag, metadata: NoMetadata.self,
                  grouping: { index, object, _ in grouping(index, object) }, sorting: { index, object, _ in sorting(index, object) })
    }

    /// A view that may put an object in several groups, whose closures read the object only.
    public init(
        collections: [String]? = nil, versionTag: String,
        groups: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> [String],
        sorting: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> TupleKey
    ) {
        self.init(collections: collections, versionTag: versionTag, metadata: NoMetadata.self,
                  groups: { index, object, _ in groups(index, object) }, sorting: { index, object, _ in sorting(index, object) })
    }
}

/// The former name of ``AutoView``, which shadowed `SwiftUI.View` in files that import both.
@available(*, deprecated, renamed: "AutoView", message: "View was renamed AutoView so that it does not shadow SwiftUI.View")
public typealias View<Object: Codable & Sendable, Metadata: Codable & Sendable> = AutoView<Object, Metadata>

extension AutoView: ExtensionDefinition {
    /// What registering it returns: the handle the view is read with.
    public typealias Handle = ViewHandle<Object, Metadata>

    /// How a store keeps this view (``Database/register(_:named:progress:)`` calls it).
    public func registration(named name: String, in database: Database) -> ExtensionRegistration<Handle> {
        ExtensionRegistration(
            kind: ViewRuntime<Object, Metadata>.kindName, collections: collectionNames.map(Set.init(names:)),
            parts: ListRuntime<Object, Metadata>.partNames, handle: Handle(name: name)
        ) { parts in
            ViewRuntime(name: name, definition: self, parts: parts)
        }
    }
}
