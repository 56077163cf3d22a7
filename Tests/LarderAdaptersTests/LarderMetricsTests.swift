import Foundation
@testable import Larder
import LarderAdapters
import MetricsTestKit
import Testing

/// The swift-metrics adapter, on a real store, with swift-metrics' test backend.
@Suite("Metrics")
struct LarderMetricsTests {
    struct Refusal: Error {}

    func open(_ directory: TemporaryDirectory, _ metrics: LarderMetrics, initialMapSize: Int = 16 << 20) throws -> Database {
        var configuration = Database.Configuration()
        configuration.initialMapSize = initialMapSize
        configuration.recordMetrics(metrics)
        return try Database(path: directory.file("store"), configuration: configuration)
    }

    @Test func commitsRowsAndFailuresAreCounted() throws {
        let backend = TestMetrics()
        let metrics = LarderMetrics(dimensions: [("store", "orders")], factory: backend)
        let directory = TemporaryDirectory()
        let db = try open(directory, metrics)
        for round in 0..<5 {
            try db.write { txn in
                for i in 0...round { try txn.setObject(i, forKey: "k\(i)", inCollection: "c") }
            }
        }
        #expect(throws: Refusal.self) { try db.write { _ in throw Refusal() } }
        let dimensions = [("store", "orders")]
        #expect(try backend.expectCounter("larder_commits_total", dimensions).totalValue == 5)
        #expect(try backend.expectCounter("larder_rows_written_total", dimensions).totalValue == 1 + 2 + 3 + 4 + 5)
        #expect(try backend.expectCounter("larder_write_failures_total", dimensions).totalValue == 1)
        let timer = try backend.expectTimer("larder_commit_duration", dimensions)
        #expect(timer.values.count == 5)
        #expect(timer.values.allSatisfy { $0 > 0 })
        #expect(try backend.expectGauge("larder_group_commit_size", dimensions).lastValue == 1)
        let usage = try db.statistics()
        #expect(try backend.expectGauge("larder_map_size_bytes", dimensions).lastValue == Double(usage.mapSize))
        #expect(try backend.expectGauge("larder_map_used_bytes", dimensions).lastValue == Double(usage.usedBytes))
    }

    static func byValue() -> AutoView<Int, NoMetadata> {
        AutoView<Int, NoMetadata>(collections: ["c"], versionTag: "1", grouping: { _, _ in "all" }, sorting: { _, value in TupleKey(value) })
    }

    @Test func onlyCommitsThatChangedSomethingAreCounted() async throws {
        let directory = TemporaryDirectory()
        // The store as an earlier launch left it, its view built.
        do {
            var configuration = Database.Configuration()
            configuration.initialMapSize = 16 << 20
            let db = try Database(path: directory.file("store"), configuration: configuration)
            try db.register(Self.byValue(), named: "byValue")
            await db.close()
        }
        let backend = TestMetrics()
        let metrics = LarderMetrics(factory: backend)
        let db = try open(directory, metrics)
        // Synchronous writes (in an asynchronous function, `write` would be the asynchronous one).
        let writeSynchronously: (Int?) throws -> Void = { value in
            try db.write { txn in
                if let value { try txn.setObject(value, forKey: "k\(value)", inCollection: "c") }
            }
        }
        // This launch registers again what the store has, and migrations: none of it changes anything.
        try db.register(Self.byValue(), named: "byValue")
        try db.register(Self.byValue(), named: "byValue")
        db.register(ValueMigrations(collection: "c", currentVersion: 1, steps: [MigrationStep(from: 0) { _ in }]))
        // Writes whose closures change nothing.
        try writeSynchronously(nil)
        try await db.write { _ in }
        try await db.write { txn in _ = try txn.object(forKey: "k0", inCollection: "c", as: Int.self) }
        for i in 0..<4 { try writeSynchronously(i) }
        try await db.write { try $0.setObject(9, forKey: "k9", inCollection: "c") }
        #expect(try backend.expectCounter("larder_commits_total").totalValue == 5)
        #expect(try backend.expectTimer("larder_commit_duration").values.count == 5)
        #expect(try backend.expectCounter("larder_rows_written_total").totalValue == 5)
        await db.close()
    }

    @Test func aGroupCommitsSizeIsAGauge() async throws {
        let backend = TestMetrics()
        let metrics = LarderMetrics(factory: backend)
        let directory = TemporaryDirectory()
        let db = try open(directory, metrics)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = Task {
            try await db.write { txn in
                started.signal()
                release.wait()
                try txn.setObject(-1, forKey: "first", inCollection: "g")
            }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { started.wait(); continuation.resume() }
        }
        let writers = (0..<5).map { i in Task { try await db.write { try $0.setObject(i, forKey: "k\(i)", inCollection: "g") } } }
        #expect(await eventually { db.writer.waitingCount == 5 })
        release.signal()
        try await first.value
        for writer in writers { try await writer.value }
        let sizes = try backend.expectGauge("larder_group_commit_size").values
        #expect(sizes == [1, 5])
        #expect(try backend.expectCounter("larder_commits_total").totalValue == 2)
        #expect(try backend.expectCounter("larder_rows_written_total").totalValue == 6)
    }

    @Test func mapGrowthIsCounted() throws {
        let backend = TestMetrics()
        let metrics = LarderMetrics(factory: backend)
        let directory = TemporaryDirectory()
        let db = try open(directory, metrics, initialMapSize: 1 << 20)
        let value = [UInt8](repeating: 3, count: 64 << 10)
        for i in 0..<40 { try db.write { try $0.setObject(value, forKey: "v\(i)", inCollection: "big") } }
        let growths = try backend.expectCounter("larder_map_growths_total").totalValue
        #expect(growths >= 1)
        let sizes = try backend.expectGauge("larder_map_size_bytes").values
        #expect(sizes.first == Double(1 << 20))
        #expect(sizes.last == Double(try db.statistics().mapSize))
    }

    @Test func readerLagIsPolled() throws {
        let backend = TestMetrics()
        let metrics = LarderMetrics(factory: backend)
        let directory = TemporaryDirectory()
        let db = try open(directory, metrics)
        let connection = db.newConnection()
        try db.write { try $0.setObject(0, forKey: "k", inCollection: "c") }
        try connection.pinSnapshot()
        for i in 1...3 { try db.write { try $0.setObject(i, forKey: "k", inCollection: "c") } }
        metrics.recordReaderLag(of: db)
        #expect(try backend.expectGauge("larder_reader_lag").lastValue == 3)
        connection.unpinSnapshot()
        metrics.recordReaderLag(of: db)
        #expect(try backend.expectGauge("larder_reader_lag").lastValue == 0)
    }
}
