/// What one write transaction changed, index by index: the raw material of its changeset.
struct ChangeRecord: Sendable {
    enum Kind: Sendable, Equatable {
        case inserted, updated, removed

        /// The net effect of `self` followed by `next` within one transaction.
        func then(_ next: Kind) -> Kind? {
            switch (self, next) {
            case (.inserted, .removed): nil  // came and went: no change at all
            case (.inserted, _): .inserted
            case (.removed, .inserted): .updated
            default: next
            }
        }
    }

    private(set) var objects: [YapDB.Index: Kind] = [:]
    private(set) var metadata: [YapDB.Index: Kind] = [:]
    var clearedCollections: Set<String> = []
    private(set) var everythingRemoved = false

    var isEmpty: Bool { objects.isEmpty && metadata.isEmpty && clearedCollections.isEmpty && !everythingRemoved }

    mutating func object(_ index: YapDB.Index, _ kind: Kind) {
        objects[index] = objects[index].map { $0.then(kind) } ?? kind
    }

    mutating func metadata(_ index: YapDB.Index, _ kind: Kind) {
        metadata[index] = metadata[index].map { $0.then(kind) } ?? kind
    }

    mutating func removedEverything() {
        objects.removeAll()
        metadata.removeAll()
        clearedCollections.removeAll()
        everythingRemoved = true
    }
}
