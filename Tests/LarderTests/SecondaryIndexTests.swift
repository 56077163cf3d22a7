import Foundation
import Synchronization
import Testing
@testable import Larder

struct Item: Codable, Sendable, Equatable {
    var category: String
    var price: Double
    var name: String
}

@Suite("Secondary indexes")
struct SecondaryIndexTests {
    static let categories = ["", "a", "ab", "b", "tools", "toys", "é"]

    static func byCategoryAndPrice() -> SecondaryIndex<Item, NoMetadata> {
        SecondaryIndex(collections: ["items", "more"], versionTag: "1") { _, item in
            item.price.isNaN ? nil : TupleKey(item.category, item.price)
        }
    }

    static func byName() -> SecondaryIndex<Item, NoMetadata> {
        SecondaryIndex(collections: ["items"], versionTag: "1") { _, item in TupleKey(item.name) }
    }

    /// Entries of the model: (columns, index), sorted as the index sorts them.
    static func expected(_ model: [YapDB.Index: Item], collections: Set<String>, _ columns: (Item) -> TupleKey?) -> [(TupleKey, YapDB.Index)] {
        model.compactMap { index, item -> (TupleKey, YapDB.Index)? in
            guard collections.contains(index.collection), let key = columns(item) else { return nil }
            return (key, index)
        }.sorted { a, b in
            TupleKey(a.0.components + [.string(a.1.collection), .string(a.1.key)]) < TupleKey(b.0.components + [.string(b.1.collection), .string(b.1.key)])
        }
    }

    @Test func queriesAgreeWithABruteForceModel() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix(seed: seed)
        try withStore { db, _ in
            let prices = db.newConnection()
            let index = try db.register(Self.byCategoryAndPrice(), named: "byPrice")
            let names = try db.register(Self.byName(), named: "byName")
            var model: [YapDB.Index: Item] = [:]
            func randomItem() -> Item {
                let price = [-10.5, -0.0, 0.0, 1, 2.5, 2.5, 19.99, 20, 1e9, .infinity, -.infinity, .nan][Int.random(in: 0..<12, using: &random)]
                return Item(category: Self.categories.randomElement(using: &random)!, price: price,
                            name: ["", "al", "alpha", "alps", "beta", "b\u{0}c"].randomElement(using: &random)! + String(Int.random(in: 0..<3, using: &random)))
            }
            for step in 0..<(120 * modelTestScale) {
                var next = model
                let keep = Int.random(in: 0..<10, using: &random) > 0
                try? prices.write { txn in
                    for _ in 0..<Int.random(in: 1...6, using: &random) {
                        let collection = ["items", "items", "more", "other"].randomElement(using: &random)!
                        let key = "k\(Int.random(in: 0..<25, using: &random))"
                        let at = YapDB.Index(collection: collection, key: key)
                        switch Int.random(in: 0..<20, using: &random) {
                        case 0..<11:
                            let item = randomItem()
                            try txn.setObject(item, forKey: key, inCollection: collection)
                            next[at] = item
                        case 11..<14:
                            if try txn.replaceObject(randomItem(), forKey: key, inCollection: collection) {
                                next[at] = try txn.object(forKey: key, inCollection: collection, as: Item.self)
                            }
                        case 14..<17:
                            try txn.removeObject(forKey: key, inCollection: collection)
                            next[at] = nil
                        case 17:
                            try txn.setObject("not an item", forKey: key, inCollection: collection)  // another type: not indexed
                            next[at] = nil
                        case 18:
                            try txn.touchObject(forKey: key, inCollection: collection)
                        default:
                            if Int.random(in: 0..<4, using: &random) == 0 {
                                try txn.removeAllObjects(inCollection: collection)
                                next = next.filter { $0.key.collection != collection }
                            }
                        }
                    }
                    if !keep { txn.rollback() }
                }
                if keep { model = next }

                let entries = Self.expected(model, collections: ["items", "more"]) { $0.price.isNaN ? nil : TupleKey($0.category, $0.price) }
                let nameEntries = Self.expected(model, collections: ["items"]) { TupleKey($0.name) }
                try db.read { txn in
                    let reader = try txn[index]
                    #expect(try reader.indexes() == entries.map(\.1), "seed \(seed) step \(step)")
                    #expect(try reader.indexes(order: .descending) == entries.reversed().map(\.1), "seed \(seed)")
                    #expect(try reader.count() == entries.count, "seed \(seed)")
                    let category = Self.categories.randomElement(using: &random)!
                    let inCategory = entries.filter { $0.0.components.first == .string(category) }
                    #expect(try reader.indexes(matching: .equal(TupleKey(category))) == inCategory.map(\.1), "seed \(seed)")
                    #expect(try reader.indexes(matching: .equal(TupleKey(category)), order: .descending, limit: 2) == Array(inCategory.reversed().prefix(2)).map(\.1), "seed \(seed)")

                    let bounds: [Double] = [-.infinity, -10.5, -0.0, 0.0, 2.5, 20, 1e9].shuffled(using: &random)
                    let (low, high) = (min(bounds[0], bounds[1]), max(bounds[0], bounds[1]))
                    let (fromInclusive, toInclusive) = (Bool.random(using: &random), Bool.random(using: &random))
                    func price(_ entry: (TupleKey, YapDB.Index)) -> TupleKey { TupleKey([entry.0.components[1]]) }
                    let inRange = inCategory.filter { entry in
                        let value = price(entry)
                        let aboveLow = fromInclusive ? !(value < TupleKey(low)) : TupleKey(low) < value
                        let belowHigh = toInclusive ? !(TupleKey(high) < value) : value < TupleKey(high)
                        return aboveLow && belowHigh
                    }
                    let query = IndexQuery.range(where: TupleKey(category), from: low, fromInclusive: fromInclusive, to: high, toInclusive: toInclusive)
                    #expect(try reader.indexes(matching: query) == inRange.map(\.1), "seed \(seed) \(category) \(low) \(high) \(fromInclusive) \(toInclusive)")
                    #expect(try reader.count(matching: query) == inRange.count, "seed \(seed)")
                    let open = entries.filter { $0.0.components.first == .string(category) && !(price($0) < TupleKey(low)) }
                    #expect(try reader.indexes(matching: .range(where: TupleKey(category), from: low)) == open.map(\.1), "seed \(seed)")

                    let objects = try reader.objects(matching: .equal(TupleKey(category)))
                    #expect(objects.map(\.index) == inCategory.map(\.1))
                    #expect(objects.allSatisfy { model[$0.index] == $0.object })

                    let stem = ["", "al", "alp", "b", "b\u{0}", "z"].randomElement(using: &random)!
                    let named = nameEntries.filter { entry in
                        guard case .string(let name) = entry.0.components[0] else { return false }
                        return name.utf8.starts(with: stem.utf8)
                    }
                    #expect(try txn[names].indexes(matching: .prefix(stringPrefix: stem)) == named.map(\.1), "seed \(seed) prefix \(stem)")
                }
            }
            #expect(try db.verifyExtensions().isEmpty, "seed \(seed)")
        }
    }

    @Test func metadataColumnsFollowMetadataChanges() throws {
        try withStore { db, _ in
            let byStock = SecondaryIndex<Item, Int>(collections: ["items"], versionTag: "1", metadata: Int.self) { _, _, stock in
                stock.map { TupleKey($0) }
            }
            let handle = try db.register(byStock, named: "byStock")
            let item = Item(category: "a", price: 1, name: "n")
            try db.write { txn in
                try txn.setObject(item, forKey: "x", inCollection: "items", metadata: 5)
                try txn.setObject(item, forKey: "y", inCollection: "items", metadata: 3)
                try txn.setObject(item, forKey: "z", inCollection: "items")
            }
            func order() throws -> [String] { try db.read { try $0[handle].indexes().map(\.key) } }
            #expect(try order() == ["y", "x"])
            _ = try db.write { try $0.replaceMetadata(1, forKey: "x", inCollection: "items") }
            #expect(try order() == ["x", "y"])
            _ = try db.write { try $0.removeMetadata(forKey: "y", inCollection: "items") }
            #expect(try order() == ["x"])
            _ = try db.write { try $0.replaceObject(item, forKey: "x", inCollection: "items") }  // metadata kept
            #expect(try order() == ["x"])
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func anEntryBeyondTheKeyLimitIsAClearErrorAndWritesNothing() throws {
        try withStore { db, _ in
            let wide = SecondaryIndex<Item, NoMetadata>(collections: ["items"], versionTag: "1") { _, item in TupleKey(item.name) }
            let handle = try db.register(wide, named: "wide")
            let error = #expect(throws: LarderError.self) {
                try db.write { try $0.setObject(Item(category: "", price: 0, name: String(repeating: "n", count: 600)), forKey: "x", inCollection: "items") }
            }
            #expect(error?.code == .keyTooLong)
            #expect(error?.extensionName == "wide")
            try db.read { txn throws in
                #expect(try !txn.hasObject(forKey: "x", inCollection: "items"))
                #expect(try txn[handle].count() == 0)
            }
        }
    }
}
