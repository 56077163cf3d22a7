import Foundation
import Larder
import LarderPostgres

/// Opens the replica at `path` on the primary at `url`; a failure is fatal (`error …`, exit 1).
func openReplica(at path: String, url: String, _ configure: (inout Replica.Configuration) -> Void = { _ in }) async -> Replica {
    do {
        var configuration = Replica.Configuration()
        configure(&configuration)
        return try await Replica.open(at: path, primary: try PrimaryConfiguration(url: url), configuration: configuration)
    } catch {
        fatal(error)
    }
}

/// Prints `statistics commits=<n> conflicts=<n> bootstraps=<n> position=<n>`: what the replica
/// did, for the report of a failed check.
func sayStatistics(of replica: Replica) {
    let statistics = replica.statistics
    let position = (try? replica.position).map(String.init) ?? "?"
    say("statistics commits=\(statistics.commits) conflicts=\(statistics.conflicts) batches=\(statistics.batches) largest-batch=\(statistics.largestBatch) bootstraps=\(statistics.bootstraps) position=\(position)")
}

/// The sum of the balances of `accounts` in one snapshot of the replica's store.
func totalBalance(of replica: Replica, accounts: [String]) async throws -> Int {
    try await replica.database.read { txn in
        var sum = 0
        for account in accounts {
            sum += try txn.object(forKey: account, inCollection: "accounts", as: Int.self) ?? 0
        }
        return sum
    }
}

/// `transfers <store-path> <primary-url> <seconds> <accounts> <seed>`
func runTransfers(path: String, url: String, seconds: Double, accountCount: Int, seed: UInt64) async {
    let replica = await openReplica(at: path, url: url)
    let accounts = (0..<accountCount).map { "acct-\($0)" }
    let pid = getpid()
    var random = SplitMix(seed: seed)
    var conflicts = 0
    var count = 0
    do {
        try await replica.catchUp()
        let expected = try await totalBalance(of: replica, accounts: accounts)
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var attempt = 0
        while ContinuousClock.now < deadline {
            let first = Int.random(in: 0..<accountCount, using: &random)
            let second = (first + Int.random(in: 1..<accountCount, using: &random)) % accountCount
            let from = accounts[first], to = accounts[second]
            let amount = Int.random(in: 1...10, using: &random)
            let id = "transfer-\(pid)-\(attempt)"
            attempt += 1
            do {
                try await replica.write { txn in
                    let fromBalance = try txn.object(forKey: from, inCollection: "accounts", as: Int.self) ?? 0
                    let toBalance = try txn.object(forKey: to, inCollection: "accounts", as: Int.self) ?? 0
                    try txn.setObject(fromBalance - amount, forKey: from, inCollection: "accounts")
                    try txn.setObject(toBalance + amount, forKey: to, inCollection: "accounts")
                    try txn.setObject(amount, forKey: id, inCollection: "transfers")
                }
                count += 1
                say("ack \(id)")
            } catch let error as LarderError where error.code == .writeConflict {
                conflicts += 1
            }
            let sum = try await totalBalance(of: replica, accounts: accounts)
            if sum != expected {
                say("bad-total \(sum)")
                sayStatistics(of: replica)
                exit(1)
            }
        }
    } catch {
        sayStatistics(of: replica)
        fatal(error)
    }
    sayStatistics(of: replica)
    say("conflicts \(conflicts)")
    say("done \(count)")
    await replica.close()
}

/// `increments <store-path> <primary-url> <count>`
func runIncrements(path: String, url: String, count: Int) async {
    // Three processes on one key conflict often; a write that gives up with .writeConflict
    // committed nothing, so it is simply made again.
    let replica = await openReplica(at: path, url: url) { $0.maxAttempts = 64 }
    do {
        for i in stride(from: 1, through: count, by: 1) {
            while true {
                do {
                    try await replica.write { txn in
                        let total = try txn.object(forKey: "total", inCollection: "counters", as: Int.self) ?? 0
                        try txn.setObject(total + 1, forKey: "total", inCollection: "counters")
                    }
                    break
                } catch let error as LarderError where error.code == .writeConflict {
                    continue
                }
            }
            say("ack \(i)")
        }
    } catch {
        sayStatistics(of: replica)
        fatal(error)
    }
    say("conflicts \(replica.statistics.conflicts)")  // closures run again
    say("done")
    await replica.close()
}

/// `writer-until-killed <store-path> <primary-url>`
func runWriterUntilKilled(path: String, url: String) async -> Never {
    let replica = await openReplica(at: path, url: url)
    do {
        try replica.database.register(ackedView, named: "ackedByParity")
    } catch {
        fatal(error)
    }
    let pid = getpid()
    var i = 0
    while true {
        let key = "k-\(pid)-\(i)"
        let value = i
        i += 1
        do {
            try await replica.write { txn in try txn.setObject(value, forKey: key, inCollection: "acked") }
            say("ack \(key)")
        } catch let error as LarderError where error.code == .primaryUnavailable || error.code == .commitOutcomeUnknown {
            try? await Task.sleep(for: .milliseconds(50))
        } catch {
            fatal(error)
        }
    }
}
