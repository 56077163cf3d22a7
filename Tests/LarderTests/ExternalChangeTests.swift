import Foundation
import Testing
@testable import Larder

/// Commits of another process (`larder-test-helper commit`, Tests/Helper/main.swift) reach this
/// process through the change log: its caches never serve a stale value, and its observers
/// receive the other process's changesets, or a reset when it fell behind the log.
@Suite("Changes from other processes")
struct ExternalChangeTests {
    let helper: String

    init() throws {
        helper = try #require(ProcessTestSupport.helperExecutable(), "larder-test-helper not found beside the test binary")
    }

    /// Runs the helper: `count` commits with a log of `logLimit`; returns its last commit number.
    func commitElsewhere(_ path: String, count: Int, logLimit: Int = 1000) throws -> UInt64 {
        let run = try ProcessTestSupport.run(helper, ["commit", path, String(count), String(logLimit)])
        #expect(run.status == 0, "helper failed: \(run.standardError)")
        return try #require(UInt64(run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    func shared(_ connection: Connection) throws -> String? {
        try connection.read { try $0.object(forKey: "shared", inCollection: "external", as: String.self) }
    }

    @Test func cachesAfterAWriteInAnotherProcess() throws {
        try withStore { db, directory in
            let connection = db.newConnection()
            try connection.write { try $0.setObject("mine", forKey: "shared", inCollection: "external") }
            #expect(try shared(connection) == "mine")
            #expect(connection.cacheStatistics.objectHits == 1)  // the cache holds it

            #expect(try commitElsewhere(directory.file("store"), count: 1) == 2)
            #expect(try shared(connection) == "value-0")
            #expect(try shared(connection) == "value-0")
            let statistics = connection.cacheStatistics
            #expect(statistics.objectHits == 2 && statistics.objectMisses == 1 && statistics.flushes == 0)
        }
    }

    @Test func observersReceiveAnotherProcessesChangesets() throws {
        try withStore { db, directory in
            try db.write { try $0.setObject("mine", forKey: "mine", inCollection: "local") }
            let stream = db.changes()
            #expect(try commitElsewhere(directory.file("store"), count: 3) == 4)
            db.checkForExternalChanges()
            let received = stream.lease.subscription.takeBuffered()
            #expect(received.map(\.commit) == [2, 3, 4])
            for (i, changes) in received.enumerated() {
                #expect(!changes.isReset)
                #expect(changes.changedKeys(inCollection: "external") == ["shared", "c\(i)"])
                #expect(changes.change(for: YapDB.Index(collection: "external", key: "c\(i)"))?.object == .inserted)
                #expect(try changes.commitInfo(as: String.self) == ["helper-\(i)"])
            }
            // This process's next commit follows the other process's.
            try db.write { try $0.setObject("again", forKey: "mine", inCollection: "local") }
            #expect(stream.lease.subscription.takeBuffered().map(\.commit) == [5])
        }
    }

    @Test func thePollerFindsCommitsOfAnotherProcess() async throws {
        var configuration = Database.Configuration()
        configuration.changePollInterval = .milliseconds(20)
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"), configuration: configuration)
        var iterator = db.changes(inCollection: "external").makeAsyncIterator()
        _ = try commitElsewhere(directory.file("store"), count: 1)
        let changes = try #require(try await next(&iterator))  // no explicit check: the timer finds it
        #expect(changes.commit == 1 && changes.changedKeys(inCollection: "external") == ["shared", "c0"])
    }

    @Test func fallingBehindTheLogIsAResetAndEmptiesTheCaches() throws {
        // Only the explicit check below may look for the other process's commits: a poll while
        // they are being made would see some of them while the log still holds them.
        var configuration = Database.Configuration()
        configuration.changePollInterval = .seconds(3_600)
        try withStore(configuration) { db, directory in
            let connection = db.newConnection()
            try connection.write { try $0.setObject("mine", forKey: "shared", inCollection: "external") }
            #expect(try shared(connection) == "mine")
            let stream = db.changes()
            // Ten commits with a log of three: this process cannot learn what the first seven changed.
            #expect(try commitElsewhere(directory.file("store"), count: 10, logLimit: 3) == 11)
            db.checkForExternalChanges()
            let received = stream.lease.subscription.takeBuffered()
            #expect(received.count == 1)
            #expect(received.first?.isReset == true)
            #expect(received.first?.commits == 2...11)
            #expect(received.first?.hasChange(for: YapDB.Index(collection: "anything", key: "at-all")) == true)

            #expect(try shared(connection) == "value-9")
            #expect(connection.cacheStatistics.flushes == 1)
            #expect(try connection.read { try $0.numberOfKeys(inCollection: "external") } == 11)
        }
    }

    @Test func aPinnedSnapshotReceivesAnotherProcessesChangesets() throws {
        try withStore { db, directory in
            let ui = db.newConnection()
            try ui.pinSnapshot()
            _ = try commitElsewhere(directory.file("store"), count: 2)
            #expect(try shared(ui) == nil)
            let skipped = try ui.advanceSnapshot()
            #expect(skipped.map(\.commit) == [1, 2])
            #expect(try skipped.flatMap { try $0.commitInfo(as: String.self) } == ["helper-0", "helper-1"])
            #expect(try shared(ui) == "value-1")
        }
    }
}
