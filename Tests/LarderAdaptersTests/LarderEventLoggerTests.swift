import Larder
import LarderAdapters
import Logging
import Synchronization
import Testing

/// The swift-log adapter, on a real store: what lines arrive, at which level, with which metadata.
@Suite("Event logger")
struct LarderEventLoggerTests {
    struct Refusal: Error {}

    @Test func aStoresLifeIsLogged() throws {
        let (logger, lines) = CapturingLogHandler.logger()
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        var configuration = Database.Configuration()
        configuration.initialMapSize = 1 << 20
        configuration.log(to: logger)
        let db = try Database(path: path, configuration: configuration)

        let opened = try #require(lines.lines("Larder store opened").first)
        #expect(opened.level == .info)
        #expect(opened.metadata["larder.path"] == "\(path)")
        #expect(opened.metadata["larder.format_version"] == "\(LarderVersion.storeFormat)")

        try db.write { txn in
            for i in 0..<3 { try txn.setObject(i, forKey: "k\(i)", inCollection: "c") }
        }
        let commit = try #require(lines.lines("Larder commit").first)
        #expect(commit.level == .trace)
        #expect(commit.metadata["larder.changed_rows"] == "3")
        #expect(commit.metadata["larder.callers"] == "1")
        #expect(commit.metadata["larder.commit"] == "1")
        #expect(commit.metadata["larder.durable"] == "true")

        let value = [UInt8](repeating: 1, count: 64 << 10)
        for i in 0..<40 { try db.write { try $0.setObject(value, forKey: "v\(i)", inCollection: "big") } }
        let growth = try #require(lines.lines("Larder map grew").first)
        #expect(growth.level == .notice)
        #expect(growth.metadata["larder.old_size"] == "\(1 << 20)")
        #expect(growth.metadata["larder.new_size"] == "\(2 << 20)")

        #expect(throws: LarderError.self) { try db.write { try $0.setObject(1, forKey: "", inCollection: "c") } }
        #expect(throws: Refusal.self) { try db.write { _ in throw Refusal() } }
        let failures = lines.lines("Larder write failed")
        #expect(failures.map(\.level) == [.warning])
        #expect(failures.first?.metadata["larder.error"] == "emptyKey")
        #expect(lines.lines("Larder write ended by an error of its closure").map(\.level) == [.debug])

        db.close()
        let closed = try #require(lines.lines("Larder store closed").first)
        #expect(closed.level == .info)
        #expect(closed.metadata["larder.path"] == "\(path)")
    }

    @Test func valuesNoStepCanReadAreAWarning() throws {
        let (logger, lines) = CapturingLogHandler.logger(level: .info)
        let directory = TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.log(to: logger)
        let db = try Database(path: directory.file("store"), configuration: configuration)
        try db.write { try $0.setObject(1, forKey: "private key", inCollection: "people") }
        db.register(ValueMigrations(collection: "people", currentVersion: 2, steps: [MigrationStep(from: 1) { _ in }]))
        let warning = try #require(lines.lines("Larder values no migration step can read: reading them will fail").first)
        #expect(warning.level == .warning)
        #expect(warning.metadata["larder.collection"] == "people")
        #expect(warning.metadata["larder.counts"] == "version 0: 1")
        #expect(!warning.metadata.values.contains { "\($0)".contains("private key") })
    }

    @Test func registeringMigrationsIsNoNoticeOfLostChanges() throws {
        let (logger, lines) = CapturingLogHandler.logger()
        let directory = TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.log(to: logger)
        // An app's launch: it registers its migrations, then reads and writes.
        let db = try Database(path: directory.file("store"), configuration: configuration)
        db.register(ValueMigrations(collection: "people", currentVersion: 1, steps: [MigrationStep(from: 0) { _ in }]))
        try db.write { try $0.setObject(1, forKey: "ada", inCollection: "people") }
        _ = try db.read { try $0.object(forKey: "ada", inCollection: "people", as: Int.self) }
        // A registration once values are cached empties the caches: said at `debug`, for what it is.
        db.register(ValueMigrations(collection: "places", currentVersion: 1, steps: [MigrationStep(from: 0) { _ in }]))
        _ = try db.read { try $0.object(forKey: "ada", inCollection: "people", as: Int.self) }

        #expect(lines.all.filter { $0.message.contains("no longer in the change log") }.isEmpty)
        #expect(!lines.all.contains { $0.level >= .notice && $0.message.hasPrefix("Larder caches") })
        let flushed = lines.lines("Larder caches emptied: value migrations were registered")
        #expect(flushed.map(\.level) == [.debug])
        #expect(flushed.first?.metadata["larder.reason"] == "valueMigrationsRegistered")
        #expect(flushed.first?.metadata["larder.commit"] == "1")
    }

    @Test func aSlowCommitIsAWarning() throws {
        let (logger, lines) = CapturingLogHandler.logger(level: .info)
        let directory = TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.log(to: logger, slowCommitThreshold: .zero)
        let db = try Database(path: directory.file("store"), configuration: configuration)
        try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
        let slow = lines.lines("Larder slow commit")
        #expect(slow.map(\.level) == [.warning])
        #expect(slow.first?.metadata["larder.duration_us"].map { Int("\($0)") != nil } == true)
        // The logger's level filters the trace lines of ordinary commits.
        #expect(lines.lines("Larder commit").isEmpty)
    }

    @Test func loggingAndAnotherHandlerBothHearEveryEvent() throws {
        let (logger, lines) = CapturingLogHandler.logger()
        let directory = TemporaryDirectory()
        let counted = CountingHandler()
        var configuration = Database.Configuration()
        configuration.onEvent = counted.handler
        configuration.log(to: logger)
        let db = try Database(path: directory.file("store"), configuration: configuration)
        try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
        #expect(counted.count == 2)  // opened, committed
        #expect(lines.all.count == 2)
    }
}

/// Counts events (to check that adapters add to a handler already set).
final class CountingHandler: Sendable {
    private let counter = Mutex<Int>(0)
    var count: Int { counter.withLock { $0 } }
    var handler: @Sendable (DatabaseEvent) -> Void { { _ in self.counter.withLock { $0 += 1 } } }
}
