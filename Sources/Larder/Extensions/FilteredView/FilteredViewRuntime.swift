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
        // The parent's item keys whose items pass the filter (in their groups).
        self.list = ListRuntime(name: name, parts: parts, collections: parent.collections) { index, object, metadata in
            func passes(_ key: [UInt8]) -> Bool {
                guard let group = try? ListRuntime<Object, Metadata>.group(ofItemKey: key) else { return false }
                return definition.filter(group, index, object, metadata)
            }
            switch parent.derive(index, object, metadata) {
            case .none: return .none
            case .one(let key): return passes(key) ? .one(key) : .none
            case .several(let keys): return ItemKeys(keys.filter(passes))
            }
        }
    }

    /// The filtered view over `parent`, which must be a view of the same types.
    static func make(name: String, definition: FilteredView<Object, Metadata>, parent: any ExtensionRuntime, parts: ExtensionParts) throws -> FilteredViewRuntime {
        guard let list = (parent as? any ListKeeping<Object, Metadata>)?.list else {
            throw LarderError(.extensionConflict, "the parent \(parent.name) of filtered view \(name) is not a view of the same object and metadata types", operation: "register", extensionName: name)
        }
        return FilteredViewRuntime(name: name, definition: definition, parent: list, parentRuntime: parent, parts: parts)
    }

    /// The kind's name in the store's records.
    static var kindName: String { "filteredView" }
    var kind: String { Self.kindName }
    var versionTag: String { definition.versionTag }
    var collections: Set<ExactString>? { parentRuntime.collections }
    var dependencies: [String] { [definition.parent] }
    var readsMetadata: Bool { list.readsMetadata }

    func rebound(to parts: ExtensionParts) -> any ExtensionRuntime {
        FilteredViewRuntime(name: name, definition: definition, parent: parent, parentRuntime: parentRuntime, parts: parts)
    }

    func rebuild(in txn: ReadWriteTransaction, progress: (Int, Int) -> Void) throws {
        let parentTree = try parent.settledTree(in: txn)
        let total = try parentTree.count()
        var done = 0
        progress(0, total)
        try list.rebuilding(in: txn) {
            while done < total {
                for key in try parentTree.keys(from: done, limit: 512, reversed: false) {
                    let (group, index) = try ListRuntime<Object, Metadata>.split(itemKey: key)
                    if let object = try txn.extensionObject(Object.self, at: index, written: nil) {
                        let metadata = list.readsMetadata ? try txn.extensionMetadata(Metadata.self, at: index, written: nil) : nil
                        if definition.filter(group, index, object, metadata) { try list.placeItem(index, from: nil, to: key, in: txn) }
                    }
                    done += 1
                }
                progress(done, total)
            }
        }
    }
}
