import Foundation
import Testing
@testable import Larder

/// A followed view (`db.observe(view, groups:range:)`) against a model: after random writes each
/// element shows what the model says, its row changes turn the element before into it, and its
/// updates are exactly the shown items that were written and kept their place.
@Suite("Following a view")
struct ViewObservationTests {
    static let groups = ["a", "b", "c"]

    static func byCategory(_ tag: String = "1") -> AutoView<Item, NoMetadata> {
        AutoView(collections: ["items"], versionTag: tag, grouping: { _, item in item.category == "hidden" ? nil : item.category },
                 sorting: { _, item in TupleKey(item.price) })
    }

    /// What the model shows: for each group (every group holding items when `groups` is `nil`),
    /// its size and the indexes `range` shows.
    static func expected(_ model: [String: Item], groups: [String]?, range: ViewRange) -> [(group: String, count: Int, indexes: [YapDB.Index])] {
        var byGroup: [String: [(TupleKey, YapDB.Index)]] = [:]
        for (key, item) in model where item.category != "hidden" {
            byGroup[item.category, default: []].append((TupleKey([.double(item.price), .string("items"), .string(key)]), YapDB.Index(collection: "items", key: key)))
        }
        let names = groups ?? byGroup.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        return names.map { group in
            let sorted = (byGroup[group] ?? []).sorted { $0.0 < $1.0 }.map(\.1)
            let positions = range.positions(inGroupOf: sorted.count)
            return (group, sorted.count, Array(sorted[positions]))
        }
    }

    /// Applies `page`'s changes to `previous` (indexes by section, groups named) as a batch-updating
    /// list does.
    static func apply(_ page: ViewPage<Item>, to previous: [(group: String, indexes: [YapDB.Index])], sourceLocation: SourceLocation = #_sourceLocation) -> [(group: String, indexes: [YapDB.Index])] {
        var sections = previous
        let removals = page.rowChanges.filter { $0.kind == .delete || $0.kind == .move }
            .sorted { ($0.from!.section, $0.from!.row) > ($1.from!.section, $1.from!.row) }
        for change in removals {
            let from = change.from!
            guard sections.indices.contains(from.section), sections[from.section].indexes.indices.contains(from.row),
                  sections[from.section].indexes[from.row] == change.index else {
                Issue.record("cannot remove \(change)", sourceLocation: sourceLocation)
                return sections
            }
            sections[from.section].indexes.remove(at: from.row)
        }
        for change in page.sectionChanges.filter({ $0.kind == .delete }).sorted(by: { $0.section > $1.section }) {
            sections.remove(at: change.section)
        }
        for change in page.sectionChanges.filter({ $0.kind == .insert }).sorted(by: { $0.section < $1.section }) {
            sections.insert((change.group, page.sections[change.section].items.map(\.index)), at: change.section)
        }
        let insertions = page.rowChanges.filter { $0.kind == .insert || $0.kind == .move }
            .sorted { ($0.to!.section, $0.to!.row) < ($1.to!.section, $1.to!.row) }
        for change in insertions {
            let to = change.to!
            guard sections.indices.contains(to.section), to.row <= sections[to.section].indexes.count else {
                Issue.record("cannot insert \(change)", sourceLocation: sourceLocation)
                return sections
            }
            sections[to.section].indexes.insert(change.index, at: to.row)
        }
        return sections
    }

    @Test(arguments: [
        (groups: ["a", "b", "c"] as [String]?, range: ViewRange.first(5), seed: UInt64(1)),
        (groups: nil, range: ViewRange.all, seed: UInt64(2)),
        (groups: ["c", "a"], range: ViewRange.last(4), seed: UInt64(3)),
        (groups: nil, range: ViewRange.positions(2..<6), seed: UInt64(4)),
    ])
    func randomWritesKeepTheElementsTrue(groups: [String]?, range: ViewRange, seed: UInt64) async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let view = try db.register(Self.byCategory(), named: "byCategory")
        var random = SplitMix(seed: seed)
        var model: [String: Item] = [:]
        var pages = db.observe(view, groups: groups, range: range).makeAsyncIterator()
        var previous = try #require(try await next(&pages))
        #expect(previous.isReset && previous.rowChanges.isEmpty)
        var written: Set<String> = []
        let rounds = 80 * modelTestScale
        for _ in 0..<rounds {
            let before = Self.expected(model, groups: groups, range: range)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                var batch: [(String, Item?)] = []
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let key = "k\(Int.random(in: 0..<20, using: &random))"
                    let choice = Int.random(in: 0..<10, using: &random)
                    if choice < 2 {
                        batch.append((key, nil))
                    } else {
                        let category = ["a", "b", "c", "d", "hidden"][Int.random(in: 0..<5, using: &random)]
                        let price = Double(Int.random(in: 0..<8, using: &random))
                        batch.append((key, Item(category: category, price: price, name: "n\(Int.random(in: 0..<3, using: &random))")))
                    }
                }
                try await db.write { [batch] txn in
                    for (key, item) in batch {
                        if let item { try txn.setObject(item, forKey: key, inCollection: "items") } else { _ = try txn.removeObject(forKey: key, inCollection: "items") }
                    }
                }
                for (key, item) in batch {
                    if model[key] != nil || item != nil { written.insert(key) }
                    model[key] = item
                }
            }
            let after = Self.expected(model, groups: groups, range: range)
            let shownBefore = Set(before.flatMap(\.indexes))
            let visibleUpdate = after.contains { $0.indexes.contains { shownBefore.contains($0) && written.contains($0.key) } }
            let changed = before.map(\.group) != after.map(\.group) || zip(before, after).contains { $0.count != $1.count || $0.indexes != $1.indexes }
            guard changed || visibleUpdate else { continue }  // nothing shown changed: no element comes

            let page = try #require(try await next(&pages), "no element after a change the model shows")
            #expect(!page.isReset)
            #expect(page.sections.map(\.group) == after.map(\.group))
            #expect(page.sections.map(\.numberOfItems) == after.map(\.count))
            #expect(page.indexes == after.map(\.indexes))
            let applied = Self.apply(page, to: previous.sections.map { ($0.group, $0.items.map(\.index)) })
            #expect(applied.map(\.indexes) == page.indexes, "the changes do not turn the element before into this one")
            // Updates: exactly the written items shown before and after at a kept place.
            let moved = Set(page.rowChanges.filter { $0.kind != .update }.map(\.index))
            let updated = Set(page.rowChanges.filter { $0.kind == .update }.map(\.index))
            let previouslyShown = Set(previous.sections.flatMap { section in section.items.map { "\(section.group)/\($0.index.key)" } })
            var expectedUpdates: Set<YapDB.Index> = []
            for section in page.sections {
                for item in section.items where written.contains(item.index.key) && !moved.contains(item.index) && previouslyShown.contains("\(section.group)/\(item.index.key)") {
                    expectedUpdates.insert(item.index)
                }
            }
            #expect(updated == expectedUpdates)
            for section in page.sections {
                for item in section.items { #expect(model[item.index.key] == item.object) }
            }
            previous = page
            written = []
        }
    }

    @Test func objectsAndPositionsReadAnElementWithoutDiggingIntoIt() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let view = try db.register(Self.byCategory(), named: "byCategory")
        try await db.write { txn in
            for (n, category) in ["b", "a", "b", "a", "c"].enumerated() {
                try txn.setObject(Item(category: category, price: Double(10 - n), name: "i\(n)"), forKey: "k\(n)", inCollection: "items")
            }
        }
        let observation = db.observe(view, groups: ["b", "a"], range: .first(5))
        var pages = observation.makeAsyncIterator()
        let first = try #require(try await next(&pages))
        // Sections in the order asked, each by price.
        #expect(first.sections.map { $0.objects.map(\.name) } == [["i2", "i0"], ["i3", "i1"]])
        #expect(first.objects.map(\.name) == ["i2", "i0", "i3", "i1"])
        #expect(first[ViewPage<Item>.Position(section: 1, row: 0)].object.name == "i3")
        try await db.write { try $0.setObject(Item(category: "a", price: 0, name: "i9"), forKey: "k9", inCollection: "items") }
        let second = try #require(try await next(&pages))
        let inserted = try #require(second.rowChanges.first { $0.kind == .insert })
        #expect(second[try #require(inserted.to)].index.key == "k9")
        #expect(second.objects.map(\.name) == ["i2", "i0", "i9", "i3", "i1"])
        // The form a list with one section follows.
        var names = db.observe(view, groups: ["c"], range: .all).map { $0.objects.map(\.name) }.makeAsyncIterator()
        #expect(try await names.next() == ["i4"])
    }

    @Test func aSlidingWindowComesAtOnceWithTheRowsThatLeftAndEntered() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let view = try db.register(Self.byCategory(), named: "byCategory")
        try await db.write { txn in
            for n in 0..<20 { try txn.setObject(Item(category: "a", price: Double(n), name: ""), forKey: "k\(n)", inCollection: "items") }
        }
        let observation = db.observe(view, groups: ["a"], range: .positions(0..<5))
        var pages = observation.makeAsyncIterator()
        let first = try #require(try await next(&pages))
        #expect(first.indexes == [(0..<5).map { YapDB.Index(collection: "items", key: "k\($0)") }])
        observation.setRange(.positions(3..<8))
        let slid = try #require(try await next(&pages))
        #expect(slid.commit == first.commit && !slid.isReset)
        #expect(slid.sections[0].positions == 3..<8)
        #expect(slid.indexes == [(3..<8).map { YapDB.Index(collection: "items", key: "k\($0)") }])
        #expect(Self.apply(slid, to: [("a", first.indexes[0])]).map(\.indexes) == slid.indexes)
        #expect(Set(slid.rowChanges.filter { $0.kind == .delete }.map(\.index.key)) == ["k0", "k1", "k2"])
        #expect(Set(slid.rowChanges.filter { $0.kind == .insert }.map(\.index.key)) == ["k5", "k6", "k7"])
    }

    @Test func aRebuiltViewGivesAResetElement() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let view = try db.register(Self.byCategory(), named: "byCategory")
        try await db.write { txn in
            for n in 0..<6 { try txn.setObject(Item(category: n < 3 ? "a" : "hidden", price: Double(n), name: ""), forKey: "k\(n)", inCollection: "items") }
        }
        var pages = db.observe(view, groups: nil).makeAsyncIterator()
        #expect(try #require(try await next(&pages)).indexes.map(\.count) == [3])
        // Registered again with another definition: rebuilt from the same objects, no object written.
        try rebuild(db, showing: "hidden")
        let page = try #require(try await next(&pages))
        #expect(page.isReset && page.rowChanges.isEmpty)
        #expect(page.sections.map(\.group) == ["hidden"])
        #expect(page.indexes.map(\.count) == [3])
    }

    @Test func anotherProcessesCommitsReachTheElements() async throws {
        let helper = try #require(ProcessTestSupport.helperExecutable(), "larder-test-helper not found beside the test binary")
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        // The view the helper registers too (a view is kept by the processes that register it).
        let view = try db.register(AutoView<String, NoMetadata>(collections: ["followed"], versionTag: "1", grouping: { _, _ in "all" }, sorting: { index, _ in TupleKey(index.key) }), named: "followed")
        var pages = db.observe(view, groups: ["all"]).makeAsyncIterator()
        #expect(try #require(try await next(&pages)).indexes == [[]])
        let run = try ProcessTestSupport.run(helper, ["commit-view", path, "3"])
        #expect(run.status == 0, "helper failed: \(run.standardError)")
        db.checkForExternalChanges()
        var shown: [String] = []
        var previous: [YapDB.Index] = []
        while shown != ["f0", "f1", "f2"] {
            let page = try #require(try await next(&pages), "the other process's commits did not arrive")
            #expect(!page.isReset)
            #expect(Self.applyStrings(page, to: previous) == page.indexes[0])
            previous = page.indexes[0]
            shown = previous.map(\.key)
        }
    }

    /// ``apply(_:to:)`` for one section of a view of strings.
    static func applyStrings(_ page: ViewPage<String>, to previous: [YapDB.Index]) -> [YapDB.Index] {
        var list = previous
        for change in page.rowChanges.filter({ $0.kind == .delete || $0.kind == .move }).sorted(by: { $0.from!.row > $1.from!.row }) {
            list.remove(at: change.from!.row)
        }
        for change in page.rowChanges.filter({ $0.kind == .insert || $0.kind == .move }).sorted(by: { $0.to!.row < $1.to!.row }) {
            list.insert(change.index, at: change.to!.row)
        }
        return list
    }

    @Test func theLongestRunThatKeptItsOrderStays() {
        #expect(ViewPage<Int>.longestIncreasingRun([]) == [])
        #expect(ViewPage<Int>.longestIncreasingRun([0, 1, 2]) == [0, 1, 2])
        #expect(ViewPage<Int>.longestIncreasingRun([2, 1, 0]).count == 1)
        #expect(ViewPage<Int>.longestIncreasingRun([3, 0, 1, 2]) == [1, 2, 3])
        #expect(ViewPage<Int>.longestIncreasingRun([1, 0, 3, 2, 4]).count == 3)
    }
}

/// Unregisters the view and registers it again, hiding `hidden` (from synchronous code).
private func rebuild(_ db: Database, showing hidden: String) throws {
    try db.unregisterExtension(named: "byCategory")
    try db.register(AutoView<Item, NoMetadata>(collections: ["items"], versionTag: "2", grouping: { _, item in item.category == hidden ? item.category : nil },
                                               sorting: { _, item in TupleKey(item.price) }), named: "byCategory")
}
