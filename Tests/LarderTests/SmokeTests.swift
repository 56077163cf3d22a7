import Testing
@testable import Larder

@Suite struct SmokeTests {
    @Test func roundTrip() throws {
        try withStore { db, _ in
            try db.write { txn in
                try txn.setObject(Product(id: "a", name: "A", price: 1), forKey: "a", inCollection: "products")
            }
            let p = try db.read { try $0.object(forKey: "a", inCollection: "products", as: Product.self) }
            #expect(p?.name == "A")
            #expect(try db.read { try $0.numberOfKeys(inCollection: "products") } == 1)
        }
    }
}
