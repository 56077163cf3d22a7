import Foundation
import Larder
import LarderPostgres
import Logging
import PostgresNIO
import PostgresTestServer

// `larder-replica-helper bench [--quick]`: what a replica costs, on a private PostgreSQL server
// of its own (durability off there: fsync, synchronous_commit and full_page_writes are off).
//
//   a. A read on a replica against the same read on a plain store with the same 1000 objects: a
//      random key read in `database.read`, timed in batches; the time per read (median and p99
//      over the batches). Target: replica/plain ≤ 1.1.
//   b. A one-put write through the primary (`Replica.write { setObject }`) against the same write
//      made straight with postgres-nio in a serializable transaction (`BEGIN ISOLATION LEVEL
//      SERIALIZABLE`, one `INSERT … ON CONFLICT DO UPDATE` of one
//      text key and one bytea value): the time per write (median, p99). Target: ≤ 1.5.
//   c. Commits per second with one and with three writing replicas (in this process, on their
//      own stores, each writing keys of its own), and with three replicas of eight concurrent
//      writers each (group commit across the wire). Target: 3 × 8 ≥ 5 × (3 × 1), or the ceiling
//      of PostgreSQL itself, whichever is lower: 24 postgres-nio connections each upserting keys
//      of their own in serializable transactions (b's baseline), for as long.
//   d. Lag: from replica A's write returning to replica B (following, default poll interval)
//      showing it (B's store read every 100 µs); median and p99. No target.
//
// The two sides of a and b, and the two settings of c, are measured in interleaved rounds (which
// goes first alternates), so that drift of the machine falls on both.

/// The small Codable struct of the benchmarks.
struct BenchItem: Codable, Sendable, Equatable {
    var name: String
    var quantity: Int
    var price: Double
    var tags: [String]

    init(_ index: Int) {
        name = "item number \(index)"
        quantity = index % 97
        price = Double(index) * 1.25
        tags = ["bench", index % 2 == 0 ? "even" : "odd"]
    }
}

private struct BenchSizes {
    var readRounds: Int
    var readBatchesPerRound: Int
    var readsPerBatch: Int
    var writeRounds: Int
    var writesPerRound: Int
    var throughputRounds: Int
    var throughputSeconds: Double
    var lagWrites: Int

    static let quick = BenchSizes(readRounds: 6, readBatchesPerRound: 10, readsPerBatch: 200,
                                  writeRounds: 6, writesPerRound: 25, throughputRounds: 2, throughputSeconds: 1,
                                  lagWrites: 60)
    static let full = BenchSizes(readRounds: 20, readBatchesPerRound: 25, readsPerBatch: 1000,
                                 writeRounds: 20, writesPerRound: 100, throughputRounds: 4, throughputSeconds: 5,
                                 lagWrites: 400)
}

/// Sorted samples (seconds) and their quantiles.
private struct Samples {
    private(set) var values: [Double]
    init(_ values: [Double]) { self.values = values.sorted() }
    func quantile(_ q: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let rank = Int((q * Double(values.count)).rounded(.up)) - 1
        return values[min(values.count - 1, max(0, rank))]
    }
    var median: Double { quantile(0.5) }
    var p99: Double { quantile(0.99) }
}

private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

private func formatTime(_ seconds: Double) -> String {
    if seconds.isNaN { return "n/a" }
    if seconds < 1e-6 { return String(format: "%.0f ns", seconds * 1e9) }
    if seconds < 1e-3 { return String(format: "%.2f µs", seconds * 1e6) }
    if seconds < 1 { return String(format: "%.2f ms", seconds * 1e3) }
    return String(format: "%.2f s", seconds)
}

/// One row of the table: `measure | replica | baseline | ratio | target | result`.
/// With `atLeast`, the ratio passes at or above the target; otherwise at or below it.
private func row(_ measure: String, _ replica: String, _ baseline: String = "", ratio: Double? = nil, target: Double? = nil, atLeast: Bool = false) {
    func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
    var line = pad(measure, 36) + pad(replica, 16) + pad(baseline, 16)
    line += pad(ratio.map { String(format: "%.2f", $0) } ?? "", 8)
    if let target, let ratio {
        let passes = atLeast ? ratio >= target : ratio <= target
        line += pad(String(format: "\(atLeast ? "≥" : "≤") %.2f", target), 9) + (passes ? "PASS" : "MISS")
    }
    while line.hasSuffix(" ") { line.removeLast() }
    say(line)
}

func runBench(quick: Bool) async {
    let sizes = quick ? BenchSizes.quick : BenchSizes.full
    let started = ContinuousClock.now
    let server: PrivatePostgresServer
    do {
        server = try PrivatePostgresServer.start(name: "larder-bench")
    } catch {
        fatal(error)
    }
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("larder-replica-bench-\(UUID().uuidString)").path
    do {
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        try server.createDatabase("bench")
        let version = (try? server.psql("SHOW server_version")) ?? "?"
        say("Larder replica benchmarks (\(quick ? "quick" : "full")): PostgreSQL \(version) on 127.0.0.1:\(server.port) (fsync off), \(ProcessInfo.processInfo.activeProcessorCount) CPUs")
        say("")
        row("measure", "replica", "baseline", ratio: nil)
        row(String(repeating: "-", count: 34), String(repeating: "-", count: 14), String(repeating: "-", count: 14))
        let url = server.url(database: "bench")
        // LARDER_BENCH_ONLY=c (or a, b, d, or several letters) runs those parts alone, to profile them.
        let only = ProcessInfo.processInfo.environment["LARDER_BENCH_ONLY"] ?? "abcd"
        if only.contains("a") { try await benchReads(url: url, work: work, sizes: sizes) }
        if only.contains("b") { try await benchWrites(url: url, server: server, work: work, sizes: sizes) }
        if only.contains("c") { try await benchThroughput(url: url, server: server, work: work, sizes: sizes) }
        if only.contains("d") { try await benchLag(url: url, work: work, sizes: sizes) }
    } catch {
        server.destroy()
        try? FileManager.default.removeItem(atPath: work)
        fatal(error)
    }
    server.destroy()
    try? FileManager.default.removeItem(atPath: work)
    say("")
    say("(baseline: a. plain Larder store, b. a serializable postgres-nio transaction doing the same upsert; ratio = replica / baseline; took \(formatTime(seconds(ContinuousClock.now - started))))")
}

// MARK: a. Reads

/// Reads `keys` one `database.read` each; the time per read.
private func timedReads(_ database: Database, keys: ArraySlice<String>) throws -> Double {
    var found = 0
    let elapsed = try ContinuousClock().measure {
        for key in keys {
            if try database.read({ try $0.object(forKey: key, inCollection: "items", as: BenchItem.self) }) != nil { found += 1 }
        }
    }
    guard found == keys.count else {
        throw LarderError(.notFound, "a benchmark read found \(found) of \(keys.count) objects", operation: "bench")
    }
    return seconds(elapsed) / Double(keys.count)
}

private func benchReads(url: String, work: String, sizes: BenchSizes) async throws {
    let replica = try await Replica.open(at: work + "/read-replica", primary: try PrimaryConfiguration(url: url, tablePrefix: "reads"))
    let plain: Database
    do {
        plain = try Database(path: work + "/read-plain")
    } catch {
        await replica.close()
        throw error
    }
    do {
        try await measureReads(replica: replica, plain: plain, sizes: sizes)
    } catch {
        await replica.close()
        await plain.close()
        throw error
    }
    await replica.close()
    await plain.close()
}

private func measureReads(replica: Replica, plain: Database, sizes: BenchSizes) async throws {
    let items = (0..<1000).map { ("item-\($0)", BenchItem($0)) }
    try await replica.write { txn in
        for (key, item) in items { try txn.setObject(item, forKey: key, inCollection: "items") }
    }
    try await plain.write { txn in
        for (key, item) in items { try txn.setObject(item, forKey: key, inCollection: "items") }
    }
    var random = SplitMix(seed: 42)
    let keys = (0..<sizes.readsPerBatch * sizes.readBatchesPerRound).map { _ in "item-\(Int.random(in: 0..<1000, using: &random))" }
    // Warm both: page cache, decoders.
    _ = try timedReads(replica.database, keys: keys[...])
    _ = try timedReads(plain, keys: keys[...])
    var onReplica: [Double] = [], onPlain: [Double] = []
    for round in 0..<sizes.readRounds {
        for batch in 0..<sizes.readBatchesPerRound {
            let slice = keys[(batch * sizes.readsPerBatch)..<((batch + 1) * sizes.readsPerBatch)]
            if (round + batch) % 2 == 0 {
                onReplica.append(try timedReads(replica.database, keys: slice))
                onPlain.append(try timedReads(plain, keys: slice))
            } else {
                onPlain.append(try timedReads(plain, keys: slice))
                onReplica.append(try timedReads(replica.database, keys: slice))
            }
        }
    }
    let a = Samples(onReplica), b = Samples(onPlain)
    row("a. read, per read (median)", formatTime(a.median), formatTime(b.median), ratio: a.median / b.median, target: 1.1)
    row("   read, per read (p99 of batches)", formatTime(a.p99), formatTime(b.p99), ratio: a.p99 / b.p99)
}

// MARK: b. Writes

private func benchWrites(url: String, server: PrivatePostgresServer, work: String, sizes: BenchSizes) async throws {
    let replica = try await Replica.open(at: work + "/write-replica", primary: try PrimaryConfiguration(url: url, tablePrefix: "writes"))
    // The same replica writes committed by statement (`BEGIN`, the statement, `COMMIT`): what
    // engines without the commit procedure get, and what every write did before it.
    var byStatement = try PrimaryConfiguration(url: url, tablePrefix: "writes_statement")
    byStatement.usesCommitProcedure = false
    let statementReplica: Replica
    do {
        statementReplica = try await Replica.open(at: work + "/write-replica-statement", primary: byStatement)
    } catch {
        await replica.close()
        throw error
    }
    let plain: Database
    do {
        plain = try Database(path: work + "/write-plain")
    } catch {
        await replica.close()
        await statementReplica.close()
        throw error
    }
    let logger = Logger(label: "larder.bench", factory: { _ in SwiftLogNoOpLogHandler() })
    let connection: PostgresConnection
    do {
        connection = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                host: server.host, port: server.port, username: server.username, password: server.password,
                database: "bench", tls: .disable),
            id: 1, logger: logger)
    } catch {
        await replica.close()
        await statementReplica.close()
        await plain.close()
        throw error
    }
    do {
        try await connection.query("CREATE TABLE bench_direct (k text PRIMARY KEY, v bytea NOT NULL)", logger: logger)
        let encoder = JSONEncoder()
        var onReplica: [Double] = [], byStatementSamples: [Double] = [], direct: [Double] = [], autocommit: [Double] = []
        var random = SplitMix(seed: 7)
        func replicaWrites(_ count: Int, through replica: Replica, into samples: inout [Double], random: inout SplitMix) async throws {
            for _ in 0..<count {
                let index = Int.random(in: 0..<100, using: &random)
                let item = BenchItem(index)
                let key = "w-\(index)"
                let start = ContinuousClock.now
                try await replica.write { txn in try txn.setObject(item, forKey: key, inCollection: "items") }
                samples.append(seconds(ContinuousClock.now - start))
            }
        }
        // The baseline: a serializable postgres-nio transaction doing the same upsert (`BEGIN
        // ISOLATION LEVEL SERIALIZABLE`, the upsert, `COMMIT`); with `serializable: false`, the
        // upsert alone, autocommitted (for scale).
        func directWrites(_ count: Int, serializable: Bool, into samples: inout [Double], random: inout SplitMix) async throws {
            for _ in 0..<count {
                let index = Int.random(in: 0..<100, using: &random)
                let start = ContinuousClock.now
                let value = try encoder.encode(BenchItem(index))
                let key = "w-\(index)"
                if serializable { try await connection.query("BEGIN ISOLATION LEVEL SERIALIZABLE", logger: logger) }
                try await connection.query(
                    "INSERT INTO bench_direct (k, v) VALUES (\(key), \(value)) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
                    logger: logger)
                if serializable { try await connection.query("COMMIT", logger: logger) }
                samples.append(seconds(ContinuousClock.now - start))
            }
        }
        // For scale only (not in the ratio): the same put on a plain store, durable as the
        // replica's own store is (Durability.full: it is flushed before the write returns).
        func localWrites(_ count: Int, into samples: inout [Double], random: inout SplitMix) async throws {
            for _ in 0..<count {
                let index = Int.random(in: 0..<100, using: &random)
                let item = BenchItem(index)
                let key = "w-\(index)"
                let start = ContinuousClock.now
                try await plain.write { txn in try txn.setObject(item, forKey: key, inCollection: "items") }
                samples.append(seconds(ContinuousClock.now - start))
            }
        }
        // Warm all: connections, the tables' first rows, the stores.
        var warm: [Double] = [], local: [Double] = []
        try await replicaWrites(10, through: replica, into: &warm, random: &random)
        try await replicaWrites(10, through: statementReplica, into: &warm, random: &random)
        try await directWrites(10, serializable: true, into: &warm, random: &random)
        try await directWrites(10, serializable: false, into: &warm, random: &random)
        try await localWrites(10, into: &warm, random: &random)
        for round in 0..<sizes.writeRounds {
            // Each setting goes first in turn, so that drift falls on all of them.
            let settings = [0, 1, 2, 3]
            for setting in settings.map({ ($0 + round) % settings.count }) {
                switch setting {
                case 0: try await replicaWrites(sizes.writesPerRound, through: replica, into: &onReplica, random: &random)
                case 1: try await directWrites(sizes.writesPerRound, serializable: true, into: &direct, random: &random)
                case 2: try await replicaWrites(sizes.writesPerRound, through: statementReplica, into: &byStatementSamples, random: &random)
                default: try await directWrites(sizes.writesPerRound, serializable: false, into: &autocommit, random: &random)
                }
            }
            try await localWrites(sizes.writesPerRound, into: &local, random: &random)
        }
        let statistics = replica.statistics
        try await connection.close()
        await replica.close()
        await statementReplica.close()
        await plain.close()
        let a = Samples(onReplica), b = Samples(direct), c = Samples(local), d = Samples(byStatementSamples), e = Samples(autocommit)
        // Where a replica's write goes (means over every write, warm-up included).
        let writes = Double(max(1, statistics.commits))
        print("   where a replica write goes (mean): closure on the replica \(formatTime(seconds(statistics.closureTime) / writes)), "
              + "the primary's answer \(formatTime(seconds(statistics.primaryTime) / writes)), "
              + "the replica showing it \(formatTime(seconds(statistics.applyTime) / writes))")
        row("b. one-put write (median)", formatTime(a.median), formatTime(b.median), ratio: a.median / b.median, target: 1.5)
        row("   one-put write (p99)", formatTime(a.p99), formatTime(b.p99), ratio: a.p99 / b.p99)
        row("   one-put write committed by statement (median)", formatTime(d.median), formatTime(b.median), ratio: d.median / b.median)
        row("   for scale: autocommit upsert", formatTime(e.median) + " median", formatTime(e.p99) + " p99")
        row("   for scale: plain store write", formatTime(c.median) + " median", formatTime(c.p99) + " p99")
    } catch {
        try? await connection.close()
        await replica.close()
        await statementReplica.close()
        await plain.close()
        throw error
    }
}

// MARK: c. Throughput

/// Writes distinct keys through `replica` for `duration`; the number of commits.
private func writeFor(_ duration: Duration, replica: Replica, name: String) async throws -> Int {
    let deadline = ContinuousClock.now + duration
    var count = 0
    while ContinuousClock.now < deadline {
        let key = "\(name)-\(count)"
        let value = count
        try await replica.write { txn in try txn.setObject(value, forKey: key, inCollection: "throughput") }
        count += 1
    }
    return count
}

/// Upserts distinct keys with `connections` postgres-nio connections of their own, each in a
/// serializable transaction (the baseline of b), for `duration`; the number of commits.
private func directWritesFor(_ duration: Duration, server: PrivatePostgresServer, connections: Int, name: String) async throws -> Int {
    let logger = Logger(label: "larder.bench", factory: { _ in SwiftLogNoOpLogHandler() })
    let value = try JSONEncoder().encode(BenchItem(1))
    return try await withThrowingTaskGroup(of: Int.self) { group in
        for index in 0..<connections {
            group.addTask {
                let connection = try await PostgresConnection.connect(
                    configuration: PostgresConnection.Configuration(
                        host: server.host, port: server.port, username: server.username, password: server.password,
                        database: "bench", tls: .disable),
                    id: index, logger: logger)
                var count = 0
                do {
                    let deadline = ContinuousClock.now + duration
                    while ContinuousClock.now < deadline {
                        let key = "\(name)-\(index)-\(count)"
                        try await connection.query("BEGIN ISOLATION LEVEL SERIALIZABLE", logger: logger)
                        try await connection.query(
                            "INSERT INTO bench_ceiling (k, v) VALUES (\(key), \(value)) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
                            logger: logger)
                        try await connection.query("COMMIT", logger: logger)
                        count += 1
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try await connection.close()
                return count
            }
        }
        return try await group.reduce(0, +)
    }
}

private func benchThroughput(url: String, server: PrivatePostgresServer, work: String, sizes: BenchSizes) async throws {
    let primary = try PrimaryConfiguration(url: url, tablePrefix: "throughput")
    _ = try server.psql("CREATE TABLE bench_ceiling (k text PRIMARY KEY, v bytea NOT NULL)", database: "bench")
    var replicas: [Replica] = []
    do {
        for index in 0..<3 {
            replicas.append(try await Replica.open(at: work + "/throughput-\(index)", primary: primary))
        }
        let duration = Duration.milliseconds(Int(sizes.throughputSeconds * 1000))
        // (replicas, writers on each); (0, n): the ceiling, n postgres-nio connections.
        // LARDER_BENCH_SETTING=3x8 measures that setting alone (to profile it).
        let all = [(1, 1), (3, 1), (3, 8), (0, 24)]
        let chosen = ProcessInfo.processInfo.environment["LARDER_BENCH_SETTING"].flatMap { text -> [(Int, Int)]? in
            let parts = text.split(separator: "x").compactMap { Int($0) }
            return parts.count == 2 ? [(parts[0], parts[1])] : nil
        }
        let settings = chosen ?? all
        var rates: [Int: [Double]] = [:]
        var batches = 0, commits = 0
        for round in 0..<sizes.throughputRounds {
            for offset in settings.indices {
                let setting = (offset + round) % settings.count
                let (replicaCount, writers) = settings[setting]
                let name = "r\(round)-\(setting)"
                let before = replicas.map(\.statistics)
                let start = ContinuousClock.now
                let made: Int
                if replicaCount == 0 {
                    made = try await directWritesFor(duration, server: server, connections: writers, name: name)
                } else {
                    made = try await withThrowingTaskGroup(of: Int.self) { group in
                        for (index, replica) in replicas.prefix(replicaCount).enumerated() {
                            for writer in 0..<writers {
                                group.addTask { try await writeFor(duration, replica: replica, name: "\(name)-\(index)-\(writer)") }
                            }
                        }
                        return try await group.reduce(0, +)
                    }
                }
                rates[setting, default: []].append(Double(made) / seconds(ContinuousClock.now - start))
                if settings[setting] == (3, 8) {
                    for (replica, earlier) in zip(replicas, before) {
                        batches += replica.statistics.batches - earlier.batches
                        commits += replica.statistics.commits - earlier.commits
                    }
                }
            }
        }
        for replica in replicas { await replica.close() }
        let median = settings.indices.map { Samples(rates[$0] ?? []).median }
        guard chosen == nil else {
            row("c. commits/s, \(settings[0].0) × \(settings[0].1)", String(format: "%.0f /s", median[0]))
            print("   \(commits) commits in \(batches) batches")
            return
        }
        let (one, three, threeByEight, ceiling) = (median[0], median[1], median[2], median[3])
        let target = min(5 * three, ceiling)
        row("c. commits/s, 1 writing replica", String(format: "%.0f /s", one))
        row("   commits/s, 3 writing replicas", String(format: "%.0f /s", three), "", ratio: three / one)
        row("   commits/s, 3 replicas × 8 writers", String(format: "%.0f /s", threeByEight), String(format: "%.0f /s", target),
            ratio: threeByEight / target, target: 1.0, atLeast: true)
        print("   (baseline of the last: the lower of 5 × 3 replicas' \(String(format: "%.0f", 5 * three)) /s and the ceiling, "
              + "\(String(format: "%.0f", ceiling)) /s by 24 postgres-nio connections each upserting in serializable transactions; "
              + "\(commits) commits in \(batches) batches, \(String(format: "%.1f", Double(commits) / Double(max(1, batches)))) a batch)")
    } catch {
        for replica in replicas { await replica.close() }
        throw error
    }
}

// MARK: d. Lag

/// Whether `key` is in `database` (a synchronous read, cheap enough to poll).
private func isVisible(_ key: String, in database: Database) throws -> Bool {
    try database.read { try $0.hasObject(forKey: key, inCollection: "lag") }
}

private func benchLag(url: String, work: String, sizes: BenchSizes) async throws {
    let primary = try PrimaryConfiguration(url: url, tablePrefix: "lag")
    let writer = try await Replica.open(at: work + "/lag-a", primary: primary)
    let follower: Replica
    do {
        follower = try await Replica.open(at: work + "/lag-b", primary: primary)
    } catch {
        await writer.close()
        throw error
    }
    do {
        var lags: [Double] = []
        var late = 0
        for index in 0..<sizes.lagWrites + 5 {
            let key = "lag-\(index)"
            try await writer.write { txn in try txn.setObject(index, forKey: key, inCollection: "lag") }
            let written = ContinuousClock.now
            let deadline = written + .seconds(5)
            while try !isVisible(key, in: follower.database) {
                if ContinuousClock.now > deadline { break }
                try await Task.sleep(for: .microseconds(100))
            }
            let lag = seconds(ContinuousClock.now - written)
            if try !isVisible(key, in: follower.database) { late += 1 }
            if index >= 5 { lags.append(lag) }  // the first few warm the connections
        }
        await writer.close()
        await follower.close()
        let samples = Samples(lags)
        row("d. lag A → B (median)", formatTime(samples.median))
        row("   lag A → B (p99)", formatTime(samples.p99))
        if late > 0 { say("   (\(late) writes were not shown by B within 5 s)") }
    } catch {
        await writer.close()
        await follower.close()
        throw error
    }
}
