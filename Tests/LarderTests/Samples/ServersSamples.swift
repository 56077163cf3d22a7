import Dispatch
import Testing
import Larder

/// Documentation/Servers.md: the samples run as a server would run them, with concurrent requests.
@Suite("Samples: Servers")
struct ServersSamples: SampleSuite {
    let environment = SampleEnvironment()

    struct Product: Codable, Sendable, Persistable {
        static let collection = "products"
        var id: String
        var name: String
        var price: Double
    }

    /// The store of the process: made once at startup, shared by every request handler.
    final class Store: Sendable {
        let db: Database

        init(path: String) throws {
            var configuration = Database.Configuration()
            configuration.durability = .full   // a write is on the disk before its request is answered
            db = try Database(path: path, configuration: configuration)
        }
    }

    func createProduct(_ product: Product, in store: Store) async throws {
        try await store.db.write { txn in
            try txn.write(product)
        }
    }

    func product(id: String, in store: Store) async throws -> Product? {
        try await store.db.read { try $0.read(Product.self, key: id) }
    }

    func exportProducts(from store: Store) async throws -> [Product] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try store.db.read { try $0.readAll(Product.self) } })
            }
        }
    }

    func shutDown(_ store: Store, handlersInFlight: [Task<Void, any Error>]) async throws {
        for handler in handlersInFlight { _ = await handler.result }   // their writes are committed
        try store.db.sync()                                             // flushes a .deferred store
    }

    @Test func twoHundredConcurrentRequestsThenShutdown() async throws {
        let store = try Store(path: environment.directory + "/store")
        // 200 "requests", each a task as a server's handler would be, all writing at once.
        let requests = (0..<200).map { number in
            Task {
                try await createProduct(Product(id: "p\(number)", name: "Item \(number)", price: Double(number)), in: store)
            }
        }
        try await shutDown(store, handlersInFlight: requests)
        for request in requests { try await request.value }   // none failed
        #expect(try await product(id: "p42", in: store)?.name == "Item 42")
        #expect(try await product(id: "p200", in: store) == nil)
        let exported = try await exportProducts(from: store)
        #expect(exported.count == 200 && Set(exported.map(\.id)).count == 200)
        // Fewer commits than requests: writes that waited together were committed together.
        let commits = try store.db.statistics().lastCommit
        #expect(commits >= 1 && commits <= 200)
    }

    @Test func aFailingRequestUndoesOnlyItsOwnWrite() async throws {
        let store = try Store(path: environment.directory + "/store")
        struct Refused: Error {}
        let good = Task { try await createProduct(Product(id: "ok", name: "kept", price: 1), in: store) }
        let bad = Task {
            try await store.db.write { txn in
                try txn.write(Product(id: "bad", name: "undone", price: 2))
                throw Refused()
            }
        }
        try await good.value
        await #expect(throws: Refused.self) { try await bad.value }
        #expect(try await product(id: "ok", in: store) != nil)
        #expect(try await product(id: "bad", in: store) == nil)
    }
}
