import Foundation
import Synchronization
import Testing
@testable import Larder

/// Asynchronous writes that wait together are committed together, each closure in a nested
/// transaction of its own.
@Suite("Group commit")
struct GroupCommitTests {
    struct Failure: Error, Equatable { var caller: Int }

    /// Holds the writer thread in a first write until `count` more asynchronous writes wait behind
    /// it, so that they form one group; returns each caller's outcome, in caller order.
    func grouped<R: Sendable>(_ db: Database, _ count: Int, _ body: @escaping @Sendable (Int, ReadWriteTransaction) throws -> R) async throws -> [Result<R, any Error>] {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = Task {
            try await db.write { txn in
                started.signal()
                release.wait()
                try txn.setObject(-1, forKey: "first", inCollection: "g")
            }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { started.wait(); continuation.resume() }
        }
        let callers = (0..<count).map { caller in
            Task { () -> Result<R, any Error> in
                do { return .success(try await db.write { try body(caller, $0) }) } catch { return .failure(error) }
            }
        }
        #expect(await eventually { db.writer.waitingCount == count })
        release.signal()
        try await first.value
        var outcomes: [Result<R, any Error>] = []
        for caller in callers { outcomes.append(await caller.value) }
        return outcomes
    }

    @Test func waitingWritesShareOneCommit() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let stream = db.changes()
        let outcomes = try await grouped(db, 8) { caller, txn in
            try txn.setObject(caller, forKey: "k\(caller)", inCollection: "g")
            return caller
        }
        #expect(outcomes.map { try? $0.get() } == Array(0..<8))
        let commits = stream.lease.subscription.takeBuffered()
        #expect(commits.map(\.commit) == [1, 2])
        #expect(commits.last?.changedKeys(inCollection: "g") == Set((0..<8).map { "k\($0)" }))
        #expect(try await db.read { try $0.numberOfKeys(inCollection: "g") } == 9)
    }

    @Test func aFailingClosureUndoesOnlyItsOwnWork() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        try await db.write { try $0.setObject(0, forKey: "count", inCollection: "g") }
        let stream = db.changes()
        let outcomes = try await grouped(db, 8) { caller, txn -> Int in
            // Each caller sees the work of the callers committed before it in the group.
            let count = try txn.object(forKey: "count", inCollection: "g", as: Int.self)!
            try txn.setObject(count + 1, forKey: "count", inCollection: "g")
            try txn.setObject(caller, forKey: "k\(caller)", inCollection: "g")
            try txn.setCommitInfo(caller)
            if caller == 3 { throw Failure(caller: caller) }
            if caller == 5 { txn.rollback() }
            return count
        }
        let failure = try #require(outcomes[3].failure as? Failure)
        #expect(failure == Failure(caller: 3))
        let seen = outcomes.enumerated().filter { $0.offset != 3 && $0.offset != 5 }.map { try! $0.element.get() }
        #expect(Set(seen) == Set(0..<6))  // six increments, in some order, none lost or doubled
        // A rolled-back caller still gets its result: the count it read, which is the count the
        // next committed caller of the group read too (its own increment was undone), or 6 when
        // it ran last.
        #expect(Set(seen).union([6]).contains(try outcomes[5].get()))

        let kept = Set([0, 1, 2, 4, 6, 7].map { "k\($0)" })
        try await db.read { txn throws in
            #expect(try Set(txn.keys(inCollection: "g")) == kept.union(["count", "first"]))
            #expect(try txn.object(forKey: "count", inCollection: "g", as: Int.self) == 6)
        }
        let group = try #require(stream.lease.subscription.takeBuffered().last)
        #expect(group.changedKeys(inCollection: "g") == kept.union(["count"]))
        #expect(Set(try group.commitInfo(as: Int.self)) == [0, 1, 2, 4, 6, 7])
    }

    @Test func aGroupThatFillsTheMapRunsAgainLarger() async throws {
        let directory = TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.initialMapSize = 1 << 20
        let db = try Database(path: directory.file("store"), configuration: configuration)
        let runs = Atomic<Int>(0)
        let size = 256 << 10
        let outcomes = try await grouped(db, 8) { caller, txn in
            runs.add(1, ordering: .relaxed)
            try txn.setObject([UInt8](repeating: UInt8(caller), count: size), forKey: "big\(caller)", inCollection: "g")
        }
        #expect(outcomes.allSatisfy { (try? $0.get()) != nil })
        #expect(runs.load(ordering: .acquiring) > 8)  // the group ran again after growing
        #expect(db.environment.resizeCount > 0)
        try await db.read { txn throws in
            for caller in 0..<8 {
                #expect(try txn.object(forKey: "big\(caller)", inCollection: "g", as: [UInt8].self) == [UInt8](repeating: UInt8(caller), count: size))
            }
        }
    }

    @Test func eachConnectionCachesWhatItWroteInTheGroup() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let connections = (0..<3).map { _ in db.newConnection() }
        // Callers 0 and 1 write the same key from two connections: only the later value is cached.
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = Task { try await db.write { _ in started.signal(); release.wait() } }
        await withCheckedContinuation { continuation in DispatchQueue.global().async { started.wait(); continuation.resume() } }
        let a = Task { try await connections[0].write { try $0.setObject("from 0", forKey: "shared", inCollection: "g") } }
        #expect(await eventually { db.writer.waitingCount == 1 })
        let b = Task { try await connections[1].write { try $0.setObject("from 1", forKey: "shared", inCollection: "g") } }
        #expect(await eventually { db.writer.waitingCount == 2 })
        release.signal()
        try await first.value
        try await a.value
        try await b.value
        for connection in connections {
            #expect(try await connection.read { try $0.object(forKey: "shared", inCollection: "g", as: String.self) } == "from 1")
        }
        #expect(connections[0].cacheStatistics.objectHits == 0)
        #expect(connections[1].cacheStatistics.objectHits == 1)
    }
}

extension GroupCommitTests {
    /// A synchronous write, callable from async code (where `write` resolves to the async one).
    static func appendNow(_ db: Database, _ value: Int, to key: String) throws {
        try db.write { txn in
            let list = try txn.object(forKey: key, inCollection: "order", as: [Int].self) ?? []
            try txn.setObject(list + [value], forKey: key, inCollection: "order")
        }
    }

    @Test func syncAndAsyncWritesOfOneTaskKeepTheirOrder() async throws {
        let directory = TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.durability = .noMetaSync
        let db = try Database(path: directory.file("store"), configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    let key = "task\(task)"
                    for step in 0..<30 {
                        if step % 3 == 0 {
                            try Self.appendNow(db, step, to: key)
                        } else {
                            try await db.write { txn in
                                let list = try txn.object(forKey: key, inCollection: "order", as: [Int].self) ?? []
                                try txn.setObject(list + [step], forKey: key, inCollection: "order")
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        for task in 0..<4 {
            #expect(try await db.read { try $0.object(forKey: "task\(task)", inCollection: "order", as: [Int].self) } == Array(0..<30))
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
