import Testing
import Larder

/// Documentation/ComingFromYapDatabase.md.
@Suite("Samples: Coming from YapDatabase")
struct ComingFromYapDatabaseSamples: SampleSuite {
    let environment = SampleEnvironment()

    struct Product: Codable, Sendable, Persistable {
        static let collection = "products"
        var id: String
        var name: String
        var price: Double
    }

    @Test func connectionCalls() throws {
        let db = try sampleStore()

        let connection = db.newConnection()
        try connection.write(Product(id: "p1", name: "Hammer", price: 24))   // connection.write(item)
        let hammer = try connection.read(Product.self, key: "p1")            // connection.readByKey("p1")
        let index = YapDB.Index(collection: "products", key: "p1")
        let same = try connection.read { try $0.object(at: index, as: Product.self) }   // readAtIndex(index)
        try connection.remove(hammer!)                                        // connection.remove(item)

        #expect(hammer?.name == "Hammer")
        #expect(same?.price == 24)
        #expect(try connection.read(Product.self, key: "p1") == nil)
    }
}
