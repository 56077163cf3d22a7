import Testing
import Larder

/// README.md.
@Suite("Samples: README")
struct ReadmeSamples: OpensStoresByPath {
    let environment = SampleEnvironment()

    @Test func theShortExampleAndObservation() async throws {
        struct Product: Codable, Persistable {
            static let collection = "products"
            var id: String
            var name: String
            var price: Double
        }
        struct Stock: Codable { var count: Int }

        let db = try Database(path: "/tmp/shop")
        try await db.write { txn in
            try txn.write(Product(id: "p1", name: "Hammer", price: 24), metadata: Stock(count: 4))
            try txn.setObject(Product(id: "p2", name: "Saw", price: 31.5), forKey: "p2", inCollection: "products")
        }
        let hammer = try await db.read { try $0.read(Product.self, key: "p1") }           // Product?
        let stock = try await db.read { try $0.metadata(forKey: "p1", inCollection: "products", as: Stock.self) }
        let keys = try await db.read { try $0.keys(inCollection: "products", range: .prefix("p")) }
        let left = try await db.write { txn in
            try txn.remove(Product.self, key: "p2")
            return try txn.numberOfKeys(inCollection: "products")
        }

        #expect(db.path.hasPrefix(environment.directory))
        #expect(hammer?.name == "Hammer")
        #expect(stock?.count == 4)
        #expect(keys == ["p1", "p2"])
        #expect(left == 1)

        let observer = Task {
            for try await product in db.observe(Product.self, id: "p1") {
                print(product?.price as Any)   // now, then after every commit that changes p1
            }
        }
        try await eventually { environment.printed.count == 1 }
        try await db.write { try $0.write(Product(id: "p1", name: "Hammer", price: 26)) }
        try await eventually { environment.printed.count == 2 }
        observer.cancel()
        try await observer.value
        #expect(environment.printed == ["Optional(24.0)", "Optional(26.0)"])
    }
}
