import Larder

/// The view and the index of workloads 9 and 10: items grouped by category and sorted by price,
/// and an index on (category, price).
enum CatalogExtensions {
    static let view = AutoView<Item, NoMetadata>(
        collections: [Item.collection], versionTag: "1",
        grouping: { _, item in item.category },
        sorting: { _, item in TupleKey(item.price, item.id) })
    static let index = SecondaryIndex<Item, NoMetadata>(collections: [Item.collection], versionTag: "1") { _, item in
        TupleKey(item.category, item.price)
    }

    static func register(in db: Database) throws {
        try db.register(view, named: "byCategory")
        try db.register(index, named: "byPrice")
    }
}

/// Workload 9: items written in one transaction into a new store, with the view and the index
/// registered, against a store with none.
public final class ExtensionWriteWorkload {
    let items: [Item]

    public init(count: Int) {
        items = Keys.shuffled(count, seed: 9).enumerated().map { Item(key: $1, seed: $0) }
    }

    private func insert(withExtensions: Bool) throws -> Duration {
        let scratch = try Scratch("extension-writes")
        let db = try Database(path: scratch.path, configuration: benchConfiguration())
        if withExtensions { try CatalogExtensions.register(in: db) }
        return try timed {
            try db.write { txn in
                for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
            }
        }
    }

    public func withViewAndIndex() throws -> Duration { try insert(withExtensions: true) }
    public func plain() throws -> Duration { try insert(withExtensions: false) }
}

/// Workload 10: registering the view and the index again, with the tags the store has, as a
/// program does at each launch: the store is opened afresh each time (untimed) and only the two
/// `register` calls are timed.
public final class RegistrationWorkload {
    let scratch: Scratch
    let path: String

    /// A store of `items` items with the view and the index built.
    public init(items count: Int, label: String) throws {
        scratch = try Scratch("registration-\(label)")
        path = scratch.path
        let db = try Database(path: path, configuration: benchConfiguration())
        try db.write { txn in
            for n in 0..<count {
                let item = Item(key: Keys.key(n), seed: n)
                try txn.setObject(item, forKey: item.id, inCollection: Item.collection)
            }
        }
        try CatalogExtensions.register(in: db)
    }

    /// `count` launches; the total time spent in `register`.
    public func register(count: Int) throws -> Duration {
        var total = Duration.zero
        for _ in 0..<count {
            let db = try Database(path: path, configuration: benchConfiguration())
            total += try timed { try CatalogExtensions.register(in: db) }
        }
        return total
    }
}

/// Workload 9t: items written in one transaction into a new store with a view that puts each
/// item in three groups (its category and two tags derived from it, as a note's tags), against
/// the same view with one group per item.
public final class MultiGroupWriteWorkload {
    let items: [Item]

    public init(count: Int) {
        items = Keys.shuffled(count, seed: 9).enumerated().map { Item(key: $1, seed: $0) }
    }

    /// Tags are strings the objects hold, as a note's do: the grouping makes none.
    static let stockTags = (0..<7).map { "stock-\($0)" }
    static let ratingTags = (0..<6).map { "rating-\($0)" }

    static let oneGroup = AutoView<Item, NoMetadata>(
        collections: [Item.collection], versionTag: "1",
        grouping: { _, item in item.category },
        sorting: { _, item in TupleKey(item.price, item.id) })
    static let threeGroups = AutoView<Item, NoMetadata>(
        collections: [Item.collection], versionTag: "1",
        groups: { _, item in [item.category, stockTags[item.stock % stockTags.count], ratingTags[Int(item.rating) % ratingTags.count]] },
        sorting: { _, item in TupleKey(item.price, item.id) })

    private func insert(_ view: AutoView<Item, NoMetadata>) throws -> Duration {
        let scratch = try Scratch("multi-group-writes")
        let db = try Database(path: scratch.path, configuration: benchConfiguration())
        try db.register(view, named: "byTags")
        return try timed {
            try db.write { txn in
                for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
            }
        }
    }

    public func threeGroupsPerItem() throws -> Duration { try insert(Self.threeGroups) }
    public func oneGroupPerItem() throws -> Duration { try insert(Self.oneGroup) }
}
