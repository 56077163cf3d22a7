import Foundation
import Testing
@testable import Larder

/// Waits (polling) until `condition` holds, for at most `seconds`.
func eventually(_ seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// The next element of `iterator`, or `nil` when none comes within `seconds`.
func next<I: AsyncIteratorProtocol & Sendable>(_ iterator: inout I, within seconds: Double = 10) async throws -> I.Element? where I.Element: Sendable {
    let copy = iterator
    let task = Task { () -> (I.Element?, I) in
        var iterator = copy
        let element = try await iterator.next()
        return (element, iterator)
    }
    let timeout = Task {
        try await Task.sleep(for: .seconds(seconds))
        task.cancel()
    }
    defer { timeout.cancel() }
    let (element, advanced) = try await task.value
    iterator = advanced
    return element
}

@Suite("Observation")
struct ObservationTests {
    @Test func theStreamDeliversEveryCommitInOrder() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let stream = db.changes()  // receives from here on, before any iteration
        for i in 0..<3 { try await db.write { try $0.setObject(i, forKey: "k\(i)", inCollection: "c") } }
        var iterator = stream.makeAsyncIterator()
        for i in 0..<3 {
            let changes = try #require(try await next(&iterator))
            #expect(changes.commit == UInt64(i + 1))
            #expect(changes.changedKeys(inCollection: "c") == ["k\(i)"])
        }
    }

    @Test func aCollectionStreamSkipsOtherCollections() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let stream = db.changes(inCollection: "wanted")
        try await db.write { try $0.setObject(1, forKey: "x", inCollection: "other") }
        try await db.write { try $0.setObject(2, forKey: "y", inCollection: "wanted") }
        try await db.write { try $0.setObject(3, forKey: "z", inCollection: "wanted-not") }
        try await db.write { try $0.removeAllObjectsInAllCollections() }
        var iterator = stream.makeAsyncIterator()
        let first = try #require(try await next(&iterator))
        #expect(first.commit == 2 && first.changedKeys(inCollection: "wanted") == ["y"])
        let second = try #require(try await next(&iterator))
        #expect(second.commit == 4 && second.removedEverything)
    }

    @Test func anObservedObjectComesWithEachChange() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let connection = db.newConnection()
        var values = connection.observe(Product.self, id: "p1").makeAsyncIterator()
        #expect(try await next(&values) == .some(nil))  // nothing there yet

        let hammer = Product(id: "p1", name: "Hammer", price: 24)
        try await db.write { try $0.write(hammer) }
        #expect(try await next(&values) == .some(hammer))

        try await db.write { try $0.write(Product(id: "p2", name: "Saw", price: 30)) }  // another product
        _ = try await db.write { try $0.replaceMetadata(ProductInfo(stock: 1, updated: .now), forKey: "p1", inCollection: "products") }
        let dearer = Product(id: "p1", name: "Hammer", price: 26)
        try await db.write { try $0.write(dearer) }
        #expect(try await next(&values) == .some(dearer))

        _ = try await db.write { try $0.remove(dearer) }
        #expect(try await next(&values) == .some(nil))
    }

    @Test func cancellingAConsumerReleasesItsSubscription() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let received = LockedBox(0)
        let consumer = Task {
            for await _ in db.changes() { received.withLock { $0 += 1 } }
        }
        #expect(await eventually { db.observerCount == 1 })
        try await db.write { try $0.setObject(1, forKey: "x", inCollection: "c") }
        #expect(await eventually { received.withLock { $0 } == 1 })
        consumer.cancel()  // mid-stream, while it waits for the next commit
        await consumer.value
        // The stream's termination handler releases the subscription; it may run just after
        // the task ends.
        #expect(await eventually { db.observerCount == 0 })

        let observer = Task {
            var count = 0
            for try await _ in db.newConnection().observe(Product.self, id: "p1") { count += 1 }
            return count
        }
        #expect(await eventually { db.observerCount == 1 })
        observer.cancel()
        _ = try await observer.value
        #expect(await eventually { db.observerCount == 0 })
    }

    @Test func droppingAStreamReleasesItsSubscription() throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        do {
            let stream = db.changes()
            try db.write { try $0.setObject(1, forKey: "x", inCollection: "c") }
            #expect(stream.lease.subscription.bufferedCount == 1)
            #expect(db.observerCount == 1)
        }
        #expect(db.observerCount == 0)
        try db.write { try $0.setObject(2, forKey: "x", inCollection: "c") }
    }

    @Test func aSlowConsumerNeverHoldsUpWritersAndLosesNothing() async throws {
        let directory = TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.durability = .noMetaSync
        let db = try Database(path: directory.file("store"), configuration: configuration)
        let stream = db.changes()
        let commits = 300
        for i in 0..<commits { try await db.write { try $0.setObject(i, forKey: "k\(i)", inCollection: "c") } }
        #expect(stream.lease.subscription.bufferedCount <= ChangeSubscription.bufferLimit)
        var iterator = stream.makeAsyncIterator()
        var covered: [ClosedRange<UInt64>] = []
        var keys = Set<String>()
        while covered.last?.upperBound != UInt64(commits) {
            let changes = try #require(try await next(&iterator))
            covered.append(changes.commits)
            keys.formUnion(changes.changedKeys(inCollection: "c"))
        }
        #expect(covered.first?.lowerBound == 1)
        #expect(zip(covered, covered.dropFirst()).allSatisfy { $0.upperBound + 1 == $1.lowerBound })
        #expect(covered.count < commits)  // some were merged
        #expect(keys == Set((0..<commits).map { "k\($0)" }))
    }
}
