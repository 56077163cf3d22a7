import Testing
import Larder

/// Documentation/Transactions.md.
@Suite("Samples: Transactions")
struct TransactionsSamples: SampleSuite {
    let environment = SampleEnvironment()

    @Test func savepoints() throws {
        let db = try sampleStore()
        struct CardDeclined: Error {}
        try db.write { txn in
            try txn.write(Product(id: "p9", name: "Saw", price: 30))
            do {
                try txn.savepoint { txn in
                    try txn.setObject("reserved", forKey: "p9", inCollection: "stock")
                    throw CardDeclined()   // the reservation is undone, the product stays
                }
            } catch is CardDeclined {
                try txn.setObject("declined", forKey: "p9", inCollection: "payments")
            }
        }
        try db.read { txn throws in
            #expect(try txn.hasObject(forKey: "p9", inCollection: "products"))
            #expect(try !txn.hasObject(forKey: "p9", inCollection: "stock"))
            #expect(try txn.object(forKey: "p9", inCollection: "payments", as: String.self) == "declined")
        }
    }

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
