import Foundation
import Synchronization
import Testing
@testable import Larder

/// Transfers between accounts, from sync writer threads and async writer tasks, while reader
/// threads and tasks check in every snapshot that the money adds up: a torn read, a lost update
/// or a write seen half would break the sum. Quick mode: 0.5 s; `LARDER_FULL=1`: 60 s.
@Suite("Concurrency")
struct ConcurrencyTests {
    static let accounts = 20
    static let opening = 1_000
    static var duration: Duration { ProcessInfo.processInfo.environment["LARDER_FULL"] == nil ? .milliseconds(500) : .seconds(60) }

    struct Account: Codable, Sendable {
        var balance: Int
    }

    final class Tally: Sendable {
        let transfers = Atomic<Int>(0)
        let snapshots = Atomic<Int>(0)
        let broken = Atomic<Int>(0)
    }

    @Sendable static func transfer(_ txn: ReadWriteTransaction, _ seed: Int) throws {
        let from = "a\(seed % accounts)", to = "a\((seed / accounts + 1 + seed) % accounts)"
        guard from != to else { return }
        var source = try txn.object(forKey: from, inCollection: "accounts", as: Account.self)!
        var target = try txn.object(forKey: to, inCollection: "accounts", as: Account.self)!
        let amount = min(source.balance, 1 + seed % 37)
        source.balance -= amount
        target.balance += amount
        try txn.setObject(source, forKey: from, inCollection: "accounts")
        try txn.setObject(target, forKey: to, inCollection: "accounts")
    }

    static func sum(_ txn: ReadTransaction) throws -> Int {
        try txn.objects(inCollection: "accounts", as: Account.self).reduce(0) { $0 + $1.object.balance }
    }

    @Test func moneyIsNeitherMadeNorLost() async throws {
        let directory = TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.durability = .noMetaSync
        let db = try Database(path: directory.file("store"), configuration: configuration)
        try await db.write { txn in
            for i in 0..<Self.accounts { try txn.setObject(Account(balance: Self.opening), forKey: "a\(i)", inCollection: "accounts") }
        }
        let total = Self.accounts * Self.opening
        let tally = Tally()
        let deadline = ContinuousClock.now + Self.duration
        // Past the deadline, and once something has run: on a loaded machine the deadline may pass
        // before the first worker is scheduled.
        let stop: @Sendable () -> Bool = {
            ContinuousClock.now >= deadline && tally.transfers.load(ordering: .relaxed) > 0 && tally.snapshots.load(ordering: .relaxed) > 0
        }

        // Sync writers and readers on threads of their own (each with its own connection and cache).
        let writers: [@Sendable () -> Void] = (0..<2).map { worker in
            { @Sendable in
                let connection = db.newConnection()
                var seed = worker * 7919
                while !stop() {
                    seed += 1
                    try! connection.write { try Self.transfer($0, seed) }
                    tally.transfers.add(1, ordering: .relaxed)
                }
            }
        }
        let readers: [@Sendable () -> Void] = (0..<2).map { _ in
            { @Sendable in
                let connection = db.newConnection()
                while !stop() {
                    let sum = try! connection.read { try Self.sum($0) }
                    if sum != total { tally.broken.add(1, ordering: .relaxed) }
                    tally.snapshots.add(1, ordering: .relaxed)
                }
            }
        }
        let threads = writers + readers
        let threadsDone = Task.detached { ProcessTestSupport.runOnThreads(threads) }

        // Async writers (group-committed) and async readers, with pinned snapshots in between.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var seed = 100_000 * (worker + 1)
                    while !stop() {
                        seed += 1
                        let current = seed
                        try await db.write { try Self.transfer($0, current) }
                        tally.transfers.add(1, ordering: .relaxed)
                    }
                }
            }
            for _ in 0..<2 {
                group.addTask {
                    let connection = db.newConnection()
                    while !stop() {
                        try connection.pinSnapshot()
                        let first = try await connection.read { try Self.sum($0) }
                        let second = try await connection.read { try Self.sum($0) }
                        _ = try connection.advanceSnapshot()
                        if first != total || second != total { tally.broken.add(1, ordering: .relaxed) }
                        tally.snapshots.add(2, ordering: .relaxed)
                    }
                    connection.unpinSnapshot()
                }
            }
            try await group.waitForAll()
        }
        await threadsDone.value
        #expect(tally.broken.load(ordering: .acquiring) == 0, "a snapshot saw money made or lost")
        #expect(try await db.read { try Self.sum($0) } == total)
        #expect(tally.transfers.load(ordering: .acquiring) > 0 && tally.snapshots.load(ordering: .acquiring) > 0)
        if ProcessInfo.processInfo.environment["LARDER_FULL"] != nil {
            print("concurrency: \(tally.transfers.load(ordering: .acquiring)) transfers, \(tally.snapshots.load(ordering: .acquiring)) snapshots checked, none broken")
        }
    }
}
