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

/// A filtered view as the store runs it.
final class FilteredViewRuntime<Object: Codable & Sendable, Metadata: Codable & Sendable>: ListKeeping {
    let definition: FilteredView<Object, Metadata>
    let list: ListRuntime<Object, Metadata>
    let parent: ListRuntime<Object, Metadata>
    let parentRuntime: any ExtensionRuntime

    private init(name: String, definition: FilteredView<Object, Metadata>, parent: ListRuntime<Object, Metadata>, parentRuntime: any ExtensionRuntime, parts: ExtensionParts) {
        self.definition = definition
        self.parent = parent
        self.parentRuntime = parentRuntime
        self.list = ListRuntime(name: name, parts: parts)
    }

    /// The filtered view over `parent`, which must be a view of the same types.
    static func make(name: String, definition: FilteredView<Object, Metadata>, parent: any ExtensionRuntime, parts: ExtensionParts) throws -> FilteredViewRuntime {
        guard let list = (parent as? any ListKeeping<Object, Metadata>)?.list else {
            throw LarderError(.extensionConflict, "the parent \(parent.name) of filtered view \(name) is not a view of the same object and metadata types", operation: "register", extensionName: name)
        }
        return FilteredViewRuntime(name: name, definition: definition, parent: list, parentRuntime: parent, parts: parts)
    }

    var kind: String { ExtensionKind.filteredView }
    var versionTag: String { definition.versionTag }
    var collections: Set<String>? { parentRuntime.collections }
    var dependencies: [String] { [definition.parent] }
    var readsMetadata: Bool { parentRuntime.readsMetadata || Metadata.self != NoMetadata.self }

    func rebound(to parts: ExtensionParts) -> any ExtensionRuntime {
        FilteredViewRuntime(name: name, definition: definition, parent: parent, parentRuntime: parentRuntime, parts: parts)
    }

    /// The item key `index` has in the parent, if it passes the filter.
    private func filtered(_ index: YapDB.Index, parentKey: [UInt8]?, in txn: ReadWriteTransaction, writtenObject: Any?, writtenMetadata: Any??) throws -> [UInt8]? {
        guard let parentKey,
              let object = try txn.extensionObject(Object.self, at: index, written: writtenObject) else { return nil }
        let metadata = Metadata.self == NoMetadata.self ? nil : try txn.extensionMetadata(Metadata.self, at: index, written: writtenMetadata)
        let group = try ListRuntime<Object, Metadata>.split(itemKey: parentKey).group
        return definition.filter(group, index, object, metadata) ? parentKey : nil
    }

    private func parentKey(of index: YapDB.Index, in txn: ReadWriteTransaction) throws -> [UInt8]? {
        try StorageKey.with(collection: index.collection, key: index.key, maxKeySize: txn.maxKeySize, operation: "filteredView") {
            try txn.lmdb.get(parent.parts["map"], key: $0).map { [UInt8]($0) }
        }
    }

    func apply(_ change: WriteChange, in txn: ReadWriteTransaction) throws {
        guard case .row(let row) = change else { return try list.applyRemoval(change, in: txn) }
        let key = try filtered(row.index, parentKey: try parentKey(of: row.index, in: txn), in: txn,
                               writtenObject: row.writtenObject, writtenMetadata: row.metadataChanged ? row.writtenMetadata : nil)
        try list.place(row.index, at: key, in: txn)
    }

    func rebuild(in txn: ReadWriteTransaction, progress: (Int, Int) -> Void) throws {
        let parentTree = parent.tree(txn.lmdb)
        let total = try parentTree.count()
        var done = 0
        progress(0, total)
        while done < total {
            for key in try parentTree.keys(from: done, limit: 512, reversed: false) {
                let index = try ListRuntime<Object, Metadata>.split(itemKey: key).index
                if let kept = try filtered(index, parentKey: key, in: txn, writtenObject: nil, writtenMetadata: nil) {
                    try list.place(index, at: kept, in: txn)
                }
                done += 1
            }
            progress(done, total)
        }
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
