import Larder

extension Item: Persistable {}

/// A value that owns other items by key: the parent of workload 12.
struct Owner: Codable, Persistable {
    static let collection = "owners"
    var id: String
    var items: [String]
}

/// The relationships of workloads 11 and 12: each item points at its category; an owner owns its
/// items (deleting it deletes them).
enum GraphExtensions {
    static let relationships = Relationships(versionTag: "1")
        .edges(from: Item.self) { item in [.init("category", to: YapDB.Index(collection: "categories", key: item.category))] }
        .edges(from: Owner.self) { owner in owner.items.map { .init("items", to: Item.index(forKey: $0), rules: .deleteDestinationWithSource) } }
}

/// Workload 11: items written in one transaction into a new store, with the relationships
/// extension registered (one edge per item), against a store with none.
public final class RelationshipWriteWorkload {
    let items: [Item]

    public init(count: Int) {
        items = Keys.shuffled(count, seed: 11).enumerated().map { Item(key: $1, seed: $0) }
    }

    private func insert(withRelationships: Bool) throws -> Duration {
        let scratch = try Scratch("relationship-writes")
        let db = try Database(path: scratch.path, configuration: benchConfiguration())
        if withRelationships { try db.register(GraphExtensions.relationships, named: "graph") }
        return try timed {
            try db.write { txn in
                for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
            }
        }
    }

    public func withRelationships() throws -> Duration { try insert(withRelationships: true) }
    public func plain() throws -> Duration { try insert(withRelationships: false) }
}

/// Workload 12: deleting an owner whose `count` items go with it by a delete rule, against
/// deleting the owner and the same items by key in a store without the extension. Each run
/// builds its store first (untimed).
public final class CascadeDeleteWorkload {
    let items: [Item]

    public init(count: Int) {
        items = Keys.shuffled(count, seed: 12).enumerated().map { Item(key: $1, seed: $0) }
    }

    private func store(withRelationships: Bool) throws -> (Scratch, Database) {
        let scratch = try Scratch("cascade-delete")
        let db = try Database(path: scratch.path, configuration: benchConfiguration())
        if withRelationships { try db.register(GraphExtensions.relationships, named: "graph") }
        try db.write { txn in
            for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
            try txn.write(Owner(id: "owner", items: items.map(\.id)))
        }
        return (scratch, db)
    }

    public func cascade() throws -> Duration {
        let (scratch, db) = try store(withRelationships: true)
        defer { withExtendedLifetime(scratch) {} }
        return try timed {
            _ = try db.write { try $0.remove(Owner.self, key: "owner") }
        }
    }

    public func byKey() throws -> Duration {
        let (scratch, db) = try store(withRelationships: false)
        defer { withExtendedLifetime(scratch) {} }
        return try timed {
            try db.write { txn in
                try txn.remove(Owner.self, key: "owner")
                for item in items { try txn.removeObject(forKey: item.id, inCollection: Item.collection) }
            }
        }
    }
}

/// Workload 13: items updated in one undoable write transaction (each update recorded with its
/// bytes before and after), against the same updates in a plain write. Each run starts from a
/// store of the items (untimed).
public final class UndoableWriteWorkload {
    let items: [Item]
    let updated: [Item]

    public init(count: Int) {
        items = Keys.shuffled(count, seed: 13).enumerated().map { Item(key: $1, seed: $0) }
        updated = items.enumerated().map { position, item in
            var changed = item
            changed.price += Double(position % 7) + 1
            return changed
        }
    }

    private func update(undoable: Bool) throws -> Duration {
        let scratch = try Scratch("undoable-writes")
        defer { withExtendedLifetime(scratch) {} }
        let db = try Database(path: scratch.path, configuration: benchConfiguration())
        try db.write { txn in
            for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
        }
        let body: (ReadWriteTransaction) throws -> Void = { txn in
            for item in self.updated { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
        }
        return try timed {
            if undoable { try db.write(undoable: "Reprice", body) } else { try db.write(body) }
        }
    }

    public func undoable() throws -> Duration { try update(undoable: true) }
    public func plain() throws -> Duration { try update(undoable: false) }
}
