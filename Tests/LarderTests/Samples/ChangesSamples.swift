import Testing
import Larder

/// Documentation/Changes.md.
@Suite("Samples: Changes")
struct ChangesSamples: SampleSuite {
    let environment = SampleEnvironment()

    struct Product: Codable, Sendable, Persistable {
        static let collection = "products"
        var id: String
        var name: String
        var price: Double
    }

    @Test func readingTheChangeLog() throws {
        let path = environment.directory + "/store"
        let hammer = Product(id: "p1", name: "Hammer", price: 24)
        do {
            var configuration = Database.Configuration()
            configuration.keepsValueHistory = true
            let db = try Database(path: path, configuration: configuration)
            try db.write { try $0.write(hammer) }
            try db.write { try $0.write(Product(id: "p1", name: "Claw hammer", price: 26)) }
        }

        var configuration = Database.Configuration()
        configuration.keepsValueHistory = true          // keep the values too (off by default)
        let db = try Database(path: path, configuration: configuration)

        try db.read { txn in
            for entry in try txn.history(ofObjectAt: hammer.index) {          // newest first
                print(entry.commit, entry.time ?? .distantPast, entry.event, try entry.value(as: Product.self)?.name ?? "-")
            }
            let prices = try txn.history(of: Product.self, key: "p1").compactMap { $0.value?.price }
            print("prices, newest first:", prices)
        }

        #expect(environment.printed.count == 3)
        #expect(environment.printed.last == "prices, newest first: [26.0, 24.0]")
    }

    @Test func pinnedSnapshots() throws {
        let db = try sampleStore()
        var reloads = 0
        func reloadProductList() { reloads += 1 }

        let ui = db.newConnection()
        try ui.pinSnapshot()
        try db.write { try $0.write(Product(id: "p1", name: "Hammer", price: 24)) }   // another connection writes
        let before = try ui.read { try $0.read(Product.self, key: "p1") }   // nil: `ui` still reads the pinned commit
        let changes = try ui.advanceSnapshot()   // newest commit; the changesets moved across
        if changes.hasChange(inCollection: "products") { reloadProductList() }

        #expect(before == nil)
        #expect(reloads == 1)
        #expect(try ui.read { try $0.read(Product.self, key: "p1") }?.price == 24)
    }

    @Test func observation() async throws {
        let db = try sampleStore()
        let connection = db.newConnection()
        func reloadOrders(_ changes: Changeset) { print("orders changed in commit", changes.commit) }
        func show(_ product: Product?) { print("price:", product?.price ?? 0) }

        let orders = Task { for await changes in db.changes(inCollection: "orders") { reloadOrders(changes) } }     // every commit touching "orders"
        let price = Task { for try await product in connection.observe(Product.self, id: "p1") { show(product) } }  // now and after each change

        try await eventually { environment.printed.contains { $0.hasPrefix("price:") } }
        try await db.write { try $0.write(Product(id: "p1", name: "Hammer", price: 24)) }
        // The orders stream sees commits from the moment its task subscribed: write until it has.
        var order = 0
        while !environment.printed.contains(where: { $0.hasPrefix("orders changed") }) && order < 200 {
            order += 1
            try await db.write { [order] in try $0.setObject("order \(order)", forKey: "o\(order)", inCollection: "orders") }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await eventually { environment.printed.contains("price: 24.0") }
        orders.cancel()
        price.cancel()
        await orders.value
        try await price.value
        #expect(environment.printed.contains { $0.hasPrefix("orders changed in commit") })
        #expect(environment.printed.contains("price: 24.0"))
    }

    @Test @MainActor func liveQueries() async throws {
        let db = try sampleStore()
        let notesCount = db.liveQuery(initial: 0) { txn in try txn.numberOfKeys(inCollection: "notes") }
        // In a SwiftUI view: Text("\(notesCount.value) notes")
        try await db.write { try $0.setObject("milk", forKey: "n1", inCollection: "notes") }
        let deadline = ContinuousClock.now + .seconds(10)
        while notesCount.value != 1 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(notesCount.value == 1)
    }

    @Test func observingAnyRead() async throws {
        let db = try sampleStore()
        let counter = Task {
            for try await count in db.observe({ txn in try txn.numberOfKeys(inCollection: "notes") }) {
                print("\(count) notes")
            }
        }
        try await eventually { environment.printed.contains("0 notes") }
        try await db.write { try $0.setObject("milk", forKey: "n1", inCollection: "notes") }
        try await eventually { environment.printed.contains("1 notes") }
        counter.cancel()
        try await counter.value
    }
}
