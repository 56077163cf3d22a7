import Foundation
import Larder
import LarderPostgres
import PostgresTestServer
import Synchronization
import Testing

/// Replicas on a real PostgreSQL primary (a private server the tests start), in one process:
/// several replicas, each on a store of its own, as on several machines.
@Suite("Replicas on a PostgreSQL primary")
struct ReplicaTests {
    /// A new database on the shared server, and a directory for the replicas' stores.
    struct Primary {
        let server: PrivatePostgresServer
        let configuration: PrimaryConfiguration
        let directory: URL

        init(server: PrivatePostgresServer? = nil, usesCommitProcedure: Bool = true) throws {
            let server = try server ?? PrivatePostgresServer.shared
            let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
            try server.createDatabase(String(name))
            self.server = server
            var configuration = try PrimaryConfiguration(url: server.url(database: String(name)))
            configuration.usesCommitProcedure = usesCommitProcedure
            self.configuration = configuration
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("larder-replicas-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }

        func open(_ name: String, follows: Bool = true, retainedCommits: Int = 100_000) async throws -> Replica {
            var configuration = Replica.Configuration()
            configuration.follows = follows
            configuration.pollInterval = .milliseconds(100)
            configuration.retainedCommits = retainedCommits
            configuration.database.durability = .noMetaSync
            return try await Replica.open(at: directory.appendingPathComponent(name).path, primary: self.configuration, configuration: configuration)
        }

        func removeFiles() {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    struct Account: Codable, Sendable, Equatable {
        var owner: String
        var balance: Int
    }

    static func byOwner() -> AutoView<Account, NoMetadata> {
        AutoView<Account, NoMetadata>(collections: ["accounts"], versionTag: "1",
                                      grouping: { _, account in account.balance >= 0 ? "credit" : "debit" },
                                      sorting: { index, account in TupleKey(account.owner, index.key) })
    }

    /// Everything in the replica's store, for comparing replicas.
    static func contents(of replica: Replica) throws -> [String: [String: [UInt8]]] {
        try replica.database.read { txn in
            var contents: [String: [String: [UInt8]]] = [:]
            for collection in try txn.collections() {
                for key in try txn.keys(inCollection: collection) {
                    contents[collection, default: [:]][key] = try txn.storedObject(forKey: key, inCollection: collection)?.bytes
                }
            }
            return contents
        }
    }

    /// Adds 1 to counters/total through `replica`. Writers on one key on a loaded machine can
    /// conflict on all of a write's attempts; a write that gives up committed nothing, so it is
    /// simply made again (the sum stays exact either way).
    static func incrementTotal(through replica: Replica) async throws {
        while true {
            do {
                try await replica.write { txn in
                    let total = try txn.object(forKey: "total", inCollection: "counters", as: Int.self) ?? 0
                    try txn.setObject(total + 1, forKey: "total", inCollection: "counters")
                }
                return
            } catch let error as LarderError where error.code == .writeConflict {
                continue
            }
        }
    }

    /// Waits (up to 20 s) until `condition` holds.
    static func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<400 {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    @Test func aWriteReadsItsOwnCommitAndReachesAnotherReplica() async throws {
        let primary = try Primary()
        defer { primary.removeFiles() }
        let a = try await primary.open("a")
        let b = try await primary.open("b")
        try await a.write { try $0.setObject(Account(owner: "ann", balance: 5), forKey: "ann", inCollection: "accounts") }
        // Read-your-writes: the writer's replica shows the commit when the write returns.
        #expect(try await a.database.read { try $0.object(forKey: "ann", inCollection: "accounts", as: Account.self) } == Account(owner: "ann", balance: 5))
        #expect(try a.position == 1)
        // The other replica learns of it by itself (LISTEN/NOTIFY or the poll).
        #expect(try await Self.eventually { try await b.database.read { try $0.object(forKey: "ann", inCollection: "accounts", as: Account.self) } != nil })
        #expect(try b.position == 1)
        #expect(try Self.contents(of: a) == Self.contents(of: b))
        await a.close()
        await b.close()
    }

    /// Observers of another replica see every commit's changes, in order, with its commit
    /// information: in a changeset of its own, or with the commits applied with it (a replica
    /// applies the commits it fetched together in one local transaction, whose changeset nets
    /// them as any transaction's does).
    @Test func observersOfAnotherReplicaReceiveEachCommitsChanges() async throws {
        let primary = try Primary()
        defer { primary.removeFiles() }
        let a = try await primary.open("a")
        let b = try await primary.open("b")
        let stream = b.database.changes(inCollection: "notes")
        let received = Task {
            var seen: [(keys: Set<String>, info: [String])] = []
            for await changeset in stream {
                seen.append((changeset.changedKeys(inCollection: "notes"), (try? changeset.commitInfo(as: String.self)) ?? []))
                if changeset.changedKeys(inCollection: "notes").contains("n2") { break }
            }
            return seen
        }
        try await a.write { txn in
            try txn.setObject("one", forKey: "n1", inCollection: "notes")
            try txn.setCommitInfo("first")
        }
        try await a.write { txn in
            try txn.setObject("two", forKey: "n2", inCollection: "notes")
            try txn.removeObject(forKey: "n1", inCollection: "notes")
            try txn.setCommitInfo("second")
        }
        let seen = try await withThrowingTaskGroup(of: [(keys: Set<String>, info: [String])]?.self) { group in
            group.addTask { await received.value }
            group.addTask {
                try await Task.sleep(for: .seconds(20))
                received.cancel()
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        let changesets = try #require(seen)
        #expect(changesets.flatMap(\.info) == ["first", "second"])
        // Applied together, n1's insertion and removal net out to nothing (as in any transaction).
        #expect(changesets.map(\.keys) == [["n1"], ["n1", "n2"]] || changesets.map(\.keys) == [["n2"]], "\(changesets)")
        #expect(try await b.database.read { try $0.keys(inCollection: "notes") } == ["n2"])
        await a.close()
        await b.close()
    }

    /// Concurrent writers on one replica share round trips (issue 32, item 4: group commit
    /// across the wire): the commits made while a batch is on the wire go together in the
    /// next. Each is still checked on its own: increments of one counter, which conflict with
    /// each other inside a batch, sum exactly; writes of keys of their own, in the same batches,
    /// are made at once. Through the procedure and, one commit at a time, by statement.
    @Test(arguments: [true, false])
    func concurrentWritersShareRoundTripsAndEachIsCheckedOnItsOwn(byProcedure: Bool) async throws {
        let primary = try Primary(usesCommitProcedure: byProcedure)
        defer { primary.removeFiles() }
        let a = try await primary.open("a")
        let b = try await primary.open("b")
        let (writers, perWriter) = (12, 8)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for step in 0..<perWriter {
                        if writer % 2 == 0 {
                            try await a.write { try $0.setObject(step, forKey: "w\(writer)-\(step)", inCollection: "own") }
                            continue
                        }
                        try await Self.incrementTotal(through: a)
                    }
                }
            }
            try await group.waitForAll()
        }
        let statistics = a.statistics
        #expect(statistics.commits == writers * perWriter)
        #expect(statistics.largestBatch > 1, "no two commits went together: \(statistics)")
        #expect(statistics.batches < statistics.commits + statistics.conflicts, "\(statistics)")
        #expect(try a.position == UInt64(writers * perWriter))
        #expect(try await a.database.read { try $0.object(forKey: "total", inCollection: "counters", as: Int.self) } == writers / 2 * perWriter)
        #expect(try await a.database.read { try $0.numberOfKeys(inCollection: "own") } == writers / 2 * perWriter)
        try await b.catchUp()
        #expect(try Self.contents(of: b) == Self.contents(of: a))
        let onPrimary = try primary.server.psql("SELECT count(*) FROM larder_objects", database: primary.configuration.database)
        #expect(onPrimary == String(writers / 2 * perWriter + 1))
        await a.close()
        await b.close()
    }

    @Test func incrementsFromThreeReplicasSumExactly() async throws {
        let primary = try Primary()
        defer { primary.removeFiles() }
        var replicas: [Replica] = []
        for name in ["a", "b", "c"] { replicas.append(try await primary.open(name)) }
        let perReplica = 15
        try await withThrowingTaskGroup(of: Void.self) { group in
            for replica in replicas {
                group.addTask {
                    for _ in 0..<perReplica { try await Self.incrementTotal(through: replica) }
                }
            }
            try await group.waitForAll()
        }
        for replica in replicas {
            try await replica.catchUp()
            #expect(try await replica.database.read { try $0.object(forKey: "total", inCollection: "counters", as: Int.self) } == 3 * perReplica)
            #expect(try replica.position == UInt64(3 * perReplica))
        }
        // Three writers on one key: some closures must have run again.
        #expect(replicas.map(\.statistics.conflicts).reduce(0, +) > 0)
        for replica in replicas { await replica.close() }
    }

    @Test func aWriteWhoseReadWasChangedElsewhereRunsAgainAndSeesTheNewValue() async throws {
        let primary = try Primary()
        defer { primary.removeFiles() }
        let a = try await primary.open("a", follows: false)
        let b = try await primary.open("b", follows: false)
        try await b.write { try $0.setObject(1, forKey: "x", inCollection: "values") }
        try await a.catchUp()
        let runs = Mutex(0)
        let value = try await a.write { txn -> Int in
            let run = runs.withLock { runs in
                runs += 1
                return runs
            }
            let x = try txn.object(forKey: "x", inCollection: "values", as: Int.self) ?? 0
            if run == 1 {
                // Another replica changes x after this closure read it.
                let done = DispatchSemaphore(value: 0)
                Task {
                    try await b.write { try $0.setObject(2, forKey: "x", inCollection: "values") }
                    done.signal()
                }
                done.wait()
            }
            try txn.setObject(x * 10, forKey: "y", inCollection: "values")
            return x
        }
        #expect(value == 2)
        #expect(runs.withLock { $0 } == 2)
        #expect(a.statistics.conflicts == 1)
        try await b.catchUp()
        for replica in [a, b] {
            #expect(try await replica.database.read { try $0.object(forKey: "y", inCollection: "values", as: Int.self) } == 20)
        }
        await a.close()
        await b.close()
    }

    @Test func writesThatReadNothingTheOtherWroteDoNotConflict() async throws {
        let primary = try Primary()
        defer { primary.removeFiles() }
        let a = try await primary.open("a", follows: false)
        let b = try await primary.open("b", follows: false)
        try await a.write { try $0.setObject(1, forKey: "mine", inCollection: "a") }
        // b has not applied a's commit; it reads and writes other keys only.
        try await b.write { txn in
            let seen = try txn.object(forKey: "other", inCollection: "b", as: Int.self) ?? 0
            try txn.setObject(seen + 1, forKey: "other", inCollection: "b")
        }
        #expect(b.statistics.conflicts == 0)
        // Reading a's collection whole does conflict once a has written into it again.
        try await a.write { try $0.setObject(2, forKey: "mine", inCollection: "a") }
        let count = try await b.write { txn in try txn.keys(inCollection: "a").count }
        #expect(count == 1)
        #expect(b.statistics.conflicts == 0)  // a read-only write sends nothing
        try await b.write { txn in
            let keys = try txn.keys(inCollection: "a")
            try txn.setObject(keys.count, forKey: "count", inCollection: "b")
        }
        #expect(b.statistics.conflicts == 1)  // b had not applied a's second write into "a"
        try await a.write { try $0.setObject(3, forKey: "other", inCollection: "a") }
        try await b.write { txn in
            let keys = try txn.keys(inCollection: "a")
            try txn.setObject(keys.count, forKey: "count", inCollection: "b")
        }
        #expect(b.statistics.conflicts == 2)
        #expect(try await b.database.read { try $0.object(forKey: "count", inCollection: "b", as: Int.self) } == 2)
        await a.close()
        await b.close()
    }

    @Test func viewsAreDerivedOnEveryReplicaAndDirectWritesAreRefused() async throws {
        let primary = try Primary()
        defer { primary.removeFiles() }
        let a = try await primary.open("a")
        let b = try await primary.open("b")
        let viewA = try a.database.register(Self.byOwner(), named: "byOwner")
        try await a.write { txn in
            for (i, owner) in ["cy", "al", "bo", "di"].enumerated() {
                try txn.setObject(Account(owner: owner, balance: i % 2 == 0 ? 10 : -10), forKey: "k\(i)", inCollection: "accounts")
            }
        }
        try await a.write { txn in
            try txn.removeObject(forKey: "k1", inCollection: "accounts")
            try txn.setObject(Account(owner: "ed", balance: -1), forKey: "k0", inCollection: "accounts")
        }
        // An extension registered after the commits derives the same state.
        try await b.catchUp()
        let viewB = try b.database.register(Self.byOwner(), named: "byOwner")
        try await a.write { try $0.setObject(Account(owner: "fi", balance: 3), forKey: "k9", inCollection: "accounts") }
        try await b.catchUp()
        let listA = try await a.database.read { txn in try ["credit", "debit"].map { try txn[viewA].indexes(inGroup: $0).map(\.key) } }
        let listB = try await b.database.read { txn in try ["credit", "debit"].map { try txn[viewB].indexes(inGroup: $0).map(\.key) } }
        #expect(listA == [["k2", "k9"], ["k3", "k0"]])
        #expect(listA == listB)
        #expect(try a.database.verifyExtensions().isEmpty)
        #expect(try b.database.verifyExtensions().isEmpty)
        // A write straight to a replica's store would exist on one machine only.
        let error = #expect(throws: LarderError.self) {
            try a.database.write { try $0.setObject(1, forKey: "local", inCollection: "accounts") }
        }
        #expect(error?.code == .readOnly)
        // Also when it is committed together with the replica's own work (a group commit).
        async let applied: Void = a.write { try $0.setObject(Account(owner: "gu", balance: 1), forKey: "k8", inCollection: "accounts") }
        let grouped = await #expect(throws: LarderError.self) {
            try await a.database.write { try $0.setObject(1, forKey: "local", inCollection: "accounts") }
        }
        try await applied
        #expect(grouped?.code == .readOnly)
        #expect(try await a.database.read { try $0.hasObject(forKey: "local", inCollection: "accounts") } == false)
        #expect(try await a.database.read { try $0.hasObject(forKey: "k8", inCollection: "accounts") })
        await a.close()
        await b.close()
    }

    @Test func aLateReplicaAndOneBehindTheRetainedLogConverge() async throws {
        let primary = try Primary()
        defer { primary.removeFiles() }
        let a = try await primary.open("a", retainedCommits: 8)
        var behind = try await primary.open("behind", follows: false)
        for i in 0..<5 { try await a.write { try $0.setObject(i, forKey: "k\(i)", inCollection: "numbers") } }
        try await behind.catchUp()
        #expect(try behind.position == 5)
        await behind.close()
        for i in 5..<40 {
            try await a.write { txn in
                try txn.setObject(i, forKey: "k\(i)", inCollection: "numbers")
                if i % 7 == 0 { try txn.removeObject(forKey: "k\(i - 3)", inCollection: "numbers") }
            }
        }
        // The log keeps only the newest commits now: the replica that stopped at 5 loads a snapshot.
        behind = try await primary.open("behind", follows: false)
        #expect(behind.statistics.bootstraps == 1)
        let late = try await primary.open("late", follows: false)
        let expected = try Self.contents(of: a)
        #expect(expected["numbers"]?.count == 35)
        for replica in [behind, late] {
            #expect(try replica.position == 40)
            #expect(try Self.contents(of: replica) == expected)
        }
        // And they follow on from there.
        try await a.write { try $0.setObject(99, forKey: "k99", inCollection: "numbers") }
        try await behind.catchUp()
        try await late.catchUp()
        #expect(try Self.contents(of: behind) == Self.contents(of: a))
        #expect(try Self.contents(of: late) == Self.contents(of: a))
        for replica in [a, behind, late] { await replica.close() }
    }

    @Test func thePrimaryRestartedDuringWritesGivesClearErrorsAndWritesResume() async throws {
        let server = try PrivatePostgresServer.start(name: "larder-restart")
        defer { server.destroy() }
        let primary = try Primary(server: server)
        defer { primary.removeFiles() }
        let a = try await primary.open("a")
        let b = try await primary.open("b")
        try await a.write { try $0.setObject(1, forKey: "before", inCollection: "values") }
        try server.stop(immediately: true)
        let error = await #expect(throws: LarderError.self) {
            try await a.write { try $0.setObject(2, forKey: "during", inCollection: "values") }
        }
        #expect(error?.code == .primaryUnavailable || error?.code == .commitOutcomeUnknown)
        // Reads go on while the primary is down.
        #expect(try await a.database.read { try $0.object(forKey: "before", inCollection: "values", as: Int.self) } == 1)
        try server.start()
        var written = false
        for _ in 0..<50 where !written {
            do {
                try await a.write { try $0.setObject(3, forKey: "after", inCollection: "values") }
                written = true
            } catch let error as LarderError where error.code == .primaryUnavailable {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(written)
        #expect(try await Self.eventually { try await b.database.read { try $0.hasObject(forKey: "after", inCollection: "values") } })
        #expect(try Self.contents(of: a) == Self.contents(of: b))
        await a.close()
        await b.close()
    }

    @Test func aStoreWithDataOfItsOwnOrAnotherPrimaryIsRefused() async throws {
        let primary = try Primary()
        defer { primary.removeFiles() }
        let path = primary.directory.appendingPathComponent("plain").path
        let plain = try Database(path: path)
        try await plain.write { try $0.setObject(1, forKey: "mine", inCollection: "local") }
        await plain.close()
        let error = await #expect(throws: LarderError.self) { try await Replica.open(at: path, primary: primary.configuration) }
        #expect(error?.code == .replicaMismatch)
        // Nothing of the store was lost.
        let reopened = try Database(path: path)
        #expect(try await reopened.read { try $0.object(forKey: "mine", inCollection: "local", as: Int.self) } == 1)
        await reopened.close()

        let replica = try await primary.open("a")
        await replica.close()
        let other = try Primary()
        defer { other.removeFiles() }
        let mismatch = await #expect(throws: LarderError.self) {
            try await Replica.open(at: primary.directory.appendingPathComponent("a").path, primary: other.configuration)
        }
        #expect(mismatch?.code == .replicaMismatch)
    }

    @Test func aReplicaAheadOfItsPrimaryStopsInsteadOfDiverging() async throws {
        let primary = try Primary()
        defer { primary.removeFiles() }
        let a = try await primary.open("a", follows: false)
        for i in 0..<3 { try await a.write { try $0.setObject(i, forKey: "k\(i)", inCollection: "c") } }
        // The primary loses its last two commits (a restore from an older backup).
        let database = primary.configuration.database
        _ = try primary.server.psql("DELETE FROM larder_log WHERE position > 1; DELETE FROM larder_writes WHERE position > 1; DELETE FROM larder_objects WHERE key <> 'k0'; UPDATE larder_head SET position = 1", database: database)
        let behind = await #expect(throws: LarderError.self) { try await a.catchUp() }
        #expect(behind?.code == .replicaMismatch)
        // A write would take commit number 2 again: refused, and the replica keeps what it shows.
        let write = await #expect(throws: LarderError.self) { try await a.write { try $0.setObject(9, forKey: "k9", inCollection: "c") } }
        #expect(write?.code == .replicaMismatch)
        #expect(try await a.database.read { try $0.keys(inCollection: "c") } == ["k0", "k1", "k2"])
        await a.close()
    }

    /// The primary's four tables, copied aside (a backup) and put back (a restore).
    static func backUp(_ primary: Primary, as name: String) throws {
        let tables = ["head", "objects", "log", "writes"]
        _ = try primary.server.psql(tables.map { "CREATE TABLE \(name)_\($0) AS SELECT * FROM larder_\($0);" }.joined(), database: primary.configuration.database)
    }

    static func restore(_ primary: Primary, from name: String) throws {
        let tables = ["head", "objects", "log", "writes"]
        _ = try primary.server.psql(
            "BEGIN;" + tables.map { "DELETE FROM larder_\($0); INSERT INTO larder_\($0) SELECT * FROM \(name)_\($0);" }.joined() + "COMMIT;",
            database: primary.configuration.database)
    }

    @Test func aPrimaryRestoredFromAnOlderBackupAndWrittenPastTheReplicaIsRefusedUntilRebootstrap() async throws {
        let primary = try Primary()
        defer { primary.removeFiles() }
        let events = Mutex<[String]>([])
        var configuration = Replica.Configuration()
        configuration.follows = false
        configuration.onEvent = { event in
            events.withLock {
                switch event {
                case .diverged(let error): $0.append("diverged \(error.code)")
                case .followFailed(let error): $0.append("followFailed \(error.code)")
                case .trimFailed(let error): $0.append("trimFailed \(error.code)")
                case .bootstrapped(let position): $0.append("bootstrapped \(position)")
                case .commitRejected(let commit): $0.append("commitRejected \(commit.id)")
                @unknown default: $0.append("other")
                }
            }
        }
        let a = try await Replica.open(at: primary.directory.appendingPathComponent("a").path, primary: primary.configuration, configuration: configuration)
        for i in 0..<3 { try await a.write { try $0.setObject(i, forKey: "k\(i)", inCollection: "c") } }
        try Self.backUp(primary, as: "backup")
        for i in 3..<5 { try await a.write { try $0.setObject(i, forKey: "k\(i)", inCollection: "c") } }
        #expect(try a.position == 5)

        // The primary is restored to commit 3, then another replica writes four commits: the
        // primary's log now reaches 7, past the 5 that `a` shows, with other commits at 4 and 5.
        try Self.restore(primary, from: "backup")
        let b = try await primary.open("b", follows: false)
        for i in 0..<4 { try await b.write { try $0.setObject(100 + i, forKey: "other\(i)", inCollection: "c") } }
        #expect(try b.position == 7)

        let caught = await #expect(throws: LarderError.self) { try await a.catchUp() }
        #expect(caught?.code == .replicaMismatch, "\(String(describing: caught))")
        #expect(a.lastFollowError?.code == .replicaMismatch)
        // Writes are refused too (the primary checks the token at the replica's position), and
        // the replica keeps what it shows: nothing of the foreign history was applied.
        let write = await #expect(throws: LarderError.self) { try await a.write { try $0.setObject(9, forKey: "k9", inCollection: "c") } }
        #expect(write?.code == .replicaMismatch)
        #expect(try a.position == 5)
        #expect(try await a.database.read { try $0.keys(inCollection: "c") } == ["k0", "k1", "k2", "k3", "k4"])
        #expect(events.withLock { $0 }.filter { $0.hasPrefix("diverged") } == ["diverged replicaMismatch"])

        // The program decides: the replica takes the primary's contents and follows it again.
        try await a.rebootstrap()
        #expect(a.lastFollowError == nil)
        #expect(try a.position == 7)
        #expect(try Self.contents(of: a) == Self.contents(of: b))
        #expect(events.withLock { $0 }.contains("bootstrapped 7"))
        try await a.write { try $0.setObject(10, forKey: "k10", inCollection: "c") }
        try await b.catchUp()
        #expect(try Self.contents(of: a) == Self.contents(of: b))
        await a.close()
        await b.close()
    }

    @Test func aReplicaThatIsNotWritingDetectsAForeignHistoryWhenItFollows() async throws {
        // The check that follows commits, without a write of its own: `b` fetched commits 1-2,
        // the primary is restored to 1 and written again by `a`.
        let primary = try Primary()
        defer { primary.removeFiles() }
        let a = try await primary.open("a", follows: false)
        let b = try await primary.open("b", follows: false)
        try await a.write { try $0.setObject(1, forKey: "one", inCollection: "c") }
        try Self.backUp(primary, as: "backup")
        try await a.write { try $0.setObject(2, forKey: "two", inCollection: "c") }
        try await b.catchUp()
        #expect(try b.position == 2)
        try Self.restore(primary, from: "backup")
        await a.close()
        let fresh = try await primary.open("fresh", follows: false)
        for i in 0..<3 { try await fresh.write { try $0.setObject(i, forKey: "again\(i)", inCollection: "c") } }
        let error = await #expect(throws: LarderError.self) { try await b.catchUp() }
        #expect(error?.code == .replicaMismatch)
        #expect(try await b.database.read { try $0.keys(inCollection: "c") } == ["one", "two"])
        await b.close()
        await fresh.close()
    }

    @Test func aFrozenPrimaryGivesAnErrorWithinTheDeadlineAndReadsGoOn() async throws {
        let server = try PrivatePostgresServer.start(name: "larder-freeze")
        defer {
            server.thaw()
            server.destroy()
        }
        let primary = try Primary(server: server)
        defer { primary.removeFiles() }
        // Deadlines short enough for a test, long enough that a loaded machine (the whole suite
        // on two cores) meets them while the server answers.
        var settings = primary.configuration
        settings.requestTimeout = .seconds(4)
        settings.connectTimeout = .seconds(4)
        var configuration = Replica.Configuration()
        configuration.pollInterval = .milliseconds(100)
        let a = try await Replica.open(at: primary.directory.appendingPathComponent("a").path, primary: settings, configuration: configuration)
        for attempt in 1...10 {
            do {
                try await a.write { try $0.setObject(1, forKey: "before", inCollection: "values") }
                break
            } catch let error as LarderError where error.code == .primaryUnavailable && attempt < 10 {
                continue
            }
        }

        server.freeze()
        // The write must end with an error while the server is still frozen (after its 4 s
        // deadline); the test thaws it after 60 s whatever happens, so that a hang fails the
        // test instead of the run.
        let thawedByTimer = Mutex(false)
        let thawing = Task {
            try await Task.sleep(for: .seconds(60))
            thawedByTimer.withLock { $0 = true }
            server.thaw()
        }
        let frozenWrite = await #expect(throws: LarderError.self) {
            try await a.write { try $0.setObject(2, forKey: "during", inCollection: "values") }
        }
        #expect(!thawedByTimer.withLock { $0 }, "the write returned only once the server was thawed")
        #expect(frozenWrite?.code == .primaryUnavailable || frozenWrite?.code == .commitOutcomeUnknown, "\(String(describing: frozenWrite))")
        // A second write, on a new connection to a server that accepts it and says nothing.
        let second = await #expect(throws: LarderError.self) {
            try await a.write { try $0.setObject(3, forKey: "during2", inCollection: "values") }
        }
        #expect(second?.code == .primaryUnavailable, "\(String(describing: second))")
        let caught = await #expect(throws: LarderError.self) { try await a.catchUp() }
        #expect(caught?.code == .primaryUnavailable)
        #expect(try await a.database.read { try $0.object(forKey: "before", inCollection: "values", as: Int.self) } == 1)

        thawing.cancel()
        server.thaw()
        var written = false
        for _ in 0..<100 where !written {
            do {
                try await a.write { try $0.setObject(4, forKey: "after", inCollection: "values") }
                written = true
            } catch let error as LarderError where error.code == .primaryUnavailable || error.code == .commitOutcomeUnknown {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(written)
        #expect(try await a.database.read { try $0.object(forKey: "after", inCollection: "values", as: Int.self) } == 4)
        await a.close()
    }

    /// What a replica's `onEvent` hears, as text.
    final class HeardEvents: Sendable {
        private let heard = Mutex<[String]>([])

        var all: [String] { heard.withLock { $0 } }

        func handler(_ event: ReplicaEvent) {
            heard.withLock {
                switch event {
                case .followFailed(let error): $0.append("followFailed \(error.code)")
                case .trimFailed(let error): $0.append("trimFailed \(error.code)")
                case .diverged(let error): $0.append("diverged \(error.code)")
                case .bootstrapped(let position): $0.append("bootstrapped \(position)")
                case .commitRejected(let commit): $0.append("commitRejected \(commit.id)")
                @unknown default: $0.append("other")
                }
            }
        }
    }

    @Test func aFollowerThatFailsSaysWhatWhenAndWhyAndFollowsOnceThePrimaryIsBack() async throws {
        let server = try PrivatePostgresServer.start(name: "larder-follow-fails")
        defer { server.destroy() }
        let primary = try Primary(server: server)
        defer { primary.removeFiles() }
        var settings = primary.configuration
        settings.connectTimeout = .seconds(5)
        settings.requestTimeout = .seconds(5)
        let events = HeardEvents()
        var configuration = Replica.Configuration()
        configuration.pollInterval = .milliseconds(100)
        configuration.onEvent = { events.handler($0) }
        let a = try await Replica.open(at: primary.directory.appendingPathComponent("a").path, primary: settings, configuration: configuration)
        try await a.write { try $0.setObject(1, forKey: "before", inCollection: "values") }
        #expect(a.statistics.lastFailure == nil)
        #expect(a.statistics.followErrors == 0)

        let stopped = Date()
        try server.stop()
        #expect(try await Self.eventually { a.statistics.lastFailure?.work == .following && events.all.contains("followFailed primaryUnavailable") },
                "\(a.statistics), \(events.all)")
        let failure = try #require(a.statistics.lastFailure)
        #expect(failure.error.code == .primaryUnavailable)
        #expect(failure.date >= stopped)
        #expect(a.statistics.followErrors >= 1)
        #expect(a.lastFollowError?.code == .primaryUnavailable)
        #expect(!events.all.contains { $0.hasPrefix("trimFailed") })
        reportFollowing(of: a)

        try server.start()
        let b = try await primary.open("b")
        try await b.write { try $0.setObject(2, forKey: "after", inCollection: "values") }
        #expect(try await Self.eventually { try await a.database.read { try $0.hasObject(forKey: "after", inCollection: "values") } })
        #expect(try await Self.eventually { a.lastFollowError == nil })
        // The last failure is kept, older than the contact that followed it.
        let recovered = a.statistics
        #expect(recovered.lastFailure != nil)
        #expect(try #require(recovered.lastPrimaryContact) > (recovered.lastFailure?.date ?? .distantFuture))
        await a.close()
        await b.close()
    }

    @Test func aTrimOfThePrimarysLogThatFailsIsToldAsSuchAndWritesGoOn() async throws {
        let primary = try Primary()
        defer { primary.removeFiles() }
        let events = HeardEvents()
        var configuration = Replica.Configuration()
        configuration.follows = false
        configuration.retainedCommits = 2  // trims after every commit past the second
        configuration.onEvent = { events.handler($0) }
        let a = try await Replica.open(at: primary.directory.appendingPathComponent("a").path, primary: primary.configuration, configuration: configuration)
        // The primary refuses the trim's deletions (as it would a role without DELETE on the log).
        let database = primary.configuration.database
        _ = try primary.server.psql("""
            CREATE FUNCTION refuse_trims() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'trims refused by the test'; END $$;
            CREATE TRIGGER refuse_trims BEFORE DELETE ON larder_writes FOR EACH STATEMENT EXECUTE FUNCTION refuse_trims();
            """, database: database)
        for i in 0..<4 { try await a.write { try $0.setObject(i, forKey: "k\(i)", inCollection: "c") } }
        #expect(try a.position == 4)
        #expect(a.statistics.commits == 4)
        let failure = try #require(a.statistics.lastFailure)
        #expect(failure.work == .trimmingLog)
        #expect(failure.error.code == .primaryRefused)
        #expect(failure.error.description.contains("trims refused by the test"))
        #expect(events.all == ["trimFailed primaryRefused", "trimFailed primaryRefused"])
        #expect(try primary.server.psql("SELECT min(position) FROM larder_log", database: database).trimmingCharacters(in: .whitespacesAndNewlines) == "1")

        _ = try primary.server.psql("DROP TRIGGER refuse_trims ON larder_writes", database: database)
        try await a.write { try $0.setObject(4, forKey: "k4", inCollection: "c") }
        #expect(events.all.count == 2)
        #expect(try primary.server.psql("SELECT min(position) FROM larder_log", database: database).trimmingCharacters(in: .whitespacesAndNewlines) == "3")
        await a.close()
    }

    @Test func aReplicaOpensAndServesReadsWhileThePrimaryIsDownAndFollowsWhenItReturns() async throws {
        let server = try PrivatePostgresServer.start(name: "larder-offline")
        defer { server.destroy() }
        let primary = try Primary(server: server)
        defer { primary.removeFiles() }
        var settings = primary.configuration
        settings.connectTimeout = .seconds(5)
        let path = primary.directory.appendingPathComponent("a").path
        var configuration = Replica.Configuration()
        configuration.pollInterval = .milliseconds(100)
        var a = try await Replica.open(at: path, primary: settings, configuration: configuration)
        try await a.write { try $0.setObject(1, forKey: "before", inCollection: "values") }
        await a.close()

        try server.stop()
        a = try await Replica.open(at: path, primary: settings, configuration: configuration)
        #expect(try a.position == 1)
        #expect(try await a.database.read { try $0.object(forKey: "before", inCollection: "values", as: Int.self) } == 1)
        #expect(a.lastFollowError?.code == .primaryUnavailable)
        #expect(a.statistics.lastPrimaryContact == nil)
        let write = await #expect(throws: LarderError.self) { try await a.write { try $0.setObject(2, forKey: "during", inCollection: "values") } }
        #expect(write?.code == .primaryUnavailable)
        // Off, or for a store that never followed the primary, the open needs the primary.
        var strict = configuration
        strict.opensOffline = false
        let refused = await #expect(throws: LarderError.self) { try await Replica.open(at: path + "-strict", primary: settings, configuration: strict) }
        #expect(refused?.code == .primaryUnavailable)
        let new = await #expect(throws: LarderError.self) { try await Replica.open(at: path + "-new", primary: settings, configuration: configuration) }
        #expect(new?.code == .primaryUnavailable)

        try server.start()
        let b = try await primary.open("b")
        try await b.write { try $0.setObject(3, forKey: "after", inCollection: "values") }
        #expect(try await Self.eventually { try await a.database.read { try $0.hasObject(forKey: "after", inCollection: "values") } })
        #expect(a.lastFollowError == nil)
        #expect(a.statistics.lastPrimaryContact != nil)
        try await a.write { try $0.setObject(4, forKey: "back", inCollection: "values") }
        try await b.catchUp()
        #expect(try Self.contents(of: a) == Self.contents(of: b))
        await a.close()
        await b.close()
    }

    @Test func aMissingOrWrongPasswordAndAnUnavailableTLSModeSayWhatTheyAre() async throws {
        let primary = try Primary()
        defer { primary.removeFiles() }
        var noPassword = primary.configuration
        noPassword.password = nil
        var wrongPassword = primary.configuration
        wrongPassword.password = "not-the-password"
        var tls = primary.configuration
        tls.tls = .require  // the private server has no TLS
        for (name, configuration, says) in [("no password", noPassword, "has none"), ("a wrong password", wrongPassword, "refused the login"), ("TLS required", tls, "does not offer TLS")] {
            let error = await #expect(throws: LarderError.self) {
                try await Replica.open(at: primary.directory.appendingPathComponent("bad-\(name)").path, primary: configuration)
            }
            #expect(error?.code == .invalidConfiguration, "\(name): \(String(describing: error))")
            #expect(error?.message.contains(says) == true, "\(name): \(String(describing: error))")
            #expect(error?.description.contains("not-the-password") == false)
        }
    }

    @Test func badTablePrefixesAndKeysWithNulAreRefusedAndWriteNothing() async throws {
        let primary = try Primary()
        defer { primary.removeFiles() }
        // "ScaleCase" would name the tables of "scalecase": PostgreSQL folds unquoted names.
        for prefix in ["", "1abc", "a-b", "a;drop", String(repeating: "a", count: 41), "ScaleCase", "shopA"] {
            var configuration = primary.configuration
            configuration.tablePrefix = prefix
            let error = await #expect(throws: LarderError.self) {
                try await Replica.open(at: primary.directory.appendingPathComponent("bad").path, primary: configuration)
            }
            #expect(error?.code == .invalidConfiguration, "prefix \(prefix)")
            if prefix == "ScaleCase" { #expect(error?.message.contains("\"scalecase\"") == true, "\(String(describing: error))") }
        }
        for deadline in [\PrimaryConfiguration.connectTimeout, \.requestTimeout, \.snapshotTimeout] {
            var configuration = primary.configuration
            configuration[keyPath: deadline] = .zero
            let error = await #expect(throws: LarderError.self) {
                try await Replica.open(at: primary.directory.appendingPathComponent("bad").path, primary: configuration)
            }
            #expect(error?.code == .invalidConfiguration && error?.message.contains("must be positive") == true)
        }
        let a = try await primary.open("a")
        let error = await #expect(throws: LarderError.self) {
            try await a.write { try $0.setObject(1, forKey: "with\u{0}nul", inCollection: "c") }
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(try a.position == 0)
        #expect(try await a.database.read { try $0.numberOfKeysInAllCollections() } == 0)
        await a.close()
    }

    /// The commit procedure's steps and the commit statement's do the same (issue 32, item 4:
    /// the procedure commits in one round trip; the statement is what engines without
    /// procedures get).
    @Test(arguments: [true, false])
    func clearsRemovalsMetadataAndTouchesReplicate(byProcedure: Bool) async throws {
        let primary = try Primary(usesCommitProcedure: byProcedure)
        defer { primary.removeFiles() }
        let a = try await primary.open("a")
        let b = try await primary.open("b", follows: false)
        try await a.write { txn in
            for i in 0..<4 { try txn.setObject("v\(i)", forKey: "k\(i)", inCollection: "c", metadata: i) }
            try txn.setObject("x", forKey: "x", inCollection: "d")
        }
        try await a.write { txn in
            try txn.removeAllObjects(inCollection: "c")
            try txn.setObject("again", forKey: "k1", inCollection: "c")
            try txn.replaceMetadata(7, forKey: "x", inCollection: "d")
            try txn.setCommitInfo("tidy")
        }
        try await b.catchUp()
        #expect(try Self.contents(of: b) == Self.contents(of: a))
        #expect(try await b.database.read { try $0.metadata(forKey: "x", inCollection: "d", as: Int.self) } == 7)
        #expect(try await b.database.read { try $0.keys(inCollection: "c") } == ["k1"])
        try await a.write { txn in
            try txn.setObject("y", forKey: "y", inCollection: "d")
            try txn.removeAllObjectsInAllCollections()
            try txn.setObject("z", forKey: "z", inCollection: "e")
        }
        try await b.catchUp()
        let z = try #require(try await a.database.read { try $0.storedObject(forKey: "z", inCollection: "e") })
        #expect(try Self.contents(of: b) == ["e": ["z": z.bytes]])
        #expect(try Self.contents(of: b) == Self.contents(of: a))
        let objects = try primary.server.psql("SELECT collection || '/' || key FROM larder_objects ORDER BY 1", database: primary.configuration.database)
        #expect(objects.split(separator: "\n").map(String.init) == ["e/z"], "\(objects)")
        let procedures = try primary.server.psql("SELECT proname FROM pg_proc WHERE proname LIKE 'larder_commit%'", database: primary.configuration.database)
        #expect(procedures.split(separator: "\n").map(String.init) == (byProcedure ? ["larder_commit_v2"] : []), "\(procedures)")
        await a.close()
        await b.close()
    }

    /// A primary where the commit procedure cannot be called any more (dropped here; an engine
    /// without such procedures refuses the call): the commit goes through by statement, and
    /// so do the next ones, conflicts included.
    @Test func aPrimaryThatCannotRunTheProcedureCommitsByStatement() async throws {
        let primary = try Primary()
        defer { primary.removeFiles() }
        let a = try await primary.open("a", follows: false)
        let b = try await primary.open("b", follows: false)
        try await a.write { try $0.setObject(1, forKey: "n", inCollection: "c") }
        _ = try primary.server.psql("DROP PROCEDURE larder_commit_v2", database: primary.configuration.database)
        let runs = Mutex(0)
        try await a.write { txn in
            runs.withLock { $0 += 1 }
            let n = try txn.object(forKey: "n", inCollection: "c", as: Int.self) ?? 0
            try txn.setObject(n + 1, forKey: "n", inCollection: "c")
        }
        // b, behind, made the procedure again on its first commit; a commits by statement.
        try await b.write { txn in
            let n = try txn.object(forKey: "n", inCollection: "c", as: Int.self) ?? 0
            try txn.setObject(n + 10, forKey: "n", inCollection: "c")
        }
        try await a.write { txn in
            runs.withLock { $0 += 1 }
            let n = try txn.object(forKey: "n", inCollection: "c", as: Int.self) ?? 0
            try txn.setObject(n + 100, forKey: "n", inCollection: "c")
        }
        try await b.catchUp()
        #expect(try await b.database.read { try $0.object(forKey: "n", inCollection: "c", as: Int.self) } == 112)
        #expect(runs.withLock { $0 } == 3, "a's last write ran again after b's conflicting commit")
        #expect(try Self.contents(of: b) == Self.contents(of: a))
        await a.close()
        await b.close()
    }
}

/// What a write transaction records of its reads (no server needed).
@Suite("Read sets")
struct ReadSetTests {
    @Test func readsByKeyEnumerationsAndCountsAreRecordedEvenWhenCached() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-readset-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try Database(path: path)
        try db.write { txn in
            try txn.setObject(1, forKey: "a", inCollection: "one")
            try txn.setObject(2, forKey: "b", inCollection: "two")
        }
        // Fill the connection's cache.
        _ = try db.read { try $0.object(forKey: "a", inCollection: "one", as: Int.self) }
        let reads = try db.write { txn -> ReadSet in
            txn.startRecordingReads()
            _ = try txn.object(forKey: "a", inCollection: "one", as: Int.self)
            _ = try txn.hasObject(forKey: "missing", inCollection: "one")
            _ = try txn.numberOfKeys(inCollection: "three")
            try txn.enumerateKeys(inCollection: "two") { _, _ in }
            try txn.setObject(3, forKey: "blind", inCollection: "four")
            return txn.recordedReads
        }
        #expect(!reads.everything)
        #expect(reads.keys == ["one": ["a", "missing"]])
        #expect(reads.collections == ["two", "three"])
        let everything = try db.write { txn -> ReadSet in
            txn.startRecordingReads()
            _ = try txn.collections()
            return txn.recordedReads
        }
        #expect(everything.everything)
        db.close()
    }

    @Test func aRehearsalAfterAnAppliedCommitInTheSameTransactionShipsOnlyItsOwnRows() throws {
        // In a group commit, a replica's rehearsal can follow the application of another
        // replica's commit in one LMDB transaction: it must not ship that commit's rows again.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-readset-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try Database(path: path)
        var applied = ReplicatedCommit()
        applied.rows = [ReplicatedCommit.Row(collection: "accounts", key: "a", object: [0x01, 0x05], metadata: nil, objectChanged: true, metadataChanged: false)]
        let shipped = try db.write { txn -> ReplicatedCommit in
            try txn.apply(applied)
            txn.startRecordingReads()
            let a = try txn.object(forKey: "a", inCollection: "accounts", as: Int.self) ?? 0
            try txn.setObject(a + 1, forKey: "b", inCollection: "accounts")
            let commit = try txn.replicatedCommit()
            txn.rollback()
            return commit
        }
        #expect(shipped.rows.map(\.key) == ["b"])
        db.close()
    }
}
