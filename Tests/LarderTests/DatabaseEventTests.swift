import Foundation
import Synchronization
import Testing
@testable import Larder

/// Collects the events a `Database` tells its `Configuration.onEvent`.
final class EventRecorder: Sendable {
    private let recorded = Mutex<[DatabaseEvent]>([])

    var handler: @Sendable (DatabaseEvent) -> Void { { event in self.recorded.withLock { $0.append(event) } } }
    var events: [DatabaseEvent] { recorded.withLock { $0 } }
    func clear() { recorded.withLock { $0.removeAll() } }

    var commits: [CommitEvent] { events.compactMap { if case .committed(let commit) = $0 { commit } else { nil } } }
    var failures: [WriteFailure] { events.compactMap { if case .writeFailed(let failure) = $0 { failure } else { nil } } }
    var growths: [(old: Int, new: Int)] { events.compactMap { if case .mapGrew(let old, let new) = $0 { (old, new) } else { nil } } }
}

/// `Configuration.onEvent`: what is told, when, and with which figures.
@Suite("Database events")
struct DatabaseEventTests {
    struct Refusal: Error {}

    func configuration(_ recorder: EventRecorder) -> Database.Configuration {
        var configuration = Database.Configuration()
        configuration.onEvent = recorder.handler
        return configuration
    }

    @Test func openingAndClosingAreTold() throws {
        let recorder = EventRecorder()
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path, configuration: configuration(recorder))
        guard case .opened(let opening) = recorder.events.first else {
            Issue.record("the first event is not the opening: \(recorder.events)")
            return
        }
        #expect(opening.path == path)
        #expect(opening.formatVersion == LarderVersion.storeFormat)
        #expect(!opening.isReadOnly)
        #expect(opening.mapSize == Database.Configuration().initialMapSize)
        db.close()
        guard case .closed(let closedPath) = recorder.events.last else {
            Issue.record("the last event is not the closing: \(recorder.events)")
            return
        }
        #expect(closedPath == path)
    }

    @Test func aSynchronousCommitTellsItsFigures() throws {
        let recorder = EventRecorder()
        try withStore(configuration(recorder)) { db, _ in
            try db.write { txn in
                for i in 0..<3 { try txn.setObject(i, forKey: "k\(i)", inCollection: "c") }
            }
            try db.write { txn in
                try txn.removeObject(forKey: "k0", inCollection: "c")
                try txn.setObject(9, forKey: "k1", inCollection: "c")
            }
            let commits = recorder.commits
            #expect(commits.map(\.commit) == [1, 2])
            #expect(commits.map(\.changedRows) == [3, 2])
            #expect(commits.allSatisfy { $0.callers == 1 && $0.isDurable && $0.duration > .zero })
            #expect(commits.allSatisfy { $0.mapUsed > 0 && $0.mapUsed <= $0.mapSize })
            #expect(recorder.failures.isEmpty)
        }
    }

    @Test func aNoMetaSyncCommitIsNotDurable() throws {
        let recorder = EventRecorder()
        var configuration = configuration(recorder)
        configuration.durability = .noMetaSync
        try withStore(configuration) { db, _ in
            try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
            #expect(recorder.commits.map(\.isDurable) == [false])
        }
    }

    @Test func failedAndRolledBackWritesAreTold() throws {
        let recorder = EventRecorder()
        try withStore(configuration(recorder)) { db, _ in
            #expect(throws: LarderError.self) { try db.write { try $0.setObject(1, forKey: "", inCollection: "c") } }
            #expect(throws: Refusal.self) { try db.write { _ in throw Refusal() } }
            try db.write { txn in
                try txn.setObject(1, forKey: "k", inCollection: "c")
                txn.rollback()
            }
            #expect(recorder.failures == [
                WriteFailure(code: .emptyKey, isRollback: false, callers: 1),
                WriteFailure(code: nil, isRollback: false, callers: 1),
                WriteFailure(code: nil, isRollback: true, callers: 1),
            ])
            #expect(recorder.commits.isEmpty)
        }
    }

    @Test func aGroupCommitTellsHowManyCallersItMerged() async throws {
        let recorder = EventRecorder()
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"), configuration: configuration(recorder))
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
        let callers = (0..<6).map { caller in
            Task { () -> Bool in
                do {
                    try await db.write { txn in
                        if caller == 2 { throw Refusal() }
                        if caller == 4 { try txn.setObject(0, forKey: "", inCollection: "g") }
                        try txn.setObject(caller, forKey: "k\(caller)", inCollection: "g")
                    }
                    return true
                } catch { return false }
            }
        }
        #expect(await eventually { db.writer.waitingCount == 6 })
        release.signal()
        try await first.value
        var succeeded = 0
        for caller in callers where await caller.value { succeeded += 1 }
        #expect(succeeded == 4)
        let commits = recorder.commits
        #expect(commits.map(\.callers) == [1, 4])
        #expect(commits.last?.changedRows == 4)
        #expect(Set(recorder.failures.map { $0.code?.rawValue ?? "own" }) == ["own", "emptyKey"])
        #expect(recorder.failures.allSatisfy { $0.callers == 1 })
    }

    @Test func mapGrowthIsTold() throws {
        let recorder = EventRecorder()
        var configuration = configuration(recorder)
        configuration.initialMapSize = 1 << 20
        try withStore(configuration) { db, _ in
            let value = [UInt8](repeating: 7, count: 64 << 10)
            for i in 0..<48 {
                try db.write { try $0.setObject(value, forKey: "v\(i)", inCollection: "big") }
            }
            let growths = recorder.growths
            #expect(growths.count == db.environment.resizeCount)
            #expect(!growths.isEmpty)
            #expect(growths.first?.old == 1 << 20)
            #expect(growths.allSatisfy { $0.new >= 2 * $0.old })
            #expect(recorder.commits.last?.mapSize == growths.last?.new)
        }
    }

    @Test func aCacheResetIsTold() throws {
        let recorder = EventRecorder()
        var configuration = configuration(recorder)
        configuration.changeLogLimit = 2
        try withStore(configuration) { db, _ in
            let reader = db.newConnection()
            try db.write { try $0.setObject(0, forKey: "x", inCollection: "c") }
            _ = try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) }
            for i in 1...(ChangeHub.recentLimit + 10) {
                try db.write { try $0.setObject(i, forKey: i == 1 ? "x" : "y", inCollection: "c") }
            }
            #expect(!recorder.events.contains { if case .cachesReset = $0 { true } else { false } })
            _ = try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) }
            let resets = recorder.events.compactMap { if case .cachesReset(let commit) = $0 { commit } else { nil } }
            #expect(resets == [UInt64(ChangeHub.recentLimit + 11)])
            #expect(reader.cacheStatistics.flushes == 1)
        }
    }

    /// The caches emptied on purpose: `cachesFlushed` with the reason, never `cachesReset`.
    func flushReasons(_ recorder: EventRecorder) -> [CacheFlushReason] {
        recorder.events.compactMap { if case .cachesFlushed(_, let reason) = $0 { reason } else { nil } }
    }

    func resets(_ recorder: EventRecorder) -> Int {
        recorder.events.filter { if case .cachesReset = $0 { true } else { false } }.count
    }

    static func migrations(of collection: String) -> ValueMigrations {
        ValueMigrations(collection: collection, currentVersion: 1, steps: [MigrationStep(from: 0) { _ in }])
    }

    @Test func registeringMigrationsEmptiesCachesOnPurposeNotAsAReset() throws {
        let recorder = EventRecorder()
        try withStore(configuration(recorder)) { db, _ in
            // At launch, before anything is cached: nothing to empty, nothing told.
            db.register(Self.migrations(of: "people"))
            let reader = db.newConnection()
            try db.write { try $0.setObject(0, forKey: "x", inCollection: "c") }
            _ = try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) }
            #expect(resets(recorder) == 0)
            #expect(flushReasons(recorder).isEmpty)
            #expect(reader.cacheStatistics.flushes == 0)

            // Later, with values cached: the caches that hold some are emptied, and say why.
            db.register(Self.migrations(of: "places"))
            _ = try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) }
            #expect(resets(recorder) == 0)
            #expect(flushReasons(recorder) == [.valueMigrationsRegistered])
            let commits = recorder.events.compactMap { if case .cachesFlushed(let commit, _) = $0 { commit } else { nil } }
            #expect(commits == [1])
            #expect(reader.cacheStatistics.flushes == 1)
        }
    }

    @Test func aCommitThatRemovesEverythingAndAConnectionFarBehindEmptyCachesOnPurpose() throws {
        let recorder = EventRecorder()
        var configuration = configuration(recorder)
        configuration.durability = .noMetaSync
        try withStore(configuration) { db, _ in
            let reader = db.newConnection()
            try db.write { try $0.setObject(0, forKey: "x", inCollection: "c") }
            _ = try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) }
            try db.write { try $0.removeAllObjectsInAllCollections() }
            #expect(try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == nil)
            #expect(flushReasons(recorder) == [.everythingRemoved])

            try db.write { try $0.setObject(1, forKey: "x", inCollection: "c") }
            _ = try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) }
            for i in 0..<(Int(ConnectionCache.catchUpLimit) + 1) {
                try db.write { try $0.setObject(i, forKey: "y", inCollection: "c") }
            }
            #expect(try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 1)
            #expect(flushReasons(recorder) == [.everythingRemoved, .manyCommitsBehind])
            #expect(resets(recorder) == 0)
        }
    }

    @Test func staleReadersClearedAreTold() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let recorder = EventRecorder()
        try withStore(configuration(recorder)) { db, directory in
            try db.write { try $0.setObject(0, forKey: "x", inCollection: "c") }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: helper)
            process.arguments = ["hold-read", directory.file("store")]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            var text = ""
            while !text.contains("reading") {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            #expect(db.oldestReaderLag() == 0)
            try db.write { try $0.setObject(1, forKey: "x", inCollection: "c") }
            #expect(db.oldestReaderLag() == 1)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let cleared = db.clearStaleReaders()
            #expect(cleared >= 1)
            let told = recorder.events.compactMap { if case .staleReadersCleared(let count) = $0 { count } else { nil } }
            #expect(told == [cleared])
            #expect(db.oldestReaderLag() == 0)
        }
    }

    @Test func theDatabaseCountsItsOwnCacheHits() throws {
        try withStore { db, _ in
            try db.write { try $0.setObject(Product(id: "p", name: "Hammer", price: 9), forKey: "p", inCollection: "products") }
            let before = db.cacheStatistics
            for _ in 0..<3 {
                _ = try db.read { try $0.object(forKey: "p", inCollection: "products", as: Product.self) }
            }
            let after = db.cacheStatistics
            #expect(after.objectHits - before.objectHits == 3)
            #expect(after.objectMisses == before.objectMisses)
            let connection = db.newConnection()
            _ = try connection.read { try $0.object(forKey: "p", inCollection: "products", as: Product.self) }
            #expect(connection.cacheStatistics.objectMisses == 1)
            #expect(db.cacheStatistics == after)
        }
    }

    @Test func aHandlerMayReadTheStore() throws {
        let directory = TemporaryDirectory()
        let box = Mutex<Database?>(nil)
        let seen = Mutex<[Int]>([])
        var configuration = Database.Configuration()
        configuration.onEvent = { event in
            guard case .committed = event, let db = box.withLock({ $0 }) else { return }
            let count = try? db.read { try $0.numberOfKeys(inCollection: "c") }
            seen.withLock { $0.append(count ?? -1) }
        }
        let db = try Database(path: directory.file("store"), configuration: configuration)
        box.withLock { $0 = db }
        try db.write { try $0.setObject(1, forKey: "a", inCollection: "c") }
        try db.write { try $0.setObject(2, forKey: "b", inCollection: "c") }
        #expect(seen.withLock { $0 } == [1, 2])
        box.withLock { $0 = nil }
    }
}
