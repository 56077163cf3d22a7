import Foundation
import Synchronization
import Testing
@testable import Larder

/// Views and filtered views against a brute-force model, and their change reports applied to a
/// list model as a user interface would.
@Suite("Views")
struct ViewTests {
    final class Calls: Sendable {
        let grouping = Atomic<Int>(0)
        let filtering = Atomic<Int>(0)
    }

    static func byCategory(_ calls: Calls, tag: String = "1") -> AutoView<Item, NoMetadata> {
        AutoView(collections: ["items", "more"], versionTag: tag, grouping: { _, item in
            calls.grouping.add(1, ordering: .relaxed)
            return item.category == "hidden" ? nil : item.category
        }, sorting: { _, item in TupleKey(item.price) })
    }

    static func cheap(_ parent: ViewHandle<Item, NoMetadata>, _ calls: Calls, limit: Double = 10, tag: String = "1") -> FilteredView<Item, NoMetadata> {
        FilteredView(parent: parent, versionTag: tag) { _, _, item, _ in
            calls.filtering.add(1, ordering: .relaxed)
            return item.price < limit
        }
    }

    /// The view a brute-force model gives: groups in UTF-8 order, items by price then index.
    static func expected(_ model: [YapDB.Index: Item], where keep: (Item) -> Bool = { _ in true }) -> [String: [YapDB.Index]] {
        var groups: [String: [(TupleKey, YapDB.Index)]] = [:]
        for (index, item) in model where ["items", "more"].contains(index.collection) && item.category != "hidden" && keep(item) {
            groups[item.category, default: []].append((TupleKey([.double(item.price), .string(index.collection), .string(index.key)]), index))
        }
        return groups.mapValues { $0.sorted { $0.0 < $1.0 }.map(\.1) }
    }

    /// Applies `changes` to `list` the way a batch-updating list interface does.
    static func apply(_ changes: ViewChanges, to list: inout [String: [YapDB.Index]], sourceLocation: SourceLocation = #_sourceLocation) {
        let removals = changes.rows.filter { $0.kind == .delete || $0.kind == .move }.sorted { $0.from!.position > $1.from!.position }
        for change in removals {
            let from = change.from!
            guard let items = list[from.group], items.indices.contains(from.position), items[from.position] == change.index else {
                Issue.record("cannot remove \(change) from \(list[from.group] ?? [])", sourceLocation: sourceLocation)
                return
            }
            list[from.group]!.remove(at: from.position)
        }
        for section in changes.sections where section.kind == .delete {
            #expect(list[section.group]?.isEmpty == true, "deleted group \(section.group) still has items", sourceLocation: sourceLocation)
            list[section.group] = nil
        }
        for section in changes.sections where section.kind == .insert {
            #expect(list[section.group] == nil, "inserted group \(section.group) was there", sourceLocation: sourceLocation)
            list[section.group] = []
        }
        let insertions = changes.rows.filter { $0.kind == .insert || $0.kind == .move }.sorted { $0.to!.position < $1.to!.position }
        for change in insertions {
            let to = change.to!
            guard let items = list[to.group], to.position <= items.count else {
                Issue.record("cannot insert \(change) into \(list[to.group] ?? [])", sourceLocation: sourceLocation)
                return
            }
            list[to.group]!.insert(change.index, at: to.position)
        }
        for change in changes.rows where change.kind == .update {
            #expect(list[change.to!.group]?[change.to!.position] == change.index, sourceLocation: sourceLocation)
        }
    }

    /// Checks every read of `view` against `expected`.
    static func check(_ txn: ReadTransaction, _ handle: ViewHandle<Item, NoMetadata>, _ expected: [String: [YapDB.Index]], model: [YapDB.Index: Item], random: inout SplitMix, _ note: String) throws {
        let view = try txn[handle]
        let groups = expected.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(try view.groups() == groups, "\(note)")
        #expect(try view.numberOfItems() == expected.values.reduce(0) { $0 + $1.count }, "\(note)")
        for group in groups {
            let items = expected[group]!
            #expect(try view.numberOfItems(inGroup: group) == items.count, "\(note)")
            #expect(try view.indexes(inGroup: group) == items, "\(note) group \(group)")
            #expect(try view.first(inGroup: group) == items.first && view.last(inGroup: group) == items.last, "\(note)")
            let a = Int.random(in: -1...items.count + 1, using: &random)
            let b = Int.random(in: -1...items.count + 1, using: &random)
            let range = min(a, b)..<max(a, b)
            #expect(try view.indexes(inGroup: group, positions: range) == Array(items[range.clamped(to: 0..<items.count)]), "\(note) \(range)")
            let position = Int.random(in: 0..<items.count, using: &random)
            #expect(try view.index(at: position, inGroup: group) == items[position], "\(note)")
            #expect(try view.object(at: position, inGroup: group) == model[items[position]], "\(note)")
            #expect(try view.location(of: items[position]) == ViewLocation(group: group, position: position), "\(note)")
            var backward: [YapDB.Index] = []
            try view.enumerate(inGroup: group, positions: range, reversed: true) { index, at, _ in
                #expect(items[at] == index)
                backward.append(index)
            }
            #expect(backward == Array(items[range.clamped(to: 0..<items.count)].reversed()), "\(note)")
        }
        #expect(try view.numberOfItems(inGroup: "no such group") == 0)
        #expect(try view.index(at: 0, inGroup: "no such group") == nil)
        #expect(try view.location(of: YapDB.Index(collection: "items", key: "absent")) == nil)
    }

    @Test func viewsAgreeWithABruteForceModelAndTheirChangesRebuildTheList() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix(seed: seed)
        try withStore { db, _ in
            let calls = Calls()
            let view = try db.register(Self.byCategory(calls), named: "byCategory")
            let cheap = try db.register(Self.cheap(view, calls), named: "cheap")
            let stream = db.changes()
            var model: [YapDB.Index: Item] = [:]
            var lists: [String: [String: [YapDB.Index]]] = ["byCategory": [:], "cheap": [:]]
            let categories = ["a", "b", "", "é", "hidden", "tools"]
            for step in 0..<(80 * modelTestScale) {
                var next = model
                let keep = Int.random(in: 0..<8, using: &random) > 0
                try? db.write { txn in
                    for _ in 0..<Int.random(in: 1...8, using: &random) {
                        let collection = ["items", "items", "more", "other"].randomElement(using: &random)!
                        let key = "k\(Int.random(in: 0..<30, using: &random))"
                        let at = YapDB.Index(collection: collection, key: key)
                        let item = Item(category: categories.randomElement(using: &random)!, price: Double(Int.random(in: -3...20, using: &random)), name: "")
                        switch Int.random(in: 0..<20, using: &random) {
                        case 0..<12:
                            try txn.setObject(item, forKey: key, inCollection: collection)
                            next[at] = item
                        case 12..<15:
                            if try txn.replaceObject(item, forKey: key, inCollection: collection) {
                                next[at] = item
                            }
                        case 15..<18:
                            try txn.removeObject(forKey: key, inCollection: collection)
                            next[at] = nil
                        case 18:
                            try txn.touchObject(forKey: key, inCollection: collection)
                        default:
                            if Int.random(in: 0..<3, using: &random) == 0 {
                                try txn.removeAllObjects(inCollection: collection)
                                next = next.filter { $0.key.collection != collection }
                            } else {
                                try txn.replaceMetadata("m", forKey: key, inCollection: collection)  // passes the views by
                            }
                        }
                    }
                    if !keep { txn.rollback() }
                }
                if keep { model = next }
                let note = "seed \(seed) step \(step)"
                for changeset in stream.lease.subscription.takeBuffered() {
                    for viewChanges in try view.changes(in: changeset) { Self.apply(viewChanges, to: &lists["byCategory"]!) }
                    for viewChanges in try cheap.changes(in: changeset) { Self.apply(viewChanges, to: &lists["cheap"]!) }
                }
                let all = Self.expected(model)
                let cheapOnes = Self.expected(model) { $0.price < 10 }
                #expect(lists["byCategory"] == all, "\(note): the changes do not rebuild the list")
                #expect(lists["cheap"] == cheapOnes, "\(note): the filtered changes do not rebuild the list")
                try db.read { txn in
                    try Self.check(txn, view, all, model: model, random: &random, note)
                    try Self.check(txn, cheap, cheapOnes, model: model, random: &random, note + " (filtered)")
                }
            }
            #expect(try db.verifyExtensions().isEmpty, "seed \(seed)")
        }
    }

    @Test func changingTheFilterRebuildsOnlyTheFilter() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let calls = Calls()
        do {
            let db = try Database(path: path)
            try db.write { txn in
                for i in 0..<500 { try txn.setObject(Item(category: "c\(i % 5)", price: Double(i % 40), name: ""), forKey: "k\(i)", inCollection: "items") }
            }
            let view = try db.register(Self.byCategory(calls), named: "byCategory")
            try db.register(Self.cheap(view, calls), named: "cheap")
        }
        #expect(calls.grouping.load(ordering: .acquiring) == 500)
        let db = try Database(path: path)
        let view = try db.register(Self.byCategory(calls), named: "byCategory")  // unchanged: no work
        let filterCallsBefore = calls.filtering.load(ordering: .acquiring)
        let cheap = try db.register(Self.cheap(view, calls, limit: 5, tag: "2"), named: "cheap")
        #expect(calls.grouping.load(ordering: .acquiring) == 500)  // the parent was not touched
        #expect(calls.filtering.load(ordering: .acquiring) - filterCallsBefore == 500)
        #expect(try db.read { try $0[cheap].numberOfItems() } == (0..<500).filter { $0 % 40 < 5 }.count)
        #expect(try db.verifyExtensions().isEmpty)
    }

    @Test func rebuildingTheParentMakesTheFilteredViewRebuild() throws {
        try withStore { db, _ in
            let calls = Calls()
            try db.write { txn in
                for i in 0..<20 { try txn.setObject(Item(category: "c", price: Double(i), name: ""), forKey: "k\(i)", inCollection: "items") }
            }
            let view = try db.register(Self.byCategory(calls), named: "byCategory")
            try db.register(Self.cheap(view, calls), named: "cheap")
            let error = #expect(throws: LarderError.self) { try db.unregisterExtension(named: "byCategory") }
            #expect(error?.code == .extensionConflict)
            try db.unregisterExtension(named: "cheap")
            try db.unregisterExtension(named: "byCategory")
            let hidingAll = AutoView<Item, NoMetadata>(collections: ["items"], versionTag: "2", grouping: { _, _ in nil }, sorting: { _, _ in TupleKey() })
            let parent = try db.register(hidingAll, named: "byCategory")
            // The filtered view's tag is unchanged, but what it was built from is gone: it rebuilds.
            let cheap = try db.register(Self.cheap(parent, calls), named: "cheap")
            #expect(try db.read { try $0[cheap].numberOfItems() } == 0)
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func viewsThatReadMetadataFollowIt() throws {
        try withStore { db, _ in
            let byStock = AutoView<Item, Int>(collections: ["items"], versionTag: "1", metadata: Int.self,
                                          grouping: { _, _, stock in stock.map { $0 > 0 ? "in stock" : "sold out" } },
                                          sorting: { _, item, _ in TupleKey(item.name) })
            let handle = try db.register(byStock, named: "byStock")
            let stream = db.changes()
            try db.write { txn in
                try txn.setObject(Item(category: "", price: 1, name: "b"), forKey: "x", inCollection: "items", metadata: 2)
                try txn.setObject(Item(category: "", price: 1, name: "a"), forKey: "y", inCollection: "items", metadata: 0)
            }
            _ = try db.write { try $0.replaceMetadata(0, forKey: "x", inCollection: "items") }
            try db.read { txn throws in
                #expect(try txn[handle].groups() == ["sold out"])
                #expect(try txn[handle].indexes(inGroup: "sold out").map(\.key) == ["y", "x"])
            }
            let changes = try stream.lease.subscription.takeBuffered().flatMap { try handle.changes(in: $0) }
            #expect(changes.count == 2)
            let moved = try #require(changes.last?.rows.first)
            #expect(moved.kind == .move && moved.from == ViewLocation(group: "in stock", position: 0) && moved.to == ViewLocation(group: "sold out", position: 1))
            #expect(changes.last?.sections == [.init(kind: .delete, group: "in stock")])
        }
    }

    @Test func filteredViewsChainAndSkipOtherTypes() throws {
        try withStore { db, _ in
            let calls = Calls()
            let view = try db.register(Self.byCategory(calls), named: "byCategory")
            let cheap = try db.register(Self.cheap(view, calls, limit: 10), named: "cheap")
            let cheapest = try db.register(FilteredView(parent: cheap, versionTag: "1") { group, _, item, _ in group == "a" && item.price < 3 }, named: "cheapest")
            let stream = db.changes()
            try db.write { txn in
                for (key, price, category) in [("x", 1.0, "a"), ("y", 5.0, "a"), ("z", 2.0, "b"), ("w", 50.0, "a")] {
                    try txn.setObject(Item(category: category, price: price, name: ""), forKey: key, inCollection: "items")
                }
                try txn.setObject("a string, not an Item", forKey: "s", inCollection: "items")
            }
            try db.read { txn throws in
                #expect(try txn[view].numberOfItems() == 4)
                #expect(try txn[cheap].indexes(inGroup: "a").map(\.key) == ["x", "y"])
                #expect(try txn[cheapest].indexes(inGroup: "a").map(\.key) == ["x"])
                #expect(try txn[cheapest].groups() == ["a"])
            }
            try db.write { try $0.setObject(Item(category: "a", price: 0.5, name: ""), forKey: "y", inCollection: "items") }
            #expect(try db.read { try $0[cheapest].indexes(inGroup: "a").map(\.key) } == ["y", "x"])
            let last = try #require(stream.lease.subscription.takeBuffered().last)
            #expect(try cheapest.changes(in: last).first?.rows == [.init(kind: .insert, index: YapDB.Index(collection: "items", key: "y"), from: nil, to: ViewLocation(group: "a", position: 0))])
            #expect(try db.verifyExtensions().isEmpty)
            #expect(db.registeredExtensions == ["byCategory", "cheap", "cheapest"])
        }
    }

    @Test func aBulkChangeIsReportedAsAReset() throws {
        try withStore { db, _ in
            let handle = try db.register(Self.byCategory(Calls()), named: "byCategory")
            let stream = db.changes()
            let limit = ListRuntime<Item, NoMetadata>.itemizedChangeLimit
            // As many changed items as the limit are itemized; one more is a reset.
            try db.write { txn in
                for i in 0..<limit { try txn.setObject(Item(category: "b", price: Double(i), name: ""), forKey: "b\(i)", inCollection: "more") }
            }
            try db.write { txn in
                for i in 0...limit { try txn.setObject(Item(category: "c", price: Double(i), name: ""), forKey: "k\(i)", inCollection: "items") }
            }
            try db.write { try $0.setObject(Item(category: "c", price: -1, name: ""), forKey: "first", inCollection: "items") }
            var changes = try stream.lease.subscription.takeBuffered().flatMap { try handle.changes(in: $0) }
            #expect(changes.first?.isReset == false && changes.first?.rows.count == limit)
            changes.removeFirst()
            #expect(changes.first == ViewChanges(isReset: true))
            #expect(changes.last?.rows == [.init(kind: .insert, index: YapDB.Index(collection: "items", key: "first"), from: nil, to: ViewLocation(group: "c", position: 0))])
            #expect(changes.last?.sections == [])
            // Removing everything takes out more than the limit: a reset, and the view is empty.
            try db.write { try $0.removeAllObjectsInAllCollections() }
            let cleared = try stream.lease.subscription.takeBuffered().flatMap { try handle.changes(in: $0) }
            #expect(cleared == [ViewChanges(isReset: true)])
            #expect(try db.read { try $0[handle].numberOfItems() } == 0)
        }
    }

    /// Registering a view over stored objects (and again after unregistering it) lists every one of them
    /// in order, and the rebuilt state is what `verifyExtensions()` recomputes.
    @Test func aViewRegisteredOverStoredObjectsListsThemAll() throws {
        try withStore { db, _ in
            var model: [YapDB.Index: Item] = [:]
            try db.write { txn in
                for n in 0..<700 {
                    let item = Item(category: ["a", "b", "hidden", ""][n % 4], price: Double((n * 37) % 101), name: "")
                    try txn.setObject(item, forKey: "k\(n)", inCollection: n % 3 == 0 ? "more" : "items")
                    model[YapDB.Index(collection: n % 3 == 0 ? "more" : "items", key: "k\(n)")] = item
                }
            }
            for tag in ["1", "2"] {
                if tag == "2" { try db.unregisterExtension(named: "byCategory") }
                let view = try db.register(Self.byCategory(Calls(), tag: tag), named: "byCategory")
                var random = SplitMix(seed: 7)
                try db.read { txn in
                    try Self.check(txn, view, Self.expected(model), model: model, random: &random, "tag \(tag)")
                }
                #expect(try db.verifyExtensions().isEmpty, "tag \(tag)")
            }
        }
    }

    @Test func aRebuildIsReportedAsAReset() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            try db.register(Self.byCategory(Calls()), named: "byCategory")
        }
        let db = try Database(path: path)
        let stream = db.changes()
        let handle = try db.register(Self.byCategory(Calls(), tag: "2"), named: "byCategory")
        let changes = try stream.lease.subscription.takeBuffered().flatMap { try handle.changes(in: $0) }
        #expect(changes == [ViewChanges(isReset: true)])
        #expect(try handle.changes(in: Changeset.reset(after: 1, upTo: 5)) == [ViewChanges(isReset: true)])
    }
}

/// The group of an item key read from its bytes (without decoding the key) is the group it was
/// built with, whatever the group holds: NULs (escaped in the key), non-ASCII, nothing.
@Suite("View item keys")
struct ViewItemKeyTests {
    typealias List = ListRuntime<String, NoMetadata>

    @Test(arguments: ["", "a", "a\u{0}b", "\u{0}", "\u{0}\u{0}", "ü-グループ", "tail\u{0}", String(repeating: "g", count: 300)])
    func theGroupKeyOfAnItemKeyIsTheGroupsKey(group: String) throws {
        for sort in [TupleKey([]), TupleKey([.string("\u{0}s")]), TupleKey([.int(-5), .double(2.5)])] {
            let itemKey = List.itemKey(group: group, sort: sort, index: YapDB.Index(collection: "c\u{0}", key: "k"))
            #expect(try List.groupKey(ofItemKey: itemKey) == List.groupKey(group))
            #expect(try List.split(itemKey: itemKey).group == group)
        }
    }

    @Test func anItemKeyThatDoesNotStartWithAStringIsCorrupt() {
        for bytes: [UInt8] in [[], [TupleTypeByte.string], [0x15, 1, 2, 0], [TupleTypeByte.string, 0x61, 0x62]] {
            #expect(throws: LarderError.self) { try List.groupKey(ofItemKey: bytes) }
        }
    }
}
