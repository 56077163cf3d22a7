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
    private func filtered(_ index: YapDB.Index, parentKey: [UInt8]?, in txn: ReadWriteTransaction, writtenObject: CachedValueBox?, writtenMetadata: CachedValueBox??) throws -> [UInt8]? {
        guard let parentKey,
              let object = try txn.extensionObject(Object.self, at: index, written: writtenObject) else { return nil }
        let metadata = Metadata.self == NoMetadata.self ? nil : try txn.extensionMetadata(Metadata.self, at: index, written: writtenMetadata)
        let group = try ListRuntime<Object, Metadata>.group(ofItemKey: parentKey)
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
                               writtenObject: row.writtenObjectBox, writtenMetadata: row.metadataChanged ? row.writtenMetadata : nil)
        try list.place(row.index, at: key, in: txn, created: row.createdObject)
    }

    func rebuild(in txn: ReadWriteTransaction, progress: (Int, Int) -> Void) throws {
        let parentTree = try parent.settledTree(in: txn)
        let total = try parentTree.count()
        var done = 0
        progress(0, total)
        try list.rebuilding(in: txn) {
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
}
