import Testing
import Larder

/// Documentation/Extensions.md.
@Suite("Samples: Extensions")
struct ExtensionsSamples: SampleSuite {
    let environment = SampleEnvironment()

    @Test func theOpeningExample() throws {
        let db = try sampleStore()

        struct Product: Codable, Sendable, Persistable { static let collection = "products"; var id: String; var category: String; var price: Double; var stock: Int }

        let byCategory = try db.register(AutoView<Product, NoMetadata>(collections: ["products"], versionTag: "1",
            grouping: { _, product in product.category },
            sorting: { _, product in TupleKey(product.price, product.id) }), named: "byCategory")
        let inStock = try db.register(FilteredView(parent: byCategory, versionTag: "1") { _, _, product, _ in product.stock > 0 },
                                      named: "inStock")
        let byPrice = try db.register(SecondaryIndex<Product, NoMetadata>(collections: ["products"], versionTag: "1") { _, product in
            TupleKey(product.category, product.price)
        }, named: "byPrice")

        try db.write { txn in   // the view and the index are updated inside this transaction
            try txn.write([Product(id: "p1", category: "tools", price: 12, stock: 0),
                           Product(id: "p2", category: "tools", price: 30, stock: 2),
                           Product(id: "p3", category: "toys", price: 5, stock: 1)])
        }
        let (firstPage, cheapTools, toolsInStock) = try db.read { txn in
            (try txn[byCategory].objects(inGroup: "tools", positions: 0..<20),          // [(index, Product)], by price
             try txn[byPrice].indexes(matching: .range(where: TupleKey("tools"), from: 0.0, to: 20.0)),
             try txn[inStock].numberOfItems(inGroup: "tools"))
        }

        #expect(firstPage.map(\.object.id) == ["p1", "p2"])
        #expect(cheapTools.map(\.key) == ["p1"])
        #expect(toolsInStock == 1)
        #expect(try db.verifyExtensions().isEmpty)
    }
}
