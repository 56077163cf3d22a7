/// A view as the store runs it.
final class ViewRuntime<Object: Codable & Sendable, Metadata: Codable & Sendable>: ListKeeping {
    let definition: AutoView<Object, Metadata>
    let list: ListRuntime<Object, Metadata>

    init(name: String, definition: AutoView<Object, Metadata>, parts: ExtensionParts) {
        self.definition = definition
        self.list = ListRuntime(name: name, parts: parts, collections: definition.collections.map(Set.init(names:))) { index, object, metadata in
            guard let group = definition.grouping(index, object, metadata) else { return nil }
            return ListRuntime<Object, Metadata>.itemKey(group: group, sort: definition.sorting(index, object, metadata), index: index)
        }
    }

    /// The kind's name in the store's records.
    static var kindName: String { "view" }
    var kind: String { Self.kindName }
    var versionTag: String { definition.versionTag }
    var collections: Set<ExactString>? { list.collections }
    var dependencies: [String] { [] }
    var readsMetadata: Bool { list.readsMetadata }

    func rebound(to parts: ExtensionParts) -> any ExtensionRuntime {
        ViewRuntime(name: name, definition: definition, parts: parts)
    }

    func rebuild(in txn: ReadWriteTransaction, progress: (Int, Int) -> Void) throws {
        let total = try txn.objectCount(in: collections)
        var done = 0
        progress(0, total)
        try list.rebuilding(in: txn) {
            try txn.forEachObjectIndex(in: collections) { index in
                if let key = try list.storedItemKey(of: index, in: txn) {
                    try list.place(index, from: nil, to: key, in: txn)
                }
                done += 1
                if done % 1024 == 0 { progress(done, total) }
            }
        }
        progress(done, total)
    }
}
