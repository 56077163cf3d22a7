/// A filtered view: the items of a parent view (or of another filtered view) that pass a filter,
/// in the parent's groups and order.
///
/// ```swift
/// let inStock = FilteredView(parent: products, versionTag: "1") { group, _, product, _ in product.stock > 0 }
/// let available = try db.register(inStock, named: "productsInStock")
/// ```
///
/// It depends on its parent: register the parent first; it is updated after the parent in each
/// write. A new version tag rebuilds only the filter, from the parent's items, without reading
/// the collections afresh. Reads and change reports are those of views (``ViewReader``,
/// ``ViewHandle/changes(in:)-(Changeset)``).
public struct FilteredView<Object: Codable & Sendable, Metadata: Codable & Sendable>: Sendable {
    /// Whether the item at `index` (in `group` of the parent) is in the filtered view.
    public typealias Filter = @Sendable (_ group: String, _ index: YapDB.Index, _ object: Object, _ metadata: Metadata?) -> Bool

    /// The name of the view or filtered view it filters.
    public let parent: String
    /// Change it whenever `filter` changes: a new tag rebuilds the filtered view.
    public let versionTag: String
    let filter: Filter

    /// A filter over the view `parent`.
    public init(parent: ViewHandle<Object, Metadata>, versionTag: String, filter: @escaping Filter) {
        self.parent = parent.name
        self.versionTag = versionTag
        self.filter = filter
    }
}

extension FilteredView: ExtensionDefinition {
    /// What registering it returns: the view handle a filtered view is read with, as a view is.
    public typealias Handle = ViewHandle<Object, Metadata>

    /// How a store keeps this filtered view (``Database/register(_:named:progress:)`` calls it).
    /// Its parent must be registered already.
    /// - Throws: ``LarderError/Code/extensionNotRegistered`` when the parent is not registered.
    public func registration(named name: String, in database: Database) throws -> ExtensionRegistration<Handle> {
        let parentName = parent
        guard let parent = database.shared.extensions.runtime(named: parentName) else {
            throw LarderError(.extensionNotRegistered, "extension \(name) depends on \(parentName), which is not registered: register \(parentName) first", operation: "register", extensionName: name)
        }
        return ExtensionRegistration(
            kind: FilteredViewRuntime<Object, Metadata>.kindName, collections: parent.collections, dependencies: [parentName],
            parts: ListRuntime<Object, Metadata>.partNames, handle: Handle(name: name)
        ) { parts in
            try FilteredViewRuntime.make(name: name, definition: self, parent: parent, parts: parts)
        }
    }
}
