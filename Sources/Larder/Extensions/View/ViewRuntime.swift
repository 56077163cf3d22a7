/// A view as the store runs it.
final class ViewRuntime<Object: Codable & Sendable, Metadata: Codable & Sendable>: ListKeeping {
    let definition: AutoView<Object, Metadata>
    let list: ListRuntime<Object, Metadata>

    init(name: String, definition: AutoView<Object, Metadata>, parts: ExtensionParts) {
        self.definition = definition
        self.list = ListRuntime(name: name, parts: parts, collections: definition.collectionNames.map(Set.init(names:))) { index, object, metadata in
            switch definition.grouping {
            case .one(let grouping):
                guard let group = grouping(index, object, metadata) else { return .none }
                return .one(ListRuntime<Object, Metadata>.itemKey(group: group, sort: definition.sorting(index, object, metadata), index: index))
            case .several(let groups):
                let names = groups(index, object, metadata)
                guard !names.isEmpty else { return .none }
                return ListRuntime<Object, Metadata>.itemKeys(groups: names, sort: definition.sorting(index, object, metadata), index: index)
            }
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
                for key in try list.storedItemKeys(of: index, in: txn).all {
                    try list.placeItem(index, from: nil, to: key, in: txn)
                }
                done += 1
                if done % 1024 == 0 { progress(done, total) }
            }
        }
        progress(done, total)
    }
}
