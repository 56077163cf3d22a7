import Foundation
import Testing
@testable import Larder

/// `txn.savepoint { … }` against a model, with random nesting and throws: after each commit the
/// stored values, a view, an index, the connection's cache and the changeset agree with the
/// model, and undoing the write puts back what was there before it.
@Suite("Savepoints")
struct SavepointTests {
    struct Abort: Error {}

    static let view = AutoView<Item, NoMetadata>(collections: ["items"], versionTag: "1", grouping: { _, item in item.category },
                                                 sorting: { _, item in TupleKey(item.price) })
    static let index = SecondaryIndex<Item, NoMetadata>(collections: ["items"], versionTag: "1") { _, item in TupleKey(item.category) }

    /// Writes in `txn` (and in savepoints nested to `depth` 3), keeping `model` and `touched` as the
    /// writes that stay make them.
    static func work(_ txn: ReadWriteTransaction, depth: Int, model: inout [String: Item], touched: inout Set<String>, random: inout SplitMix) throws {
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let key = "k\(Int.random(in: 0..<15, using: &random))"
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                let item = Item(category: ["a", "b", "c"][Int.random(in: 0..<3, using: &random)], price: Double(Int.random(in: 0..<9, using: &random)), name: "d\(depth)")
                try txn.setObject(item, forKey: key, inCollection: "items")
                model[key] = item
                touched.insert(key)
            case 6..<8:
                if try txn.removeObject(forKey: key, inCollection: "items") { touched.insert(key) }
                model[key] = nil
            default:
                guard depth < 3 else { continue }
                var inner = model
                var innerTouched = touched
                let throwsAtEnd = Int.random(in: 0..<3, using: &random) == 0
                do {
                    try txn.savepoint { txn in
                        // What the savepoint sees is what the transaction wrote before it.
                        for (key, item) in inner { #expect(try txn.object(forKey: key, inCollection: "items", as: Item.self) == item) }
                        try work(txn, depth: depth + 1, model: &inner, touched: &innerTouched, random: &random)
                        if throwsAtEnd { throw Abort() }
                    }
                    model = inner
                    touched = innerTouched
                } catch is Abort {
                    // Undone: the transaction reads as before the savepoint.
                    for key in Set(inner.keys).union(model.keys) {
                        #expect(try txn.object(forKey: key, inCollection: "items", as: Item.self) == model[key])
                    }
                }
            }
        }
    }

    @Test func randomNestingAndThrowsLeaveWhatTheModelSays() throws {
        let seed = ProcessInfo.processInfo.environment["LARDER_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix(seed: seed)
        var finished = false
        defer { if !finished { print("SavepointTests.randomNestingAndThrowsLeaveWhatTheModelSays seed: \(seed) (LARDER_SEED=\(seed) repeats it)") } }
        try withStore { db, _ in
            let view = try db.register(Self.view, named: "byCategory")
            let index = try db.register(Self.index, named: "byCategoryIndex")
            let connection = db.newConnection()
            let stream = db.changes()
            var model: [String: Item] = [:]
            for step in 0..<(40 * modelTestScale) {
                let note = "seed \(seed) step \(step)"
                let before = model
                var next = model
                var touched: Set<String> = []
                let undoable = Int.random(in: 0..<3, using: &random) == 0
                // Warm the cache with what is stored, so that a savepoint's undone write would show.
                _ = try connection.read { txn in try (0..<15).map { try txn.object(forKey: "k\($0)", inCollection: "items", as: Item.self) } }
                if undoable {
                    try connection.write(undoable: "step \(step)") { txn in try Self.work(txn, depth: 0, model: &next, touched: &touched, random: &random) }
                } else {
                    try connection.write { txn in try Self.work(txn, depth: 0, model: &next, touched: &touched, random: &random) }
                }
                model = next
                try expectStore(connection, view: view, index: index, equals: model, note)
                let changed = Set(stream.lease.subscription.takeBuffered().flatMap { $0.changedKeysInByteOrder(inCollection: "items") })
                #expect(changed.isSubset(of: touched), "\(note): the changeset lists a write a savepoint undid")
                let differing = Set(Set(before.keys).union(model.keys).filter { before[$0] != model[$0] })
                #expect(differing.isSubset(of: changed), "\(note): the changeset misses a change")
                // A write whose changes all end where they began (a value written again as it
                // was, a key written and put back) records no undo step: undo would then undo the
                // step before it. Only a write that changed something is undone here.
                if undoable, !differing.isEmpty {
                    _ = try connection.undo()
                    try expectStore(connection, view: view, index: index, equals: before, note + " (undone)")
                    _ = try connection.redo()
                    try expectStore(connection, view: view, index: index, equals: model, note + " (redone)")
                    _ = stream.lease.subscription.takeBuffered()
                }
            }
            #expect(try db.verifyExtensions().isEmpty, "seed \(seed)")
        }
        finished = true
    }

    func expectStore(_ connection: Connection, view: ViewHandle<Item, NoMetadata>, index: SecondaryIndexHandle<Item, NoMetadata>, equals model: [String: Item], _ note: String) throws {
        try connection.read { txn throws in
            for n in 0..<15 {
                #expect(try txn.object(forKey: "k\(n)", inCollection: "items", as: Item.self) == model["k\(n)"], "\(note) k\(n)")
            }
            for category in ["a", "b", "c"] {
                let expected = model.filter { $0.value.category == category }.map(\.key)
                #expect(Set(try txn[view].indexes(inGroup: category).map(\.key)) == Set(expected), "\(note) view \(category)")
                #expect(Set(try txn[index].indexes(matching: .equal(TupleKey(category))).map(\.key)) == Set(expected), "\(note) index \(category)")
            }
        }
    }

    @Test func aSavepointReturnsItsValueAndTheOuterTransactionGoesOn() throws {
        try withStore { db, _ in
            let kept = try db.write { txn in
                try txn.setObject(1, forKey: "a", inCollection: "c")
                let value = try txn.savepoint { txn in
                    try txn.setObject(2, forKey: "b", inCollection: "c")
                    return "kept"
                }
                #expect(throws: Abort.self) {
                    try txn.savepoint { txn in
                        try txn.setObject(3, forKey: "c", inCollection: "c")
                        try txn.setCommitInfo("from an undone savepoint")
                        throw Abort()
                    }
                }
                try txn.setObject(4, forKey: "d", inCollection: "c")
                return value
            }
            #expect(kept == "kept")
            #expect(try db.read { try $0.keys(inCollection: "c") } == ["a", "b", "d"])
        }
    }

    @Test func rollbackInsideASavepointRollsBackTheTransaction() throws {
        try withStore { db, _ in
            try db.write { txn in
                try txn.setObject(1, forKey: "a", inCollection: "c")
                try txn.savepoint { txn in
                    try txn.setObject(2, forKey: "b", inCollection: "c")
                    txn.rollback()
                }
            }
            #expect(try db.read { try $0.numberOfKeys(inCollection: "c") } == 0)
        }
    }
}
