import Foundation
import Larder

/// The items of the stores that workloads at scale start from: item `n` has key number `2n`, so
/// that the keys a workload inserts later (odd numbers) fall between them all over the key space,
/// as new keys do in a real store, instead of all after the last one.
enum PrefilledItems {
    static func item(_ n: Int) -> Item { Item(key: Keys.key(2 * n), seed: n) }

    /// `count` new items whose keys lie between those of a store of `stored` items, in random
    /// order, the same on every run.
    static func fresh(_ count: Int, between stored: Int, seed: UInt64) -> [Item] {
        var random = SplitMix64(seed: seed)
        let slots = Array(0..<max(stored, count)).shuffled(using: &random).prefix(count)
        return slots.map { Item(key: Keys.key(2 * $0 + 1), seed: stored + $0) }
    }
}

/// A store of `items` items, built once (untimed) with the given extensions; each run of a
/// workload starts from a page-by-page copy of it (`Database.copy(to:compacting: false)`), so that
/// every run finds the same store and a run's writes never reach the next.
final class PrefilledStore {
    let scratch: Scratch
    let db: Database
    let register: (Database) throws -> Void

    /// Fills the store in one write transaction after `register` ran, as a program that
    /// registers its extensions at launch and then writes would.
    init(items: Int, label: String, register: @escaping (Database) throws -> Void) throws {
        scratch = try Scratch("prefilled-\(label)")
        db = try Database(path: scratch.path, configuration: benchConfiguration())
        self.register = register
        try register(db)
        try db.write { txn in
            for n in 0..<items {
                let item = PrefilledItems.item(n)
                try txn.setObject(item, forKey: item.id, inCollection: Item.collection)
            }
        }
    }

    /// A fresh copy of the store, opened, with the extensions registered again (their tags are
    /// unchanged, so nothing is rebuilt). Keep the scratch directory alive while the copy is used.
    func copy() throws -> (Scratch, Database) {
        let copy = try Scratch("prefilled-copy")
        try db.copy(to: copy.path, compacting: false)
        let opened = try Database(path: copy.path, configuration: benchConfiguration())
        try register(opened)
        return (copy, opened)
    }
}

/// Rows 9-at-scale and 11-at-scale: `count` new items inserted in one write transaction into a
/// store of `items` items that has the extensions (the view and the index of row 9, or the
/// relationships of row 11), against the same inserts into a store of the same items without them.
public final class InsertAtScaleWorkload {
    let extended: PrefilledStore
    let plainStore: PrefilledStore
    let items: [Item]

    public enum Extensions: Sendable {
        /// Row 9's view (by category, sorted by price) and index (category, price).
        case viewAndIndex
        /// Row 11's relationships: one edge per item, to its category.
        case relationships
    }

    public init(items stored: Int, inserts count: Int, extensions: Extensions) throws {
        let register: (Database) throws -> Void
        switch extensions {
        case .viewAndIndex: register = CatalogExtensions.register(in:)
        case .relationships: register = { try $0.register(GraphExtensions.relationships, named: "graph") }
        }
        extended = try PrefilledStore(items: stored, label: "insert-extended", register: register)
        plainStore = try PrefilledStore(items: stored, label: "insert-plain") { _ in }
        items = PrefilledItems.fresh(count, between: stored, seed: 90)
    }

    public func withExtensions() throws -> Duration {
        let (scratch, db) = try extended.copy()
        defer { withExtendedLifetime(scratch) {} }
        return try insertBatch(into: db)
    }

    public func plain() throws -> Duration {
        let (scratch, db) = try plainStore.copy()
        defer { withExtendedLifetime(scratch) {} }
        return try insertBatch(into: db)
    }

    private func insertBatch(into db: Database) throws -> Duration {
        try timed {
            try db.write { txn in
                for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
            }
        }
    }
}

/// Row 9u: `count` items of a store of `items` items updated in one write transaction, each to a
/// new price (its sort key in the view, and part of its index entry) in the same category (so it
/// moves within its group), with row 9's view and index, against the same updates in a store of
/// the same items without them.
public final class UpdateAtScaleWorkload {
    let extended: PrefilledStore
    let plainStore: PrefilledStore
    let updated: [Item]

    public init(items stored: Int, updates count: Int) throws {
        extended = try PrefilledStore(items: stored, label: "update-extended", register: CatalogExtensions.register(in:))
        plainStore = try PrefilledStore(items: stored, label: "update-plain") { _ in }
        var random = SplitMix64(seed: 91)
        updated = Array(0..<stored).shuffled(using: &random).prefix(min(count, stored)).map { n in
            var item = PrefilledItems.item(n)
            item.price = Double(random.next() % 100_000) / 100
            return item
        }
    }

    public func withViewAndIndex() throws -> Duration {
        let (scratch, db) = try extended.copy()
        defer { withExtendedLifetime(scratch) {} }
        return try updateBatch(in: db)
    }

    public func plain() throws -> Duration {
        let (scratch, db) = try plainStore.copy()
        defer { withExtendedLifetime(scratch) {} }
        return try updateBatch(in: db)
    }

    private func updateBatch(in db: Database) throws -> Duration {
        try timed {
            try db.write { txn in
                for item in updated { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
            }
        }
    }
}

/// Row 9s: row 9-at-scale's inserts, with the view and the index, into a store of `large` items
/// against the same inserts into a store of `small` items: how the cost of an insert grows with
/// the store.
public final class InsertGrowthWorkload {
    let largeStore: PrefilledStore
    let smallStore: PrefilledStore
    let largeItems: [Item]
    let smallItems: [Item]

    public init(small: Int, large: Int, inserts count: Int) throws {
        largeStore = try PrefilledStore(items: large, label: "growth-large", register: CatalogExtensions.register(in:))
        smallStore = try PrefilledStore(items: small, label: "growth-small", register: CatalogExtensions.register(in:))
        largeItems = PrefilledItems.fresh(count, between: large, seed: 92)
        smallItems = PrefilledItems.fresh(count, between: small, seed: 92)
    }

    public func large() throws -> Duration { try insert(largeItems, into: largeStore) }
    public func small() throws -> Duration { try insert(smallItems, into: smallStore) }

    private func insert(_ items: [Item], into store: PrefilledStore) throws -> Duration {
        let (scratch, db) = try store.copy()
        defer { withExtendedLifetime(scratch) {} }
        return try growthBatch(items, into: db)
    }

    private func growthBatch(_ items: [Item], into db: Database) throws -> Duration {
        try timed {
            try db.write { txn in
                for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
            }
        }
    }
}
