import Foundation
import Larder
import LarderPostgres
import PostgresTestServer
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replicas in processes of their own (`larder-replica-helper`, Tests/ReplicaHelper/main.swift)
/// on one PostgreSQL primary (the private test server, a fresh database per test): concurrent
/// read-modify-write transactions stay serializable, a writer killed with SIGKILL loses no
/// acknowledged write and leaves a sound store, and every replica ends with the same data.
///
/// Quick sizes by default; `LARDER_FULL=1` selects the full ones.
@Suite("Replicas in several processes", .serialized)
struct ReplicaProcessTests {
    static var isFull: Bool { ProcessInfo.processInfo.environment["LARDER_FULL"] != nil }

    /// A fresh database on the shared private server: its URL and the primary's configuration.
    static func freshPrimary() throws -> (url: String, primary: PrimaryConfiguration) {
        let server = try PrivatePostgresServer.shared
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        try server.createDatabase(name)
        let url = server.url(database: name)
        return (url, try PrimaryConfiguration(url: url))
    }

    /// Opens the replica at `path`, runs `body` with it and closes it, whatever `body` does.
    /// Each of the three steps must end within `limit`: a step that hangs fails the test with
    /// its name (``ReplicaStepTimedOut``) instead of hanging the run; its task is left behind.
    ///
    /// The limit is 180 s, not 60: these steps resume on Swift's cooperative pool, which has one
    /// thread per core, and on a 2-core machine the synchronous suites that run beside them (the
    /// crash, power-loss and migration kill tests block their thread while they wait for a child
    /// process) can hold both threads for a minute. Twice a clean-clone run under such load saw
    /// `Replica.open` of a fresh primary pass 60 s; run alone the suite takes 15 s.
    static func withReplica<R: Sendable>(
        at path: String, primary: PrimaryConfiguration, limit: Duration = .seconds(180),
        _ body: @escaping @Sendable (Replica) async throws -> R
    ) async throws -> R {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let replica = try await step("Replica.open(\(name))", limit: limit) { try await Replica.open(at: path, primary: primary) }
        let result: Result<R, any Error>
        do {
            result = .success(try await step("the work on \(name)", limit: limit) { try await body(replica) })
        } catch {
            result = .failure(error)
        }
        try await step("close() of \(name)", limit: limit) { await replica.close() }
        return try result.get()
    }

    /// Runs `body` in a task of its own and returns what it returns, or throws
    /// ``ReplicaStepTimedOut`` once `limit` has passed (the task is cancelled and left behind).
    static func step<R: Sendable>(_ name: String, limit: Duration, _ body: @escaping @Sendable () async throws -> R) async throws -> R {
        let outcome = Mutex<Result<R, any Error>?>(nil)
        let task = Task {
            let result: Result<R, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
        }
        let deadline = ContinuousClock.now + limit
        while true {
            if let result = outcome.withLock({ $0 }) { return try result.get() }
            if ContinuousClock.now > deadline {
                task.cancel()
                throw ReplicaStepTimedOut(step: name, limit: limit)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    static func helper() throws -> String {
        try #require(ReplicaHelperProcess.executable(), "larder-replica-helper not found beside the test binary")
    }

    // MARK: Transfers

    /// What a replica shows of the transfers test.
    struct Ledger: Equatable, Sendable {
        var position: UInt64
        var balances: [String: Int]
        var transfers: [String: Int]
    }

    static func ledger(of replica: Replica) async throws -> Ledger {
        let position = try replica.position
        return try await replica.database.read { txn in
            var ledger = Ledger(position: position, balances: [:], transfers: [:])
            for key in try txn.keys(inCollection: "accounts") {
                ledger.balances[key] = try txn.object(forKey: key, inCollection: "accounts", as: Int.self)
            }
            for key in try txn.keys(inCollection: "transfers") {
                ledger.transfers[key] = try txn.object(forKey: key, inCollection: "transfers", as: Int.self)
            }
            return ledger
        }
    }

    @Test("three processes make transfers between ten accounts: the total holds in every snapshot, every acknowledged transfer is kept, all replicas agree")
    func transfersAcrossProcesses() async throws {
        let helper = try Self.helper()
        let (url, primary) = try Self.freshPrimary()
        let directory = ReplicaProcessDirectory()
        let seconds = Self.isFull ? 20 : 3
        let accounts = 10
        try await Self.withReplica(at: directory.file("seed"), primary: primary) { seed in
            try await seed.write { txn in
                for account in 0..<accounts { try txn.setObject(1000, forKey: "acct-\(account)", inCollection: "accounts") }
            }
        }

        let paths = (0..<3).map { directory.file("replica-\($0)") }
        let seed = UInt64.random(in: 0...UInt64(UInt32.max))
        let processes = try paths.enumerated().map { index, path in
            try LaunchedReplicaHelper(helper, ["transfers", path, url, String(seconds), String(accounts), String(seed + UInt64(index))])
        }
        var runs: [ReplicaHelperRun] = []
        for process in processes { runs.append(await process.wait(timeout: Double(seconds) + 120)) }

        // Each process checked the total in a snapshot of its replica after every write, and
        // exits 1 with `bad-total` when it differed.
        var acknowledged = Set<String>()
        for (index, run) in runs.enumerated() {
            #expect(run.status == 0 && run.signal == nil, "process \(index) (seed \(seed + UInt64(index))): \(run)")
            #expect(run.values(after: "bad-total ").isEmpty, "process \(index) saw the total change: \(run)")
            let acks = run.values(after: "ack ")
            #expect(!acks.isEmpty, "process \(index) made no transfer: \(run)")
            #expect(run.values(after: "done ") == [String(acks.count)], "process \(index): `done` does not count its acks: \(run)")
            #expect(Set(acks).count == acks.count, "process \(index) acknowledged an id twice")
            acknowledged.formUnion(acks)
        }

        // Every process's replica again, the seeding one, and one that starts from nothing.
        var ledgers: [(String, Ledger)] = []
        for path in paths + [directory.file("seed"), directory.file("fresh")] {
            let ledger = try await Self.withReplica(at: path, primary: primary) { replica in
                try await replica.catchUp()
                return try await Self.ledger(of: replica)
            }
            ledgers.append((path, ledger))
        }
        let reference = ledgers[0].1
        for (path, ledger) in ledgers {
            let name = URL(fileURLWithPath: path).lastPathComponent
            #expect(ledger.balances.count == accounts, "\(name): \(ledger.balances.count) accounts")
            #expect(ledger.balances.values.reduce(0, +) == accounts * 1000, "\(name): the total is \(ledger.balances.values.reduce(0, +))")
            let stored = Set(ledger.transfers.keys)
            let lost = acknowledged.subtracting(stored)
            #expect(lost.isEmpty, "\(name): \(lost.count) acknowledged transfers are missing, e.g. \(lost.sorted().prefix(5))")
            // Every process exited 0, so each write that returned was acknowledged, and a write
            // that gave up on conflicts committed nothing: no transfer exists unacknowledged.
            let unacknowledged = stored.subtracting(acknowledged)
            #expect(unacknowledged.isEmpty, "\(name): \(unacknowledged.count) transfers were never acknowledged, e.g. \(unacknowledged.sorted().prefix(5))")
            #expect(ledger.transfers.values.allSatisfy { (1...10).contains($0) }, "\(name): a transfer's amount is out of 1...10")
            #expect(ledger.position == reference.position, "\(name) is at commit \(ledger.position), \(URL(fileURLWithPath: ledgers[0].0).lastPathComponent) at \(reference.position)")
            #expect(ledger.transfers == reference.transfers, "\(name): the transfers differ from the first replica's")
            #expect(ledger.balances == reference.balances, "\(name): the balances differ from the first replica's: \(ledger.balances) vs \(reference.balances)")
        }
        if Self.isFull {
            let conflicts = runs.flatMap { $0.values(after: "conflicts ") }.compactMap(Int.init).reduce(0, +)
            let reruns = runs.flatMap { $0.values(after: "statistics ") }.compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("conflicts=") }.flatMap { Int($0.dropFirst("conflicts=".count)) }
            }.reduce(0, +)
            print("replica transfers: \(acknowledged.count) transfers by 3 processes in \(seconds) s, \(reruns) closures run again after a conflict, \(conflicts) writes gave up; commit \(reference.position)")
        }
    }

    // MARK: SIGKILL

    /// The view `writer-until-killed` keeps (Tests/ReplicaHelper/Support.swift): the same
    /// definition, so that registering it here reuses the stored view and
    /// `verifyExtensions()` checks what the killed processes left.
    static let ackedView = AutoView<Int, NoMetadata>(
        collections: ["acked"], versionTag: "1",
        grouping: { _, value in value % 2 == 0 ? "even" : "odd" },
        sorting: { _, value in TupleKey(value) })

    /// Registers the view on `replica`, catches up and checks the store; returns the objects of
    /// "acked".
    static func checkedAckedObjects(of replica: Replica, name: String) async throws -> [String: Int] {
        let view = try replica.database.register(Self.ackedView, named: "ackedByParity")
        try await replica.catchUp()
        let (stored, viewed) = try await replica.database.read { txn in
            var stored: [String: Int] = [:]
            for key in try txn.keys(inCollection: "acked") {
                stored[key] = try txn.object(forKey: key, inCollection: "acked", as: Int.self)
            }
            return (stored, try txn[view].numberOfItems())
        }
        #expect(viewed == stored.count, "\(name): the view holds \(viewed) items for \(stored.count) objects")
        let differences = try replica.database.verifyExtensions()
        #expect(differences.isEmpty, "\(name): the view does not match the objects: \(differences.prefix(5))")
        let report = try replica.database.checkStructure()
        #expect(report.isConsistent, "\(name): \(report.problems.prefix(5))")
        return stored
    }

    @Test("a writer killed with SIGKILL again and again loses no acknowledged write, and its store stays sound")
    func killedWriterLosesNoAcknowledgedWrite() async throws {
        let helper = try Self.helper()
        let (url, primary) = try Self.freshPrimary()
        let directory = ReplicaProcessDirectory()
        let path = directory.file("killed")
        let kills = Self.isFull ? 50 : 5
        var acknowledged: [String: Int] = [:]
        var killsAfterAnAck = 0
        for kill in 0..<kills {
            let process = try LaunchedReplicaHelper(helper, ["writer-until-killed", path, url])
            try await Task.sleep(for: .milliseconds(Int.random(in: 300...1200)))
            process.send(SIGKILL)
            let run = await process.wait(timeout: 60)
            #expect(run.signal == SIGKILL, "kill \(kill): the writer ended before the kill: \(run)")
            if !run.values(after: "ack ").isEmpty { killsAfterAnAck += 1 }
            for id in run.values(after: "ack ") {
                let value = try #require(id.split(separator: "-").last.flatMap { Int($0) }, "kill \(kill): bad ack \(id)")
                acknowledged[id] = value
            }
        }
        #expect(!acknowledged.isEmpty, "no write was acknowledged in \(kills) runs")

        var contents: [[String: Int]] = []
        for (name, replicaPath) in [("the killed writer's replica", path), ("a fresh replica", directory.file("fresh"))] {
            let stored = try await Self.withReplica(at: replicaPath, primary: primary) { replica in
                try await Self.checkedAckedObjects(of: replica, name: name)
            }
            let lost = acknowledged.filter { stored[$0.key] != $0.value }
            #expect(lost.isEmpty, "\(name): \(lost.count) of \(acknowledged.count) acknowledged writes are missing or wrong, e.g. \(lost.keys.sorted().prefix(5))")
            // What is there beyond the acknowledged writes can only be writes of the killed
            // processes whose ack was not printed yet: the same key scheme.
            #expect(stored.allSatisfy { key, value in key.hasPrefix("k-") && key.hasSuffix("-\(value)") }, "\(name): an object that no writer made")
            contents.append(stored)
        }
        #expect(contents[0] == contents[1], "the two replicas differ: \(contents[0].count) and \(contents[1].count) objects")
        if Self.isFull {
            print("replica SIGKILL: \(kills) kills (\(killsAfterAnAck) after the writer's first ack), \(acknowledged.count) acknowledged writes, \(contents[0].count) objects, nothing lost")
        }
    }

    // MARK: Counters

    @Test("three processes increment one counter: not one increment is lost or doubled")
    func exactCounterAcrossProcesses() async throws {
        let helper = try Self.helper()
        let (url, primary) = try Self.freshPrimary()
        let directory = ReplicaProcessDirectory()
        let increments = Self.isFull ? 200 : 30
        // The primary's tables are made first (opening three replicas on a fresh primary at once
        // is the next test's subject), by a replica that is checked at the end too.
        let first = directory.file("counter-first")
        _ = try await Self.withReplica(at: first, primary: primary) { replica in try replica.position }
        let paths = (0..<3).map { directory.file("counter-\($0)") }
        let processes = try paths.map { try LaunchedReplicaHelper(helper, ["increments", $0, url, String(increments)]) }
        var runs: [ReplicaHelperRun] = []
        for process in processes { runs.append(await process.wait(timeout: 300)) }
        for (index, run) in runs.enumerated() {
            #expect(run.status == 0 && run.signal == nil, "process \(index): \(run)")
            #expect(run.values(after: "ack ") == (1...increments).map(String.init), "process \(index) did not acknowledge each increment once: \(run)")
            #expect(run.lines.last == "done", "process \(index): \(run)")
        }
        let expected = 3 * increments
        var positions: [UInt64] = []
        for path in paths + [first, directory.file("fresh")] {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let (total, position) = try await Self.withReplica(at: path, primary: primary) { replica in
                try await replica.catchUp()
                let total = try await replica.database.read { try $0.object(forKey: "total", inCollection: "counters", as: Int.self) }
                return (total, try replica.position)
            }
            #expect(total == expected, "\(name): the counter is \(String(describing: total)), not \(expected)")
            positions.append(position)
        }
        // One commit per increment, and nothing else.
        #expect(positions.allSatisfy { $0 == UInt64(expected) }, "positions \(positions), expected \(expected) commits")
    }

    // MARK: Opening at once

    @Test("three processes open replicas on a fresh primary at the same moment: each makes or finds its tables and writes")
    func replicasOpenedAtOnceOnAFreshPrimary() async throws {
        let helper = try Self.helper()
        for round in 0..<(Self.isFull ? 10 : 3) {
            let (url, primary) = try Self.freshPrimary()
            let directory = ReplicaProcessDirectory()
            let paths = (0..<3).map { directory.file("opener-\($0)") }
            let processes = try paths.map { try LaunchedReplicaHelper(helper, ["increments", $0, url, "1"]) }
            var runs: [ReplicaHelperRun] = []
            for process in processes { runs.append(await process.wait(timeout: 120)) }
            for (index, run) in runs.enumerated() {
                #expect(run.status == 0 && run.signal == nil, "round \(round), process \(index): \(run)")
            }
            let made = runs.filter { $0.status == 0 }.count
            let total = try await Self.withReplica(at: directory.file("fresh"), primary: primary) { replica in
                try await replica.database.read { try $0.object(forKey: "total", inCollection: "counters", as: Int.self) }
            }
            #expect(total == made, "round \(round): \(made) processes succeeded, the counter is \(String(describing: total))")
        }
    }
}

/// A step of a test that did not end in time (see ``ReplicaProcessTests/step(_:limit:_:)``).
struct ReplicaStepTimedOut: Error, CustomStringConvertible {
    var step: String
    var limit: Duration
    var description: String { "\(step) did not return within \(limit)" }
}
