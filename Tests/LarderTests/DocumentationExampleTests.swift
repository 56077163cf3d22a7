import Foundation
import Testing
import Larder

/// The code samples of README.md and Documentation/GettingStarted.md, kept compiling and running.
@Suite("Documentation examples")
struct DocumentationExampleTests {
    struct Product: Codable, Persistable {
        static let collection = "products"
        var id: String
        var name: String
        var price: Double
    }

    struct Stock: Codable { var count: Int }

    @Test func readmeExample() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("shop"))

        try await db.write { txn in
            try txn.write(Product(id: "p1", name: "Hammer", price: 24), metadata: Stock(count: 4))
            try txn.setObject(Product(id: "p2", name: "Saw", price: 31.5), forKey: "p2", inCollection: "products")
        }

        let hammer = try await db.read { try $0.read(Product.self, key: "p1") }
        let stock = try await db.read { try $0.metadata(forKey: "p1", inCollection: "products", as: Stock.self) }
        let keys = try await db.read { try $0.keys(inCollection: "products", range: .prefix("p")) }

        let total = try await db.write { txn in
            try txn.removeObject(forKey: "p2", inCollection: "products")
            return try txn.numberOfKeys(inCollection: "products")
        }

        #expect(hammer?.name == "Hammer")
        #expect(stock?.count == 4)
        #expect(keys == ["p1", "p2"])
        #expect(total == 1)
    }

    @Test func readmeObservation() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("shop"))
        try await db.write { try $0.write(Product(id: "p1", name: "Hammer", price: 24)) }
        var prices: [Double?] = []
        for try await product in db.observe(Product.self, id: "p1") {
            prices.append(product?.price)
            if prices.count == 2 { break }
            try await db.write { try $0.write(Product(id: "p1", name: "Hammer", price: 26)) }
        }
        #expect(prices == [24, 26])
    }

    /// Documentation/Changes.md, "Pinned snapshots".
    @Test func pinnedSnapshotGuide() throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("shop"))
        let ui = db.newConnection()
        try ui.pinSnapshot()
        try db.write { try $0.write(Product(id: "p1", name: "Hammer", price: 24)) }
        #expect(try ui.read { try $0.read(Product.self, key: "p1") } == nil)
        let changes = try ui.advanceSnapshot()
        #expect(changes.hasChange(inCollection: "products"))
        #expect(try ui.read { try $0.read(Product.self, key: "p1") }?.price == 24)
    }

    struct Tool: Codable, Sendable, Persistable {
        static let collection = "products"
        var id: String
        var category: String
        var price: Double
        var stock: Int
    }

    /// Documentation/Extensions.md, the opening example.
    @Test func extensionsGuide() throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("shop"))
        try db.write { txn in
            try txn.write(Tool(id: "t1", category: "tools", price: 12, stock: 0))
            try txn.write(Tool(id: "t2", category: "tools", price: 30, stock: 2))
            try txn.write(Tool(id: "t3", category: "toys", price: 5, stock: 1))
        }
        let byCategory = try db.register(View<Tool, NoMetadata>(collections: ["products"], versionTag: "1",
            grouping: { _, product in product.category },
            sorting: { _, product in TupleKey(product.price, product.id) }), named: "byCategory")
        let inStock = try db.register(FilteredView(parent: byCategory, versionTag: "1") { _, _, product, _ in product.stock > 0 },
                                      named: "inStock")
        let byPrice = try db.register(SecondaryIndex<Tool, NoMetadata>(collections: ["products"], versionTag: "1") { _, product in
            TupleKey(product.category, product.price)
        }, named: "byPrice")

        try db.read { txn in
            let firstPage = try txn[byCategory].objects(inGroup: "tools", positions: 0..<20)
            let cheapTools = try txn[byPrice].indexes(matching: .range(where: TupleKey("tools"), from: 0.0, to: 20.0))
            #expect(firstPage.map(\.object.id) == ["t1", "t2"])
            #expect(cheapTools.map(\.key) == ["t1"])
            #expect(try txn[inStock].indexes(inGroup: "tools").map(\.key) == ["t2"])
        }
    }

    struct Note: Codable, Persistable {
        static let collection = "notes"
        var id: String
        var text: String
    }

    @Test func gettingStarted() throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        try db.write { txn in
            try txn.write(Note(id: "n1", text: "Buy nails"))
        }
        let note = try db.read { try $0.read(Note.self, key: "n1") }
        try db.write { try $0.setObject(42, forKey: "answer", inCollection: "settings") }
        let answer = try db.read { try $0.object(forKey: "answer", inCollection: "settings", as: Int.self) }
        #expect(note?.text == "Buy nails")
        #expect(answer == 42)
    }
}
