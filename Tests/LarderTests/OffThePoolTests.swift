import Foundation
import Synchronization
import Testing
@testable import Larder

/// The async forms of `register`, `migrate` and `storedVersions` run on threads of their own, not
/// on Swift's cooperative pool: more of them than the pool has threads, each blocked until all
/// have started, all start.
@Suite("Off the cooperative pool")
struct OffThePoolTests {
    /// Lets its callers through once `count` of them wait, or after a deadline (then `met` is false).
    final class Barrier: Sendable {
        let count: Int
        let arrived = Atomic<Int>(0)
        /// How many callers got through with everyone there.
        let met = Atomic<Int>(0)
        init(count: Int) { self.count = count }

        func wait() -> Bool {
            arrived.add(1, ordering: .acquiringAndReleasing)
            let deadline = Date().addingTimeInterval(20)
            while arrived.load(ordering: .acquiring) < count {
                if Date() > deadline { return false }
                usleep(1000)
            }
            return true
        }
    }

    @Test func moreRegistrationsThanThePoolHasThreadsAllRunAtOnce() async throws {
        let width = ProcessInfo.processInfo.activeProcessorCount + 1
        let barrier = Barrier(count: width)
        let directory = TemporaryDirectory()
        let paths = (0..<width).map { directory.file("store-\($0)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for path in paths {
                group.addTask {
                    let db = try Database(path: path)
                    try await db.write { try $0.setObject(Item(category: "a", price: 1, name: ""), forKey: "k", inCollection: "items") }
                    let view = AutoView<Item, NoMetadata>(collections: ["items"], versionTag: "1", grouping: { _, item in
                        if barrier.wait() { barrier.met.add(1, ordering: .relaxed) }  // blocks its thread until every registration runs
                        return item.category
                    }, sorting: { _, item in TupleKey(item.price) })
                    let handle = try await db.register(view, named: "byCategory", priority: .medium)
                    #expect(try await db.read { try $0[handle].numberOfItems() } == 1)
                }
            }
            try await group.waitForAll()
        }
        #expect(barrier.met.load(ordering: .relaxed) == width, "a registration waited for a pool thread")
    }

    @Test func migrateAndStoredVersionsHaveAsyncForms() async throws {
        struct Person: Codable, Sendable, Equatable { var name: String }
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        try await db.write { txn in for n in 0..<10 { try txn.setObject(Person(name: "p\(n)"), forKey: "k\(n)", inCollection: "people") } }
        db.register(ValueMigrations(collection: "people", currentVersion: 1, steps: [MigrationStep(from: 0) { _ in }]))
        #expect(try await db.storedVersions(inCollection: "people", priority: .low) == [0: 10])
        let seen = Barrier(count: 0)
        let report = try await db.migrate(collection: "people", chunkSize: 3, priority: .utility) { _ in seen.arrived.add(1, ordering: .relaxed) }
        #expect(report.migrated == 10 && seen.arrived.load(ordering: .relaxed) == 4)
        #expect(try await db.storedVersions(inCollection: "people", priority: .high) == [1: 10])
    }
}
