import Foundation
import Testing
@testable import Larder

/// A write transaction keeps the view trees' nodes it reads and writes in memory until it commits
/// (`TreeNodeCache`): reads of the view inside the transaction, emptying, rolling back, the
/// nested transactions of a group commit and writing out in mid-transaction must all see and
/// leave exactly what writing each node through at once would.
@Suite("Tree node cache", .serialized)
struct TreeNodeCacheTests {
    /// Random writes with the view read back inside the same transaction after each one, against
    /// a brute-force model; some transactions roll back, some empty every collection and go on.
    /// `byteLimit` is the cache's limit during the run: the smallest makes it write its nodes out
    /// at nearly every change. `pendingLimit` is the limit of the tree's changes waiting to be
    /// applied (`PendingTreeChanges`): the smallest applies them at every change, a medium one
    /// every few changes, in the middle of the transaction.
    @Test(arguments: [(8 << 20, 4 << 20), (4_096, 1), (1, 600), (8 << 20, 200)])
    func viewReadsInsideTheirWriteSeeItsChanges(byteLimit: Int, pendingLimit: Int) throws {
        let saved = TreeNodeCache.byteLimit.load(ordering: .relaxed)
        TreeNodeCache.byteLimit.store(byteLimit, ordering: .relaxed)
        defer { TreeNodeCache.byteLimit.store(saved, ordering: .relaxed) }
        let savedPending = ListWriteState.pendingByteLimit.load(ordering: .relaxed)
        ListWriteState.pendingByteLimit.store(pendingLimit, ordering: .relaxed)
        defer { ListWriteState.pendingByteLimit.store(savedPending, ordering: .relaxed) }
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix(seed: seed)
        try withStore { db, _ in
            let view = try db.register(ViewTests.byCategory(ViewTests.Calls()), named: "byCategory")
            var model: [YapDB.Index: Item] = [:]
            let categories = ["a", "b", "", "tools", "hidden"]
            for step in 0..<(30 * modelTestScale) {
                let keep = Int.random(in: 0..<6, using: &random) > 0
                var next = model
                try db.write { txn in
                    for change in 0..<Int.random(in: 1...40, using: &random) {
                        let collection = ["items", "more"].randomElement(using: &random)!
                        let key = "k\(Int.random(in: 0..<60, using: &random))"
                        let at = YapDB.Index(collection: collection, key: key)
                        switch Int.random(in: 0..<40, using: &random) {
                        case 0..<28:
                            let item = Item(category: categories.randomElement(using: &random)!, price: Double(Int.random(in: 0...50, using: &random)), name: "")
                            try txn.setObject(item, forKey: key, inCollection: collection)
                            next[at] = item
                        case 28..<38:
                            try txn.removeObject(forKey: key, inCollection: collection)
                            next[at] = nil
                        case 38:
                            try txn.removeAllObjects(inCollection: collection)
                            next = next.filter { $0.key.collection != collection }
                        default:
                            try txn.removeAllObjectsInAllCollections()
                            next = [:]
                        }
                        if change % 5 == 0 {
                            try ViewTests.check(txn, view, ViewTests.expected(next), model: next, random: &random,
                                                "seed \(seed) step \(step) change \(change), inside the write")
                        }
                    }
                    try ViewTests.check(txn, view, ViewTests.expected(next), model: next, random: &random,
                                        "seed \(seed) step \(step), at the end of the write")
                    if !keep { txn.rollback() }
                }
                if keep { model = next }
                try db.read { txn in
                    try ViewTests.check(txn, view, ViewTests.expected(model), model: model, random: &random, "seed \(seed) step \(step), after")
                }
            }
            #expect(try db.verifyExtensions().isEmpty, "seed \(seed)")
            #expect(try db.checkStructure().isConsistent, "seed \(seed)")
        }
    }

    /// A write's changes to a view's tree and group counts wait until something reads the view:
    /// each kind of read, made first after a change, sees every change before it.
    @Test func eachReadOfAViewSeesTheChangesBeforeIt() throws {
        try withStore { db, _ in
            let view = try db.register(ViewTests.byCategory(ViewTests.Calls()), named: "byCategory")
            let reads: [(String, (ViewReader<Item, NoMetadata>, [String: [YapDB.Index]]) throws -> Bool)] = [
                ("groups()", { try $0.groups() == $1.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }),
                ("numberOfItems(inGroup:)", { try $0.numberOfItems(inGroup: "a") == $1["a", default: []].count }),
                ("numberOfItems()", { try $0.numberOfItems() == $1.values.reduce(0) { $0 + $1.count } }),
                ("indexes(inGroup:)", { try $0.indexes(inGroup: "b") == $1["b", default: []] }),
                ("location(of:)", { reader, expected in
                    try expected["a", default: []].enumerated().allSatisfy { try reader.location(of: $1) == ViewLocation(group: "a", position: $0) }
                }),
            ]
            var model: [YapDB.Index: Item] = [:]
            var random = SplitMix(seed: 31)
            for (name, read) in reads {
                try db.write { txn in
                    for round in 0..<6 {
                        for _ in 0..<Int.random(in: 1...12, using: &random) {
                            let key = "k\(Int.random(in: 0..<30, using: &random))"
                            let at = YapDB.Index(collection: "items", key: key)
                            if Int.random(in: 0..<4, using: &random) == 0 {
                                try txn.removeObject(forKey: key, inCollection: "items")
                                model[at] = nil
                            } else {
                                let item = Item(category: ["a", "b", "c"].randomElement(using: &random)!, price: Double(Int.random(in: 0...9, using: &random)), name: "")
                                try txn.setObject(item, forKey: key, inCollection: "items")
                                model[at] = item
                            }
                        }
                        #expect(try read(try txn[view], ViewTests.expected(model)), "\(name), round \(round)")
                    }
                }
            }
        }
    }

    /// A group commit runs each caller in a nested transaction: a caller that fails after changing
    /// the view leaves none of its nodes behind, and the others' changes all arrive.
    @Test func aFailedCallerOfAGroupCommitLeavesNoNodesBehind() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let view = try Self.storeWithAView(db)
        let outcomes = try await GroupCommitTests().grouped(db, 4) { caller, txn in
            for n in 0..<150 {
                let item = Item(category: ["a", "b", "c"][n % 3], price: Double((n * 37 + caller) % 400), name: "")
                try txn.setObject(item, forKey: "c\(caller)-\(n)", inCollection: "items")
            }
            try txn.removeObject(forKey: "base\(caller)", inCollection: "items")
            if caller == 2 { throw GroupCommitTests.Failure(caller: caller) }
            return caller
        }
        #expect(outcomes.filter { (try? $0.get()) == nil }.count == 1)
        try Self.checkAfterTheGroup(db, view)
    }

    static func storeWithAView(_ db: Database) throws -> ViewHandle<Item, NoMetadata> {
        let view = try db.register(ViewTests.byCategory(ViewTests.Calls()), named: "byCategory")
        try db.write { txn in
            for n in 0..<200 {
                try txn.setObject(Item(category: ["a", "b"][n % 2], price: Double(n), name: ""), forKey: "base\(n)", inCollection: "items")
            }
        }
        return view
    }

    /// The store holds the 200 first items but the 3 removed, and the items of callers 0, 1 and
    /// 3 (150 each); the view agrees with them, and the store checks out.
    static func checkAfterTheGroup(_ db: Database, _ view: ViewHandle<Item, NoMetadata>) throws {
        let model = try db.read { txn in
            var model: [YapDB.Index: Item] = [:]
            for key in try txn.keys(inCollection: "items") {
                model[YapDB.Index(collection: "items", key: key)] = try txn.object(forKey: key, inCollection: "items", as: Item.self)
            }
            return model
        }
        let expectedCount = 200 - 3 + 3 * 150
        #expect(model.count == expectedCount)
        #expect(!model.keys.contains { $0.key.hasPrefix("c2-") })
        var random = SplitMix(seed: 4)
        try db.read { txn in
            try ViewTests.check(txn, view, ViewTests.expected(model), model: model, random: &random, "after the group commit")
        }
        #expect(try db.verifyExtensions().isEmpty)
        #expect(try db.checkStructure().isConsistent)
    }
}
