import Testing
import Larder

/// Documentation/Transactions.md.
@Suite("Samples: Transactions")
struct TransactionsSamples: SampleSuite {
    let environment = SampleEnvironment()

    struct Product: Codable, Sendable, Persistable {
        static let collection = "products"
        var id: String
        var name: String
        var price: Double
    }

    @Test func oneProtocolForDatabaseAndConnection() throws {
        let db = try sampleStore()
        try db.write(Product(id: "p1", name: "Hammer", price: 10))

        func rename(_ id: String, to name: String, in store: some DatabaseAccess) throws {
            try store.write(undoable: "Rename") { txn in
                guard var product = try txn.read(Product.self, key: id) else { return }
                product.name = name
                try txn.write(product)
            }
        }
        try rename("p1", to: "Claw hammer", in: db)                  // through the database's caches
        try rename("p1", to: "Claw hammer", in: db.newConnection())  // or a connection's

        #expect(try db.read(Product.self, key: "p1")?.name == "Claw hammer")
        // The second rename stored the same bytes: one step, undone from a connection.
        #expect(try db.undoHistory().undoable.map(\.name) == ["Rename"])
        #expect(try db.newConnection().undo()?.name == "Rename")
        #expect(try db.read(Product.self, key: "p1")?.name == "Hammer")
    }
}
