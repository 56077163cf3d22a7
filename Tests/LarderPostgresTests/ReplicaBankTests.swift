import Foundation
import Larder
import LarderPostgres
import PostgresTestServer
import Testing

/// The bank, tested as Jepsen would: replicas in processes of their own make random transfers
/// (each with a log row) while the test injects faults into the primary during the commits —
/// terminated backends, immediate stops and restarts — then, with the primary quiet, every
/// acknowledged transfer must be on the primary, none that was refused, and every replica must
/// hold exactly the primary's tables, with balances that the transfer log accounts for.
///
/// Quick in CI (one round of a few seconds); `LARDER_FULL=1` runs ten rounds of 60 s.
@Suite("Replicas: the bank under faults", .serialized)
struct ReplicaBankTests {
    static var isFull: Bool { ProcessInfo.processInfo.environment["LARDER_FULL"] != nil }

    struct Transfer: Codable, Equatable {
        var from: String
        var to: String
        var amount: Int
    }

    /// What one round found, for the report of a full run.
    struct Round {
        var acknowledged = 0
        var refused = 0
        var unknown = 0
        var unknownMade = 0
        var faults: [String: Int] = [:]
        var commits: UInt64 = 0
        var lost = 0
        var appeared = 0
        var differences = 0
        /// Batches the processes sent, and the largest (their writers commit together).
        var batches = 0
        var largestBatch = 0
    }

    /// The value of `name=` in a process's `statistics` line.
    static func statistic(_ name: String, of run: ReplicaHelperRun) -> Int? {
        run.values(after: "statistics ").last.flatMap { line in
            line.split(separator: " ").first { $0.hasPrefix(name + "=") }.flatMap { Int($0.dropFirst(name.count + 1)) }
        }
    }

    @Test("processes make transfers while backends are terminated and the primary restarts: no acknowledged transfer is lost, none refused appears, every replica equals the primary")
    func bankUnderFaults() async throws {
        let rounds = Self.isFull ? 10 : 1
        let seconds = Self.isFull ? 60 : 6
        var total = Round()
        for round in 0..<rounds {
            let result = try await Self.runRound(round, seconds: seconds, processes: Self.isFull ? 4 : 3)
            total.acknowledged += result.acknowledged
            total.refused += result.refused
            total.unknown += result.unknown
            total.unknownMade += result.unknownMade
            total.commits += result.commits
            total.lost += result.lost
            total.appeared += result.appeared
            total.differences += result.differences
            total.faults.merge(result.faults, uniquingKeysWith: +)
            total.batches += result.batches
            total.largestBatch = max(total.largestBatch, result.largestBatch)
        }
        print("replica bank: \(rounds) rounds of \(seconds) s: \(total.acknowledged) transfers acknowledged, \(total.refused) refused, \(total.unknown) with unknown outcome (\(total.unknownMade) of them made); faults \(total.faults.sorted { $0.key < $1.key }); \(total.commits) commits in \(total.batches) batches (largest \(total.largestBatch)); \(total.lost) acknowledged transfers lost, \(total.appeared) refused ones on the primary, \(total.differences) rows differing between a replica and the primary")
    }

    static func runRound(_ round: Int, seconds: Int, processes count: Int) async throws -> Round {
        let helper = try ReplicaProcessTests.helper()
        // A server of the test's own: it is stopped and started under the writers.
        let server = try PrivatePostgresServer.start(name: "larder-bank")
        defer { server.destroy() }
        let databaseName = "bank"
        try server.createDatabase(databaseName)
        let url = server.url(database: databaseName)
        let primary = try PrimaryConfiguration(url: url)
        let directory = ReplicaProcessDirectory()
        let accounts = 12
        try await ReplicaProcessTests.withReplica(at: directory.file("seed"), primary: primary) { seed in
            try await seed.write { txn in
                for account in 0..<accounts { try txn.setObject(100, forKey: "acct-\(account)", inCollection: "accounts") }
            }
        }

        let seed = UInt64.random(in: 0...UInt64(UInt32.max))
        let paths = (0..<count).map { directory.file("replica-\($0)") }
        let processes = try paths.enumerated().map { index, path in
            try LaunchedReplicaHelper(helper, ["bank", path, url, String(seconds), String(accounts), String(seed &+ UInt64(index))])
        }

        // The nemesis: during the run, every 150-600 ms, terminate every backend of the
        // database (the writers' commits among them), and now and then stop the server at
        // once and start it again.
        var result = Round()
        let end = ContinuousClock.now + .seconds(seconds)
        var random = SystemRandomNumberGenerator()
        try await Task.sleep(for: .milliseconds(500))
        while ContinuousClock.now < end - .milliseconds(500) {
            try await Task.sleep(for: .milliseconds(Int.random(in: 150...600, using: &random)))
            if Int.random(in: 0..<8, using: &random) == 0 {
                try server.stop(immediately: true)
                try await Task.sleep(for: .milliseconds(Int.random(in: 100...800, using: &random)))
                try server.start()
                result.faults["restart", default: 0] += 1
            } else {
                _ = try? server.psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(databaseName)' AND pid <> pg_backend_pid()")
                result.faults["terminate", default: 0] += 1
            }
        }
        var runs: [ReplicaHelperRun] = []
        for process in processes { runs.append(await process.wait(timeout: Double(seconds) + 180)) }
        try server.start()  // it is running; a no-op unless the last fault left it stopped

        var acknowledged = Set<String>(), refused = Set<String>(), unknown = Set<String>()
        for (index, run) in runs.enumerated() {
            #expect(run.status == 0 && run.signal == nil, "round \(round), process \(index) (seed \(seed &+ UInt64(index))): \(run)")
            #expect(run.values(after: "bad-total ").isEmpty, "round \(round), process \(index) saw its replica's total change: \(run)")
            let acks = run.values(after: "ack ")
            #expect(run.values(after: "done ") == [String(acks.count)], "round \(round), process \(index): \(run)")
            acknowledged.formUnion(acks)
            result.batches += Self.statistic("batches", of: run) ?? 0
            result.largestBatch = max(result.largestBatch, Self.statistic("largest-batch", of: run) ?? 0)
            refused.formUnion(run.values(after: "fail "))
            unknown.formUnion(run.values(after: "unknown "))
        }
        #expect(!acknowledged.isEmpty, "round \(round): no transfer was acknowledged")

        // Quiescence: the primary's tables, read straight from PostgreSQL.
        let primaryRows = try Self.primaryObjects(server, database: databaseName)
        let primaryHead = try UInt64(#require(UInt64(server.psql("SELECT position FROM larder_head", database: databaseName))))
        let transferIDs = Set(primaryRows.keys.filter { $0.collection == "transfers" }.map(\.key))
        let lost = acknowledged.subtracting(transferIDs)
        #expect(lost.isEmpty, "round \(round): \(lost.count) acknowledged transfers are not on the primary, e.g. \(lost.sorted().prefix(5))")
        result.lost = lost.count
        let appeared = refused.intersection(transferIDs)
        result.appeared = appeared.count
        #expect(appeared.isEmpty, "round \(round): \(appeared.count) transfers whose write failed are on the primary, e.g. \(appeared.sorted().prefix(5))")
        let strangers = transferIDs.subtracting(acknowledged).subtracting(unknown)
        #expect(strangers.isEmpty, "round \(round): \(strangers.count) transfers no process wrote, e.g. \(strangers.sorted().prefix(5))")

        // Every replica (each process's, the seeding one, a fresh one) equals the primary, byte
        // for byte, at the primary's head; its balances are what its transfer log says.
        for path in paths + [directory.file("seed"), directory.file("fresh")] {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let (rows, position, balances, transfers) = try await ReplicaProcessTests.withReplica(at: path, primary: primary) { replica in
                try await replica.catchUp()
                let rows = try Self.objects(of: replica)
                let (balances, transfers) = try await replica.database.read { txn in
                    var balances: [String: Int] = [:], transfers: [Transfer] = []
                    for key in try txn.keys(inCollection: "accounts") {
                        balances[key] = try txn.object(forKey: key, inCollection: "accounts", as: Int.self)
                    }
                    for key in try txn.keys(inCollection: "transfers") {
                        if let transfer = try txn.object(forKey: key, inCollection: "transfers", as: Transfer.self) { transfers.append(transfer) }
                    }
                    return (balances, transfers)
                }
                return (rows, try replica.position, balances, transfers)
            }
            #expect(position == primaryHead, "round \(round), \(name): at commit \(position), the primary at \(primaryHead)")
            let differences = Set(rows.keys).symmetricDifference(primaryRows.keys).count + rows.filter { primaryRows[$0.key] != $0.value }.count
            result.differences += differences
            #expect(differences == 0, "round \(round), \(name): \(differences) rows differ from the primary's tables")
            var expected = Dictionary(uniqueKeysWithValues: (0..<accounts).map { ("acct-\($0)", 100) })
            for transfer in transfers {
                expected[transfer.from, default: 0] -= transfer.amount
                expected[transfer.to, default: 0] += transfer.amount
            }
            #expect(balances == expected, "round \(round), \(name): the balances are not what the transfer log makes them")
            #expect(balances.values.reduce(0, +) == accounts * 100, "round \(round), \(name): the total is \(balances.values.reduce(0, +))")
        }
        result.acknowledged = acknowledged.count
        result.refused = refused.count
        result.unknown = unknown.count
        result.unknownMade = unknown.intersection(transferIDs).count
        result.commits = primaryHead
        return result
    }

    /// A row of the data: collection and key.
    struct RowID: Hashable {
        var collection: String
        var key: String
    }

    /// What a row stores: the object's and the metadata's bytes as Larder stored them.
    struct Stored: Equatable {
        var object: [UInt8]
        var metadata: [UInt8]?
    }

    /// Every row of the data.
    typealias Rows = [RowID: Stored]

    /// The primary's objects table, read with psql: hex of the object and the metadata.
    static func primaryObjects(_ server: PrivatePostgresServer, database: String) throws -> Rows {
        let text = try server.psql(
            "SELECT encode(convert_to(collection, 'UTF8'), 'hex') || '|' || encode(convert_to(key, 'UTF8'), 'hex') || '|' || encode(object, 'hex') || '|' || coalesce(encode(metadata, 'hex'), '-') FROM larder_objects",
            database: database)
        var rows: Rows = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4 else { continue }
            let id = RowID(collection: String(decoding: hex(fields[0]), as: UTF8.self), key: String(decoding: hex(fields[1]), as: UTF8.self))
            rows[id] = Stored(object: hex(fields[2]), metadata: fields[3] == "-" ? nil : hex(fields[3]))
        }
        return rows
    }

    /// The same of a replica's store.
    static func objects(of replica: Replica) throws -> Rows {
        try replica.database.read { txn in
            var rows: Rows = [:]
            for collection in try txn.collections() {
                for key in try txn.keys(inCollection: collection) {
                    let image = try txn.replicatedImage(forKey: key, inCollection: collection)
                    rows[RowID(collection: collection, key: key)] = Stored(object: image.object ?? [], metadata: image.metadata)
                }
            }
            return rows
        }
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        for c in text.utf8 {
            let nibble: UInt8 = c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }
}
