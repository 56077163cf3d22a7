import Foundation
import Larder
import LarderPostgres
import PostgresTestServer
import Testing

// The samples of Documentation/ScalingOut.md, each in a test that checks what it did. (They live
// here, not in Tests/LarderTests/Samples, because they need LarderPostgres and a server.)

/// Adds 10 to Alice's balance through the primary at `url`, with the replica kept at `path`.
func deposit(primaryURL url: String, replicaPath path: String) async throws -> Int? {
    // libpq's settings: a URL ("postgresql://app:secret@db.internal:5432/app?sslmode=require"),
    // or PrimaryConfiguration(environment:) for PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE.
    let primary = try PrimaryConfiguration(url: url)
    let replica = try await Replica.open(at: path, primary: primary)

    // Writes: the closure runs on the replica, and commits on the primary.
    try await replica.write { txn in
        let balance = try txn.object(forKey: "alice", inCollection: "accounts", as: Int.self) ?? 0
        try txn.setObject(balance + 10, forKey: "alice", inCollection: "accounts")
    }

    // Reads: the replica's own store, as any Larder store (views, indexes, snapshots, observation).
    let balance = try await replica.database.read { try $0.object(forKey: "alice", inCollection: "accounts", as: Int.self) }

    await replica.close()
    return balance
}

/// Saves a note through the replica at `path`, even while the primary is away; returns how many
/// of the replica's writes wait for the primary.
func saveNote(_ text: String, id: String, primary: PrimaryConfiguration, replicaPath path: String) async throws -> Int {
    var configuration = Replica.Configuration()
    // A write the primary cannot take now commits on the replica, and waits there for it.
    configuration.writesOffline = true
    configuration.onEvent = { event in
        if case .commitRejected(let rejected) = event {
            // Written offline, then turned down: another replica changed what it read.
            print("not saved:", rejected.changes.map(\.key))
        }
    }
    let replica = try await Replica.open(at: path, primary: primary, configuration: configuration)
    try await replica.write { txn in try txn.setObject(text, forKey: id, inCollection: "notes") }
    // Sent in order once the primary is back.
    let waiting = try replica.pendingCommitCount
    // Kept until removed: show them, or write them again.
    for rejected in try replica.rejectedCommits() {
        print(rejected.madeAt, try rejected.changes.first?.object(as: String.self) ?? "removed")
    }
    try await replica.removeRejectedCommits()
    await replica.close()
    return waiting
}

@Suite("Scaling-out samples", .serialized)
struct ScalingOutSamples {
    @Test func theDepositSampleWritesThroughThePrimaryFromTwoReplicas() async throws {
        let server = try PrivatePostgresServer.shared
        let name = "sample_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        try server.createDatabase(String(name))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("larder-sample-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Two instances, each with its own replica, deposit in turn: each sees the other's.
        #expect(try await deposit(primaryURL: server.url(database: String(name)), replicaPath: directory.appendingPathComponent("one").path) == 10)
        #expect(try await deposit(primaryURL: server.url(database: String(name)), replicaPath: directory.appendingPathComponent("two").path) == 20)
        #expect(try await deposit(primaryURL: server.url(database: String(name)), replicaPath: directory.appendingPathComponent("one").path) == 30)
    }

    @Test func theOfflineSampleSavesWhileThePrimaryIsAwayAndSendsWhenItIsBack() async throws {
        let server = try PrivatePostgresServer.start(name: "larder-sample-offline")
        defer { server.destroy() }
        try server.createDatabase("notes")
        let primary = try PrimaryConfiguration(url: server.url(database: "notes"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("larder-sample-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("replica").path
        #expect(try await saveNote("first", id: "n1", primary: primary, replicaPath: path) == 0)
        try server.stop(immediately: true)
        #expect(try await saveNote("second", id: "n2", primary: primary, replicaPath: path) == 1)
        try server.start()
        _ = try await saveNote("third", id: "n3", primary: primary, replicaPath: path)
        // The replica sends what waits whenever it is open with the primary there.
        let replica = try await Replica.open(at: path, primary: primary)
        #expect(try await ReplicaTests.eventually { try replica.pendingCommitCount == 0 })
        await replica.close()
        // Another instance sees all three.
        let other = try await Replica.open(at: directory.appendingPathComponent("other").path, primary: primary)
        #expect(try await ReplicaTests.eventually {
            try await other.catchUp()
            return try await other.database.read { try $0.keys(inCollection: "notes") } == ["n1", "n2", "n3"]
        })
        await other.close()
    }

    @Test func theEnvironmentAndURLSettingsAreLibpqs() throws {
        let url = try PrimaryConfiguration(url: "postgresql://app:s%40cret@db.internal:6543/shop?sslmode=verify-full")
        #expect(url.host == "db.internal" && url.port == 6543 && url.username == "app" && url.password == "s@cret" && url.database == "shop")
        #expect(url.tls == .require)
        #expect(!url.description.contains("cret"))
        let environment = try PrimaryConfiguration(environment: ["PGHOST": "h", "PGPORT": "7000", "PGUSER": "u", "PGPASSWORD": "p", "PGSSLMODE": "disable"])
        #expect(environment.host == "h" && environment.port == 7000 && environment.username == "u" && environment.password == "p")
        #expect(environment.database == "u" && environment.tls == .disable)
        #expect(throws: LarderError.self) { try PrimaryConfiguration(url: "mysql://x@y/z") }
        #expect(throws: LarderError.self) { try PrimaryConfiguration(url: "postgresql://x@y/z?sslmode=sometimes") }
    }

    @Test func settingsLibpqWouldRefuseAreRefused() throws {
        // A malformed escape used to drop the password (or the user, the database) silently.
        for url in ["postgresql://app:s%ZZcret@db/shop", "postgresql://a%G1pp:secret@db/shop", "postgresql://app:secret@db/sh%op"] {
            let error = try #require(throws: LarderError.self) { try PrimaryConfiguration(url: url) }
            #expect(error.code == .invalidConfiguration && error.message.contains("% escape"), "\(url): \(error)")
            #expect(!error.description.contains("cret"))
        }
        // A PGPORT that is not a port used to become 5432.
        for port in ["notaport", "0", "70000", "54 32"] {
            let error = try #require(throws: LarderError.self) { try PrimaryConfiguration(environment: ["PGPORT": port, "PGUSER": "u"]) }
            #expect(error.code == .invalidConfiguration && error.message.contains("PGPORT"), "PGPORT=\(port): \(error)")
        }
        #expect(throws: LarderError.self) { try PrimaryConfiguration(environment: ["PGSSLMODE": "sometimes", "PGUSER": "u"]) }
        #expect(try PrimaryConfiguration(environment: ["PGUSER": "u"]).port == 5432)
        #expect(try PrimaryConfiguration(environment: ["PGUSER": "u", "PGPORT": ""]).port == 5432)  // empty is unset, as in libpq
    }
}

/// Prints why `replica` has not reached its primary since its last failure, if it has not
/// (the sample of "When the replica's own work fails"; run by ReplicaTests).
func reportFollowing(of replica: Replica) {
    let statistics = replica.statistics
    if let failure = statistics.lastFailure, failure.date > statistics.lastPrimaryContact ?? .distantPast {
        print("the replica has not reached the primary since \(failure.work) failed: \(failure.error)")
    }
}
