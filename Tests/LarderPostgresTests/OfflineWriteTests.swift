import Foundation
import Larder
import LarderPostgres
import PostgresTestServer
import Synchronization
import Testing

/// Writes while the primary is away (issue 32, item 5): with `writesOffline`, a write made while
/// the primary cannot be reached commits on the replica alone as a pending commit, visible at
/// once and kept across reopening; the pending commits reach the primary in order when it is
/// back; one whose reads another replica's commits changed is taken off and reported. Each test
/// stops and starts a private server of its own.
@Suite("Replicas: writes while the primary is away", .serialized)
struct OfflineWriteTests {
    /// The rejections a replica told its `onEvent`.
    final class Rejections: Sendable {
        let seen = Mutex<[RejectedCommit]>([])
    }

    /// The writes that returned, and those whose outcome was unknown.
    final class Outcomes: Sendable {
        let acknowledged = Mutex<Set<String>>([])
        let unknown = Mutex<Set<String>>([])
    }

    static func open(_ primary: ReplicaTests.Primary, _ name: String, follows: Bool = true,
                     rejections: Rejections? = nil) async throws -> Replica {
        // A stopped server refuses connections at once; the deadlines only bound a slow one
        // (generous: the whole suite runs beside these tests).
        var settings = primary.configuration
        settings.connectTimeout = .seconds(10)
        settings.requestTimeout = .seconds(10)
        var configuration = Replica.Configuration()
        configuration.writesOffline = true
        configuration.follows = follows
        configuration.pollInterval = .milliseconds(100)
        if let rejections {
            configuration.onEvent = { event in
                if case .commitRejected(let commit) = event { rejections.seen.withLock { $0.append(commit) } }
            }
        }
        return try await Replica.open(at: primary.directory.appendingPathComponent(name).path, primary: settings, configuration: configuration)
    }

    static func value(_ key: String, in replica: Replica, collection: String = "c") async throws -> Int? {
        try await replica.database.read { try $0.object(forKey: key, inCollection: collection, as: Int.self) }
    }

    static func increment(_ replica: Replica, entry: String) async throws {
        try await replica.write { txn in
            let counter = try txn.object(forKey: "counter", inCollection: "c", as: Int.self) ?? 0
            try txn.setObject(counter + 1, forKey: "counter", inCollection: "c")
            try txn.setObject(counter + 1, forKey: entry, inCollection: "entries")
        }
    }

    /// Through the commit procedure (pending commits sent together, chained) and by statement
    /// (one at a time).
    @Test(arguments: [true, false])
    func offlineWritesAreSeenAtOnceKeptAcrossReopeningAndMadeInOrderWhenThePrimaryIsBack(byProcedure: Bool) async throws {
        let server = try PrivatePostgresServer.start(name: "larder-offline")
        defer { server.destroy() }
        let primary = try ReplicaTests.Primary(server: server, usesCommitProcedure: byProcedure)
        defer { primary.removeFiles() }
        var a = try await Self.open(primary, "a")
        try await Self.increment(a, entry: "e0")

        try server.stop(immediately: true)
        for entry in ["e1", "e2", "e3"] { try await Self.increment(a, entry: entry) }
        #expect(try await Self.value("counter", in: a) == 4, "a pending write is seen by the replica's reads, and by the next write")
        #expect(try a.pendingCommitCount == 3)
        #expect(a.statistics.offlineCommits == 3)
        #expect(try a.position == 1)

        // Closed and opened again without the primary: the pending commits are in the store.
        await a.close()
        a = try await Self.open(primary, "a")
        #expect(try a.pendingCommitCount == 3)
        try await Self.increment(a, entry: "e4")
        #expect(try await Self.value("counter", in: a) == 5)

        try server.start()
        #expect(try await ReplicaTests.eventually { try a.pendingCommitCount == 0 }, "the pending commits were not sent")
        #expect(try a.position == 5)
        #expect(try a.rejectedCommits().isEmpty)
        // Counted once the transaction that settled them has committed.
        #expect(try await ReplicaTests.eventually { a.statistics.pendingCommitsMade == 4 }, "\(a.statistics)")
        // In order on the primary: entry i was made as commit i + 1, each on the one before.
        let log = try server.psql("SELECT key || '=' || position FROM larder_writes WHERE collection = 'entries' ORDER BY position", database: primary.configuration.database)
        #expect(log.split(separator: "\n").map(String.init) == ["e0=1", "e1=2", "e2=3", "e3=4", "e4=5"], "\(log)")
        let b = try await Self.open(primary, "b")
        #expect(try await Self.value("counter", in: b) == 5)
        #expect(try ReplicaTests.contents(of: b) == ReplicaTests.contents(of: a))
        // Online again: writes go straight to the primary.
        try await Self.increment(a, entry: "e5")
        #expect(try a.pendingCommitCount == 0)
        #expect(try a.position == 6)
        await a.close()
        await b.close()
    }

    @Test(arguments: [true, false])
    func aPendingWriteWhoseReadsAnotherReplicaChangedIsRejectedAndTakenOffWithTheWritesThatReadIt(byProcedure: Bool) async throws {
        let server = try PrivatePostgresServer.start(name: "larder-offline")
        defer { server.destroy() }
        let primary = try ReplicaTests.Primary(server: server, usesCommitProcedure: byProcedure)
        defer { primary.removeFiles() }
        var a = try await Self.open(primary, "a")
        try await a.write { try $0.setObject(1, forKey: "x", inCollection: "c") }

        try server.stop(immediately: true)
        // p1 reads x; p2 reads nothing; p3 reads x, which p1 wrote.
        try await a.write { txn in
            let x = try txn.object(forKey: "x", inCollection: "c", as: Int.self) ?? 0
            try txn.setObject(x + 1, forKey: "x", inCollection: "c")
            try txn.setCommitInfo("p1")
        }
        try await a.write { txn in
            try txn.setObject(5, forKey: "z", inCollection: "c")
            try txn.setCommitInfo("p2")
        }
        try await a.write { txn in
            let x = try txn.object(forKey: "x", inCollection: "c", as: Int.self) ?? 0
            try txn.setObject(x * 10, forKey: "w", inCollection: "c")
            try txn.setCommitInfo("p3")
        }
        #expect(try await Self.value("x", in: a) == 2)
        #expect(try await Self.value("w", in: a) == 20)
        await a.close()

        // Another replica changes x while a is away.
        try server.start()
        let b = try await Self.open(primary, "b")
        try await b.write { try $0.setObject(100, forKey: "x", inCollection: "c") }

        let rejections = Rejections()
        a = try await Self.open(primary, "a", rejections: rejections)
        #expect(try await ReplicaTests.eventually { try a.pendingCommitCount == 0 }, "the pending commits were not settled")
        #expect(try await Self.value("x", in: a) == 100, "p1 was taken off: a shows b's x")
        #expect(try await Self.value("z", in: a) == 5, "p2 read nothing another replica wrote: made")
        #expect(try await Self.value("w", in: a) == nil, "p3 read p1's x: taken off with it")
        let rejected = try a.rejectedCommits()
        #expect(try rejected.flatMap { try $0.commitInfo(as: String.self) } == ["p1", "p3"])
        #expect(rejected.allSatisfy { $0.reason == .conflict })
        let p1 = try #require(rejected.first)
        #expect(p1.changes.map(\.key) == ["x"])
        #expect(try p1.changes.first?.object(as: Int.self) == 2, "the rejected change says what it wrote")
        // Decoded as what it is not: a clear error, not a wrong value.
        let wrongType = try #require(throws: LarderError.self) { try p1.changes.first?.object(as: [String].self) }
        #expect(wrongType.code == .decodingFailed)
        // Told and counted once the transaction that settled them has committed.
        #expect(try await ReplicaTests.eventually { rejections.seen.withLock { $0.map(\.id) } == rejected.map(\.id) })
        #expect(try await ReplicaTests.eventually { a.statistics.rejectedCommits == 2 && a.statistics.pendingCommitsMade == 1 }, "\(a.statistics)")
        try await b.catchUp()
        #expect(try ReplicaTests.contents(of: b) == ReplicaTests.contents(of: a))
        let onPrimary = try server.psql("SELECT key FROM larder_objects ORDER BY key", database: primary.configuration.database)
        #expect(onPrimary.split(separator: "\n").map(String.init) == ["x", "z"])

        try await a.removeRejectedCommits([p1.id])
        #expect(try a.rejectedCommits().map(\.id) == [rejected[1].id])
        try await a.removeRejectedCommits()
        #expect(try a.rejectedCommits().isEmpty)
        await a.close()
        await b.close()
    }

    /// Two replicas with writers on each while the primary is stopped and started under them:
    /// every write that returned is on the primary or among the rejected commits (never both),
    /// every one that read nothing is on the primary, the counter counts exactly the increments
    /// the primary has, and the replicas end equal.
    @Test func theServerStoppedAndStartedUnderWritersLosesNoWrite() async throws {
        let server = try PrivatePostgresServer.start(name: "larder-offline")
        defer { server.destroy() }
        let primary = try ReplicaTests.Primary(server: server)
        defer { primary.removeFiles() }
        let replicas = [try await Self.open(primary, "a"), try await Self.open(primary, "b")]
        let outcomes = Outcomes()
        let stop = ContinuousClock.now + .seconds(7)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, replica) in replicas.enumerated() {
                for writer in 0..<3 {
                    group.addTask {
                        var step = 0
                        while ContinuousClock.now < stop {
                            let entry = "r\(index)-w\(writer)-\(step)"
                            step += 1
                            do {
                                if writer == 2 {
                                    // Reads nothing: never in conflict, so always made.
                                    try await replica.write { try $0.setObject(1, forKey: entry, inCollection: "notes") }
                                } else {
                                    try await Self.increment(replica, entry: entry)
                                }
                                outcomes.acknowledged.withLock { _ = $0.insert(entry) }
                            } catch let error as LarderError where error.code == .commitOutcomeUnknown {
                                outcomes.unknown.withLock { _ = $0.insert(entry) }
                            } catch let error as LarderError where error.code == .writeConflict {
                                continue
                            }
                        }
                    }
                }
            }
            // The nemesis, while the writers write.
            for round in 0..<2 {
                try await Task.sleep(for: .milliseconds(1200))
                try server.stop(immediately: true)
                // A write of its own while the server is down (a first attempt may still meet the
                // old connection and end unknown), so that the offline path is taken however
                // slowly the writers run beside the rest of the suite.
                for attempt in 0..<2 {
                    do {
                        try await replicas[round].write { try $0.setObject(1, forKey: "nemesis-\(round)-\(attempt)", inCollection: "notes") }
                        break
                    } catch let error as LarderError where error.code == .commitOutcomeUnknown || error.code == .writeConflict {
                        continue
                    }
                }
                try await Task.sleep(for: .milliseconds(1500))
                try server.start()
            }
            try await group.waitForAll()
        }
        for replica in replicas {
            #expect(try await ReplicaTests.eventually { try replica.pendingCommitCount == 0 },
                    "pending commits were not settled: \((try? replica.pendingCommitCount) ?? -1) left; \(replica.statistics); \(String(describing: replica.lastFollowError))")
        }
        for replica in replicas { try await replica.catchUp() }
        let onPrimary = try server.psql("SELECT key FROM larder_objects WHERE collection = 'entries'", database: primary.configuration.database)
        let made = Set(onPrimary.split(separator: "\n").map(String.init))
        let rejected = Set(try replicas.flatMap { try $0.rejectedCommits() }.flatMap(\.changes).filter { $0.collection == "entries" }.map(\.key))
        let notes = try server.psql("SELECT key FROM larder_objects WHERE collection = 'notes'", database: primary.configuration.database)
        let ackedNotes = outcomes.acknowledged.withLock { $0 }.filter { $0.hasSuffix("-w2") || $0.contains("-w2-") }
        let missingNotes = ackedNotes.subtracting(notes.split(separator: "\n").map(String.init))
        #expect(missingNotes.isEmpty, "\(missingNotes.count) of \(ackedNotes.count) writes that read nothing are not on the primary")
        let acked = outcomes.acknowledged.withLock { $0 }.subtracting(ackedNotes)
        #expect(!acked.isEmpty)
        #expect(replicas.map(\.statistics.offlineCommits).reduce(0, +) > 0, "no write was made offline")
        let lost = acked.subtracting(made).subtracting(rejected)
        #expect(lost.isEmpty, "\(lost.count) of \(acked.count) acknowledged writes are neither on the primary (\(made.count)) nor rejected (\(rejected.count)), e.g. \(lost.sorted().prefix(5)); \(replicas.map(\.statistics))")
        #expect(made.intersection(rejected).isEmpty, "a rejected write is on the primary")
        let strangers = made.subtracting(acked).subtracting(outcomes.unknown.withLock { $0 })
        #expect(strangers.isEmpty, "writes nobody made are on the primary: \(strangers.sorted().prefix(5))")
        for replica in replicas {
            #expect(try await Self.value("counter", in: replica) == made.count, "the counter counts the increments the primary made")
        }
        #expect(try ReplicaTests.contents(of: replicas[0]) == ReplicaTests.contents(of: replicas[1]))
        for replica in replicas { await replica.close() }
    }
}
