/// A view as the store runs it.
final class ViewRuntime<Object: Codable & Sendable, Metadata: Codable & Sendable>: ListKeeping {
    let definition: AutoView<Object, Metadata>
    let list: ListRuntime<Object, Metadata>

    init(name: String, definition: AutoView<Object, Metadata>, parts: ExtensionParts) {
        self.definition = definition
        self.list = ListRuntime(name: name, parts: parts)
    }

    var kind: String { ExtensionKind.view }
    var versionTag: String { definition.versionTag }
    var collections: Set<String>? { definition.collections }
    var dependencies: [String] { [] }
    var readsMetadata: Bool { Metadata.self != NoMetadata.self }

    func rebound(to parts: ExtensionParts) -> any ExtensionRuntime {
        ViewRuntime(name: name, definition: definition, parts: parts)
    }

    /// The item key of `index` as the view sees it now, `nil` when it is not in the view.
    private func itemKey(_ index: YapDB.Index, in txn: ReadWriteTransaction, writtenObject: CachedValueBox?, writtenMetadata: CachedValueBox??) throws -> [UInt8]? {
        guard let object = try txn.extensionObject(Object.self, at: index, written: writtenObject) else { return nil }
        let metadata = readsMetadata ? try txn.extensionMetadata(Metadata.self, at: index, written: writtenMetadata) : nil
        guard let group = definition.grouping(index, object, metadata) else { return nil }
        return ListRuntime<Object, Metadata>.itemKey(group: group, sort: definition.sorting(index, object, metadata), index: index)
    }

    func apply(_ change: WriteChange, in txn: ReadWriteTransaction) throws {
        guard case .row(let row) = change else { return try list.applyRemoval(change, in: txn) }
        let key = try itemKey(row.index, in: txn, writtenObject: row.writtenObjectBox, writtenMetadata: row.metadataChanged ? row.writtenMetadata : nil)
        try list.place(row.index, at: key, in: txn, created: row.createdObject)
    }

    func rebuild(in txn: ReadWriteTransaction, progress: (Int, Int) -> Void) throws {
        let total = try txn.objectCount(in: collections)
        var done = 0
        progress(0, total)
        try list.rebuilding(in: txn) {
            try txn.forEachObjectIndex(in: collections) { index in
                if let key = try itemKey(index, in: txn, writtenObject: nil, writtenMetadata: nil) {
                    try list.place(index, at: key, in: txn)
                }
                done += 1
                if done % 1024 == 0 { progress(done, total) }
            }
        }
        progress(done, total)
    }
}
