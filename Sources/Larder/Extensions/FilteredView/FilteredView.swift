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

extension Database {
    /// Registers `filteredView` under `name` and returns the handle to read it with (the same
    /// kind of handle as a view's). Its parent must be registered already.
    /// - Throws: ``LarderError/Code/extensionNotRegistered`` when the parent is not registered;
    ///   ``LarderError/Code/extensionConflict`` when `name` is registered with another
    ///   definition or the parent has other types; ``LarderError/Code/invalidExtensionName``.
    @discardableResult
    public func register<Object, Metadata>(
        _ filteredView: FilteredView<Object, Metadata>, named name: String, progress: ((RegistrationProgress) -> Void)? = nil
    ) throws -> ViewHandle<Object, Metadata> {
        try registerExtension(
            named: name, kind: ExtensionKind.filteredView, versionTag: filteredView.versionTag,
            collections: shared.extensions.runtime(named: filteredView.parent)?.collections,
            dependencies: [filteredView.parent], parts: ListRuntime<Object, Metadata>.partNames, progress: progress
        ) { parts in
            guard let parent = shared.extensions.runtime(named: filteredView.parent) else {
                throw LarderError(.extensionNotRegistered, "the parent view \(filteredView.parent) is not registered", operation: "register", extensionName: name)
            }
            return try FilteredViewRuntime.make(name: name, definition: filteredView, parent: parent, parts: parts)
        }
        return ViewHandle(name: name)
    }
}
