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

/// A store of `items` items, built once (untimed) with the given extensions and kept open, as a
/// program keeps its store: each run of a workload times its writes, then puts the store back as
/// it was (untimed) with the inverse writes, so that every run finds the same items, and LMDB's
/// map and the page cache are as warm as in a program that has been running a while.
final class PrefilledStore {
    let scratch: Scratch
    let db: Database

    /// Registers the extensions with `register`, then fills the store in one write transaction, as
    /// a program that registers its extensions at launch and then writes would.
    init(items: Int, label: String, register: (Database) throws -> Void) throws {
        scratch = try Scratch("prefilled-\(label)")
        db = try Database(path: scratch.path, configuration: benchConfiguration())
        try register(db)
        try db.write { txn in
            for n in 0..<items {
                let item = PrefilledItems.item(n)
                try txn.setObject(item, forKey: item.id, inCollection: Item.collection)
            }
        }
    }

    /// What puts the store back as it was before the last timed write, if one is pending.
    private var undo: (inserted: [Item], original: [Item])?

    /// Inserts `items` (new keys) in one timed write transaction; ``restore()`` removes them.
    func timedInsert(_ items: [Item]) throws -> Duration {
        try timedWrite(items, undo: (items, []))
    }

    /// Writes `updated` over stored items in one timed write transaction; ``restore()`` writes
    /// `original` back.
    func timedUpdate(_ updated: [Item], restoring original: [Item]) throws -> Duration {
        try timedWrite(updated, undo: ([], original))
    }

    private func timedWrite(_ items: [Item], undo: (inserted: [Item], original: [Item])) throws -> Duration {
        try restore()
        self.undo = undo
        return try timed {
            try db.write { txn in
                for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
            }
        }
    }

    /// Undoes the last timed write (untimed; kept out of the timed functions, so that
    /// `Scripts/compare-bench --callgrind` counts only the writes).
    func restore() throws {
        guard let undo else { return }
        try db.write { txn in
            for item in undo.inserted { try txn.removeObject(forKey: item.id, inCollection: Item.collection) }
            for item in undo.original { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
        }
        self.undo = nil
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

    public func withExtensions() throws -> Duration { try extended.timedInsert(items) }
    public func plain() throws -> Duration { try plainStore.timedInsert(items) }
    /// Removes what the last runs inserted (untimed): call it after each run.
    public func restore() throws { try extended.restore(); try plainStore.restore() }
}

/// Row 9u: `count` items of a store of `items` items updated in one write transaction, each to a
/// new price (its sort key in the view, and part of its index entry) in the same category (so it
/// moves within its group), with row 9's view and index, against the same updates in a store of
/// the same items without them.
public final class UpdateAtScaleWorkload {
    let extended: PrefilledStore
    let plainStore: PrefilledStore
    let original: [Item]
    let updated: [Item]

    public init(items stored: Int, updates count: Int) throws {
        extended = try PrefilledStore(items: stored, label: "update-extended", register: CatalogExtensions.register(in:))
        plainStore = try PrefilledStore(items: stored, label: "update-plain") { _ in }
        var random = SplitMix64(seed: 91)
        original = Array(0..<stored).shuffled(using: &random).prefix(min(count, stored)).map(PrefilledItems.item)
        updated = original.map { item in
            var moved = item
            moved.price = Double(random.next() % 100_000) / 100
            return moved
        }
    }

    public func withViewAndIndex() throws -> Duration { try extended.timedUpdate(updated, restoring: original) }
    public func plain() throws -> Duration { try plainStore.timedUpdate(updated, restoring: original) }
    /// Writes the items of the last runs back as they were (untimed): call it after each run.
    public func restore() throws { try extended.restore(); try plainStore.restore() }
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

    public func large() throws -> Duration { try largeStore.timedInsert(largeItems) }
    public func small() throws -> Duration { try smallStore.timedInsert(smallItems) }
    /// Removes what the last runs inserted (untimed): call it after each run.
    public func restore() throws { try largeStore.restore(); try smallStore.restore() }
}
