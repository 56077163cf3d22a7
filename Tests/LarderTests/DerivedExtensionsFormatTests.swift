import Foundation
import Synchronization
import Testing
@testable import Larder

/// Store format 4: views, filtered views and secondary indexes keep no map from an object to its
/// entries; a write derives an object's old entries from its previous bytes. A store written by
/// format 3 (which kept the maps) opens, its extensions register without a rebuild, the
/// registration empties their maps and records format 4, and writes to the objects format 3
/// wrote move, keep and remove their entries. A definition that answers differently for a value
/// that did not change is refused with `extensionInconsistent`, and the store is left as it was.
@Suite("Derived extensions format")
struct DerivedExtensionsFormatTests {
    struct Item: Codable, Sendable, Persistable, Equatable {
        static let collection = "items"
        var id: String
        var category: String
        var price: Int
    }

    struct Flag: Codable, Sendable, Equatable {
        var pinned: Bool
    }

    /// The definitions `Fixtures/larder-format3-extensions-store.dump` was written with.
    static func byCategory() -> AutoView<Item, Flag> {
        AutoView<Item, Flag>(collections: ["items"], versionTag: "1", metadata: Flag.self,
                             grouping: { _, item, _ in item.category },
                             sorting: { _, item, flag in TupleKey(flag?.pinned == true ? 0 : 1, item.price, item.id) })
    }

    static func cheap(_ parent: ViewHandle<Item, Flag>) -> FilteredView<Item, Flag> {
        FilteredView<Item, Flag>(parent: parent, versionTag: "1") { _, _, item, _ in item.price < 10 }
    }

    static func byPrice() -> SecondaryIndex<Item, NoMetadata> {
        SecondaryIndex<Item, NoMetadata>(collections: ["items"], versionTag: "1") { _, item in TupleKey(item.category, item.price) }
    }

    /// The fixture's objects: twelve items `i0`…`i11`, `i0`, `i4` and `i8` pinned; then `i5`
    /// removed and `i1` rewritten into "paint" at price 3.
    static func fixtureModel() -> [String: (Item, Flag?)] {
        var model: [String: (Item, Flag?)] = [:]
        for i in 0..<12 {
            let item = Item(id: "i\(i)", category: ["tools", "garden", "paint"][i % 3], price: (i * 7) % 20)
            model[item.id] = (item, i % 4 == 0 ? Flag(pinned: true) : nil)
        }
        model["i5"] = nil
        model["i1"] = (Item(id: "i1", category: "paint", price: 3), nil)
        return model
    }

    /// The view's groups as the model says: ids in (pinned first, price, id) order.
    static func expectedGroups(_ model: [String: (Item, Flag?)], filter: (Item) -> Bool = { _ in true }) -> [String: [String]] {
        var groups: [String: [(Item, Flag?)]] = [:]
        for (item, flag) in model.values where filter(item) { groups[item.category, default: []].append((item, flag)) }
        return groups.mapValues { entries in
            entries.sorted { a, b in
                TupleKey(a.1?.pinned == true ? 0 : 1, a.0.price, a.0.id) < TupleKey(b.1?.pinned == true ? 0 : 1, b.0.price, b.0.id)
            }.map(\.0.id)
        }
    }

    static func groups<O, M>(_ view: ViewHandle<O, M>, in db: Database) throws -> [String: [String]] {
        try db.read { txn in
            var found: [String: [String]] = [:]
            for group in try txn[view].groups() { found[group] = try txn[view].indexes(inGroup: group).map(\.key) }
            return found
        }
    }

    static func expectedIndex(_ model: [String: (Item, Flag?)]) -> [String] {
        model.values.map(\.0).sorted { TupleKey($0.category, $0.price, "items", $0.id) < TupleKey($1.category, $1.price, "items", $1.id) }.map(\.id)
    }

    /// The number of entries in the store's database `name`, `nil` when there is none.
    static func entryCount(_ name: String, in db: Database) throws -> Int? {
        try db.environment.read { lmdb in try lmdb.openExistingDatabase(name).map { try lmdb.count($0) } }
    }

    @Test func aFormatThreeStoreKeepsItsExtensionsDropsTheirMapsAndFollowsWrites() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("format3")
        try ChangeLogFormatTests.loadFixture("larder-format3-extensions-store.dump", at: path)

        let db = try Database(path: path)
        #expect(try db.statistics().formatVersion == 3)
        #expect(try Self.entryCount("x.byCategory.map", in: db) == 11)
        #expect(try Self.entryCount("x.byPrice.map", in: db) == 11)

        // Same tags: no rebuild (no progress reported), and the state format 3 wrote reads.
        var rebuilt: [String] = []
        let view = try db.register(Self.byCategory(), named: "byCategory") { rebuilt.append($0.extensionName) }
        let cheap = try db.register(Self.cheap(view), named: "cheap") { rebuilt.append($0.extensionName) }
        let index = try db.register(Self.byPrice(), named: "byPrice") { rebuilt.append($0.extensionName) }
        #expect(rebuilt.isEmpty)
        #expect(try db.statistics().formatVersion == 6)  // 4 (no maps), and 6: the first write moved the records
        for name in ["x.byCategory.map", "x.cheap.map", "x.byPrice.map"] { #expect(try Self.entryCount(name, in: db) == 0, "\(name)") }

        var model = Self.fixtureModel()
        func check(_ step: String) throws {
            #expect(try Self.groups(view, in: db) == Self.expectedGroups(model), "\(step)")
            #expect(try Self.groups(cheap, in: db) == Self.expectedGroups(model) { $0.price < 10 }, "\(step)")
            #expect(try db.read { try $0[index].indexes().map(\.key) } == Self.expectedIndex(model), "\(step)")
            #expect(try db.verifyExtensions().isEmpty, "\(step)")
        }
        try check("as format 3 left it")

        // Objects format 3 wrote: moved within a group, to another group, out of the filter,
        // unpinned, removed; and a new one.
        try db.write { txn in
            try txn.write(Item(id: "i2", category: "paint", price: 15))  // within its group, out of "cheap"
            try txn.write(Item(id: "i3", category: "garden", price: 1))  // to another group
            try txn.replaceMetadata(nil as Flag?, forKey: "i4", inCollection: Item.collection)  // unpinned
            try txn.removeObject(forKey: "i7", inCollection: Item.collection)
            try txn.setObject(Item(id: "i9", category: "tools", price: 2), forKey: "i9", inCollection: Item.collection, metadata: Flag(pinned: true))
            try txn.write(Item(id: "n1", category: "tools", price: 4))
        }
        model["i2"] = (Item(id: "i2", category: "paint", price: 15), model["i2"]!.1)
        model["i3"] = (Item(id: "i3", category: "garden", price: 1), nil)
        model["i4"] = (model["i4"]!.0, nil)
        model["i7"] = nil
        model["i9"] = (Item(id: "i9", category: "tools", price: 2), Flag(pinned: true))
        model["n1"] = (Item(id: "n1", category: "tools", price: 4), nil)
        try check("after writes to the old objects")
        #expect(try db.checkStructure().problems.isEmpty)
    }

    /// A grouping (or columns) closure that reads state outside its arguments.
    static let outside = Mutex<String>("a")

    @Test func aDefinitionThatAnswersDifferentlyForTheSameValueIsRefused() throws {
        try withStore { db, _ in
            let view = try db.register(AutoView<Item, NoMetadata>(collections: ["items"], versionTag: "1",
                                                                  grouping: { _, item in item.category + Self.outside.withLock { $0 } },
                                                                  sorting: { _, item in TupleKey(item.price) }), named: "impure")
            let index = try db.register(SecondaryIndex<Item, NoMetadata>(collections: ["other"], versionTag: "1") { _, item in
                TupleKey(item.category + Self.outside.withLock { $0 })
            }, named: "impureIndex")
            try db.write { txn in
                try txn.write(Item(id: "i1", category: "c", price: 1))
                try txn.setObject(Item(id: "o1", category: "c", price: 1), forKey: "o1", inCollection: "other")
            }
            Self.outside.withLock { $0 = "b" }
            defer { Self.outside.withLock { $0 = "a" } }
            // The old entries are not where the definitions now put the unchanged values.
            #expect { try db.write { try $0.write(Item(id: "i1", category: "c", price: 2)) } } throws: {
                ($0 as? LarderError)?.code == .extensionInconsistent && ($0 as? LarderError)?.extensionName == "impure"
            }
            #expect { try db.write { try $0.removeObject(forKey: "o1", inCollection: "other") } } throws: {
                ($0 as? LarderError)?.code == .extensionInconsistent && ($0 as? LarderError)?.extensionName == "impureIndex"
            }
            // Nothing changed, and registering with a new tag rebuilds what the definitions say now.
            #expect(try db.read { try $0.object(forKey: "i1", inCollection: "items", as: Item.self)?.price } == 1)
            #expect(try db.read { try $0.hasObject(forKey: "o1", inCollection: "other") })
            #expect(try db.read { try $0[view].groups() } == ["ca"])
            #expect(try db.read { try $0[index].count() } == 1)
            try db.unregisterExtension(named: "impure")
            try db.unregisterExtension(named: "impureIndex")
        }
    }
}
