import Foundation
import Larder
import LarderAdapters
import Logging
import Metrics
import MetricsTestKit
import ServiceLifecycle
import ServiceLifecycleTestKit
import Synchronization
import Testing

// The samples of Documentation/Observability.md, each in a test that checks what it did. (They
// live here, not in Tests/LarderTests/Samples, because some need the adapters' packages.)

/// Stands for a server in the lifecycle sample: runs until the graceful shutdown.
final class FakeHTTPServer: Service {
    let stopped = Mutex(false)
    func run() async throws {
        try? await gracefulShutdown()
        stopped.withLock { $0 = true }
    }
}

struct Order: Codable, Sendable {
    var id: String
    var total: Int
}

@Suite("Observability samples")
struct ObservabilitySamples {
    @Test func theEventHook() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        var configuration = Database.Configuration()
        configuration.onEvent = { event in
            switch event {
            case .committed(let commit) where commit.callers > 1:
                print("group commit of \(commit.callers) writes, \(commit.changedRows) rows in \(commit.duration)")
            case .mapGrew(let oldSize, let newSize):
                print("map grew from \(oldSize) to \(newSize) bytes")
            default:
                break
            }
        }
        let db = try Database(path: path, configuration: configuration)

        #expect(db.configuration.onEvent != nil)
        try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
        #expect(try db.read { try $0.object(forKey: "k", inCollection: "c", as: Int.self) } == 1)
    }

    @Test func closing() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let order = Order(id: "o1", total: 12)
        try await db.write { try $0.setObject(order, forKey: order.id, inCollection: "orders") }
        await db.close()
        #expect(db.isClosed)
        let reopened = try Database(path: directory.file("store"))
        #expect(try await reopened.read { try $0.object(forKey: "o1", inCollection: "orders", as: Order.self)?.total } == 12)
    }

    @Test func logsAndMetrics() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let backend = TestMetrics()
        MetricsSystem.bootstrap(backend)

        let metrics = LarderMetrics(dimensions: [("store", "orders")])
        var configuration = Database.Configuration()
        configuration.log(to: Logger(label: "orders.store"))
        configuration.recordMetrics(metrics)
        let db = try Database(path: path, configuration: configuration)

        try db.write { try $0.setObject(Order(id: "o1", total: 3), forKey: "o1", inCollection: "orders") }
        #expect(try backend.expectCounter("larder_commits_total", [("store", "orders")]).totalValue == 1)
    }

    @Test func theService() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let metrics = LarderMetrics(factory: TestMetrics())
        let httpServer = FakeHTTPServer()
        let logger = Logger(label: "orders") { _ in SwiftLogNoOpLogHandler() }
        try await testGracefulShutdown { trigger in
            let running = Task {
                let store = LarderService(database: db, metrics: metrics, readerLagInterval: .seconds(10))
                let group = ServiceGroup(
                    services: [store, httpServer],
                    gracefulShutdownSignals: [.sigterm],
                    logger: logger)
                try await group.run()
            }
            try await db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
            trigger.triggerGracefulShutdown()
            try await running.value
        }
        #expect(db.isClosed)
        #expect(httpServer.stopped.withLock { $0 })
    }
}
