import Foundation
import Larder
import LarderAdapters
import Logging
import MetricsTestKit
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing

/// The swift-service-lifecycle adapter: graceful shutdown commits what was queued and closes.
@Suite("Service")
struct LarderServiceTests {
    @Test func gracefulShutdownClosesTheStoreAfterQueuedWrites() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        var configuration = Database.Configuration()
        configuration.durability = .deferred(interval: .seconds(60))
        let db = try Database(path: path, configuration: configuration)
        let service = LarderService(database: db)
        try await testGracefulShutdown { trigger in
            let running = Task { try await service.run() }
            let writes = (0..<20).map { i in
                Task { try await db.write { try $0.setObject(i, forKey: "k\(i)", inCollection: "c") } }
            }
            #expect(!db.isClosed)
            trigger.triggerGracefulShutdown()
            try await running.value
            #expect(db.isClosed)
            var committed = 0
            for write in writes {
                do {
                    try await write.value
                    committed += 1
                } catch let error as LarderError {
                    #expect(error.code == .databaseClosed)
                }
            }
            let reopened = try Database(path: path)
            #expect(try await reopened.read { try $0.numberOfKeys(inCollection: "c") } == committed)
        }
    }

    @Test func cancellationClosesTheStoreToo() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        try await db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
        let running = Task { try await LarderService(database: db).run() }
        running.cancel()
        try await running.value
        #expect(db.isClosed)
        await #expect(throws: LarderError.self) { try await db.read { try $0.numberOfKeys(inCollection: "c") } }
    }

    @Test func theServiceRecordsReaderLagWhileItRuns() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let backend = TestMetrics()
        let metrics = LarderMetrics(factory: backend)
        let connection = db.newConnection()
        try await db.write { try $0.setObject(0, forKey: "k", inCollection: "c") }
        try connection.pinSnapshot()
        for i in 1...2 { try await db.write { try $0.setObject(i, forKey: "k", inCollection: "c") } }
        try await testGracefulShutdown { trigger in
            let running = Task { try await LarderService(database: db, metrics: metrics, readerLagInterval: .milliseconds(10)).run() }
            #expect(await eventually { (try? backend.expectGauge("larder_reader_lag").lastValue) == 2 })
            trigger.triggerGracefulShutdown()
            try await running.value
        }
        #expect(db.isClosed)
        #expect(connection.pinnedCommit == nil)
    }

    @Test func aServiceGroupRunsIt() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let (logger, _) = CapturingLogHandler.logger(level: .critical)
        let group = ServiceGroup(services: [LarderService(database: db)], logger: logger)
        try await testGracefulShutdown { trigger in
            let running = Task { try await group.run() }
            try await db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
            trigger.triggerGracefulShutdown()
            try await running.value
        }
        #expect(db.isClosed)
    }
}
