import Foundation
import Larder
import LarderPostgres

/// One transfer of the bank test, kept under its id in collection "transfers": the primary's
/// log of what was moved, from which the test recomputes every balance.
struct Transfer: Codable, Equatable {
    var from: String
    var to: String
    var amount: Int
}

/// How many writers of one bank process make transfers at the same time.
let bankWriters = 4

/// `bank <store-path> <primary-url> <seconds> <accounts> <seed>`
///
/// Makes random transfers for `seconds`, from ``bankWriters`` concurrent writers, while the test injects faults into the primary
/// (terminated backends, immediate stops, restarts). Each write reads two accounts, moves
/// 1...10 between them and records the transfer under its id. It prints one line per write:
/// `ack <id>` once the write returned (the primary committed it), `fail <id>` when the write
/// threw an error that promises nothing was written (`primaryUnavailable`, `writeConflict`), and
/// `unknown <id>` for `commitOutcomeUnknown` (made or not: the primary's log says). After every
/// write it sums the balances in one read of the replica's store: a sum other than the first
/// prints `bad-total <sum>` and exits 1. Any other error is fatal. The replica is opened again
/// and again while the primary is down (it cannot open without it), for up to a minute.
func runBank(path: String, url: String, seconds: Double, accountCount: Int, seed: UInt64) async {
    let accounts = (0..<accountCount).map { "acct-\($0)" }
    let pid = getpid()
    var random = SplitMix(seed: seed)
    let primary: PrimaryConfiguration
    do {
        primary = try PrimaryConfiguration(url: url)
    } catch {
        fatal(error)
    }
    var configuration = Replica.Configuration()
    configuration.maxAttempts = 64
    configuration.pollInterval = .milliseconds(200)
    var replica: Replica?
    let opening = ContinuousClock.now + .seconds(60)
    while replica == nil {
        do {
            replica = try await Replica.open(at: path, primary: primary, configuration: configuration)
        } catch let error as LarderError where error.code == .primaryUnavailable && ContinuousClock.now < opening {
            try? await Task.sleep(for: .milliseconds(100))
        } catch {
            fatal(error)
        }
    }
    guard let replica else { fatal(LarderError(.primaryUnavailable, "never opened")) }
    let made: Int
    do {
        let expected = try await totalBalance(of: replica, accounts: accounts)
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        // Concurrent writers, so that their commits go to the primary in batches.
        made = try await withThrowingTaskGroup(of: Int.self) { group in
            for writer in 0..<bankWriters {
                let seed = random.next()
                group.addTask {
                    try await makeTransfers(through: replica, accounts: accounts, expected: expected, until: deadline,
                                            idPrefix: "transfer-\(pid)-\(writer)", seed: seed)
                }
            }
            return try await group.reduce(0, +)
        }
    } catch {
        sayStatistics(of: replica)
        fatal(error)
    }
    sayStatistics(of: replica)
    say("done \(made)")
    await replica.close()
}

/// One writer of the bank: transfers until `deadline`; the number acknowledged.
private func makeTransfers(through replica: Replica, accounts: [String], expected: Int, until deadline: ContinuousClock.Instant,
                           idPrefix: String, seed: UInt64) async throws -> Int {
    var random = SplitMix(seed: seed)
    var made = 0
    var attempt = 0
    while ContinuousClock.now < deadline {
        let first = Int.random(in: 0..<accounts.count, using: &random)
        let second = (first + Int.random(in: 1..<accounts.count, using: &random)) % accounts.count
        let transfer = Transfer(from: accounts[first], to: accounts[second], amount: Int.random(in: 1...10, using: &random))
        let id = "\(idPrefix)-\(attempt)"
        attempt += 1
        do {
            try await replica.write { txn in
                let from = try txn.object(forKey: transfer.from, inCollection: "accounts", as: Int.self) ?? 0
                let to = try txn.object(forKey: transfer.to, inCollection: "accounts", as: Int.self) ?? 0
                try txn.setObject(from - transfer.amount, forKey: transfer.from, inCollection: "accounts")
                try txn.setObject(to + transfer.amount, forKey: transfer.to, inCollection: "accounts")
                try txn.setObject(transfer, forKey: id, inCollection: "transfers")
            }
            made += 1
            say("ack \(id)")
        } catch let error as LarderError where error.code == .primaryUnavailable || error.code == .writeConflict {
            say("fail \(id)")
            try? await Task.sleep(for: .milliseconds(20))
        } catch let error as LarderError where error.code == .commitOutcomeUnknown {
            say("unknown \(id)")
            try? await Task.sleep(for: .milliseconds(20))
        }
        let sum = try await totalBalance(of: replica, accounts: accounts)
        if sum != expected {
            say("bad-total \(sum)")
            sayStatistics(of: replica)
            exit(1)
        }
    }
    return made
}
