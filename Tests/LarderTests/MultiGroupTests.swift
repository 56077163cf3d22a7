import Foundation
import Testing
@testable import Larder

/// An object in several groups of a view (a note under each of its tags) and with several
/// entries in an index, against a brute-force model: reads, change reports applied to a list,
/// filtered views, index queries, full-text search in a group, verification.
@Suite("Objects in several groups")
struct MultiGroupTests {
    struct Note: Codable, Sendable, Equatable {
        var tags: [String]
        var rank: Int
        var text: String = ""
    }

    static let byTag = AutoView<Note, NoMetadata>(collections: ["notes"], versionTag: "1", groups: { _, note in note.tags },
                                                  sorting: { _, note in TupleKey(note.rank) })

    static func expected(_ model: [String: Note], where keep: (String, Note) -> Bool = { _, _ in true }) -> [String: [YapDB.Index]] {
        var groups: [String: [(TupleKey, YapDB.Index)]] = [:]
        for (key, note) in model {
            for tag in Set(note.tags.map { ExactString($0) }) where keep(tag.string, note) {
                groups[tag.string, default: []].append((TupleKey([.int(Int64(note.rank)), .string("notes"), .string(key)]), YapDB.Index(collection: "notes", key: key)))
            }
        }
        return groups.mapValues { $0.sorted { $0.0 < $1.0 }.map(\.1) }
    }

    @Test func aViewWithSeveralGroupsPerObjectAgreesWithAModel() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix(seed: seed)
        try withStore { db, _ in
            let view = try db.register(Self.byTag, named: "byTag")
            let low = try db.register(FilteredView(parent: view, versionTag: "1") { group, _, note, _ in group != "b" && note.rank < 5 }, named: "low")
            let index = try db.register(SecondaryIndex<Note, NoMetadata>(collections: ["notes"], versionTag: "1", entries: { _, note in
                note.tags.map { TupleKey($0, note.rank) }
            }), named: "byTagAndRank")
            let stream = db.changes()
            var model: [String: Note] = [:]
            var lists: [String: [String: [YapDB.Index]]] = ["byTag": [:], "low": [:]]
            let tags = ["a", "b", "c", "é", "d", ""]  // groups told apart by bytes: ExactNameTests
            for step in 0..<(80 * modelTestScale) {
                var next = model
                let keep = Int.random(in: 0..<8, using: &random) > 0
                try db.write { txn in
                    for _ in 0..<Int.random(in: 1...6, using: &random) {
                        let key = "n\(Int.random(in: 0..<25, using: &random))"
                        let noteTags = (0..<Int.random(in: 0...4, using: &random)).map { _ in tags.randomElement(using: &random)! }
                        let note = Note(tags: noteTags, rank: Int.random(in: 0..<10, using: &random))
                        switch Int.random(in: 0..<20, using: &random) {
                        case 0..<13:
                            try txn.setObject(note, forKey: key, inCollection: "notes")
                            next[key] = note
                        case 13..<17:
                            _ = try txn.removeObject(forKey: key, inCollection: "notes")
                            next[key] = nil
                        case 17, 18:
                            _ = try txn.touchObject(forKey: key, inCollection: "notes")
                        default:
                            try txn.removeAllObjects(inCollection: "notes")
                            next = [:]
                        }
                    }
                    if !keep { txn.rollback() }
                }
                if keep { model = next }
                let note = "seed \(seed) step \(step)"
                for changeset in stream.lease.subscription.takeBuffered() {
                    for changes in try view.changes(in: changeset) { ViewTests.apply(changes, to: &lists["byTag"]!) }
                    for changes in try low.changes(in: changeset) { ViewTests.apply(changes, to: &lists["low"]!) }
                }
                let all = Self.expected(model)
                let lowOnes = Self.expected(model) { group, note in group != "b" && note.rank < 5 }
                #expect(lists["byTag"] == all, "\(note): the changes do not rebuild the list")
                #expect(lists["low"] == lowOnes, "\(note): the filtered changes do not rebuild the list")
                try db.read { txn throws in
                    let reader = try txn[view]
                    #expect(try reader.groups().sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } == all.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, "\(note)")
                    #expect(try reader.numberOfItems() == all.values.reduce(0) { $0 + $1.count }, "\(note)")
                    for (group, items) in all {
                        #expect(try reader.indexes(inGroup: group) == items, "\(note) group \(group)")
                        #expect(try txn[low].indexes(inGroup: group) == (lowOnes[group] ?? []), "\(note) filtered group \(group)")
                        for (position, item) in items.enumerated() {
                            let locations = try reader.locations(of: item)
                            #expect(locations.contains(ViewLocation(group: group, position: position)), "\(note)")
                            #expect(try reader.location(of: item) == locations.first)
                        }
                        let found = try txn[index].indexes(matching: .range(where: TupleKey(group), from: 0, to: 100))
                        #expect(Set(found) == Set(items), "\(note): the index's entries for \(group)")
                    }
                    let everything = try txn[index].indexes(matching: .all)
                    #expect(everything.count == Set(everything).count, "\(note): an object listed twice")
                    #expect(Set(everything) == Set(model.filter { !$0.value.tags.isEmpty }.keys.map { YapDB.Index(collection: "notes", key: $0) }), "\(note)")
                }
            }
            #expect(try db.verifyExtensions().isEmpty, "seed \(seed)")
        }
    }

    @Test func anObjectLeavingOneOfItsGroupsIsADeleteThereOnly() throws {
        try withStore { db, _ in
            let view = try db.register(Self.byTag, named: "byTag")
            try db.write { try $0.setObject(Note(tags: ["a", "b"], rank: 1), forKey: "n", inCollection: "notes") }
            let stream = db.changes()
            try db.write { try $0.setObject(Note(tags: ["b", "c"], rank: 1), forKey: "n", inCollection: "notes") }
            let changes = try stream.lease.subscription.takeBuffered().flatMap { try view.changes(in: $0) }
            let rows = Set(try #require(changes.first).rows.map { "\($0.kind) \($0.from?.description ?? "-") \($0.to?.description ?? "-")" })
            #expect(rows == ["delete a[0] -", "insert - c[0]", "update b[0] b[0]"])
            #expect(Set(changes[0].sections.map { "\($0.kind) \($0.group)" }) == ["delete a", "insert c"])
        }
    }

    @Test func searchInAGroupFindsAnObjectInSeveralGroups() throws {
        try withStore { db, _ in
            let view = try db.register(Self.byTag, named: "byTag")
            let search = try db.register(FullTextSearch<Note, NoMetadata>(collections: ["notes"], versionTag: "1", columnNames: ["text"]) { _, note in [note.text] }, named: "text")
            try db.write { txn in
                try txn.setObject(Note(tags: ["a", "b"], rank: 1, text: "cordless drill"), forKey: "drill", inCollection: "notes")
                // Group b large enough that the search looks each match up instead of walking it.
                for n in 0..<30 { try txn.setObject(Note(tags: ["b"], rank: n, text: "hammer \(n)"), forKey: "h\(n)", inCollection: "notes") }
            }
            try db.read { txn throws in
                for group in ["a", "b"] {
                    #expect(try txn[search].search("drill", inGroup: group, of: view).map(\.index.key) == ["drill"], "group \(group)")
                }
                #expect(try txn[search].search("drill", inGroup: "c", of: view).isEmpty)
                // The walk of a small group.
                #expect(try txn[search].search("hammer", inGroup: "b", of: view).count == 30)
            }
        }
    }
}
