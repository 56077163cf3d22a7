import Foundation
import Synchronization
import Testing
@testable import Larder

/// `observe { txn in … }`: the result of any read, again after each commit that touches what it
/// read, and only those: a commit elsewhere wakes nothing.
@Suite("Observing a read")
struct ReadObservationTests {
    /// Counts the runs of an observed read.
    final class Runs: Sendable {
        let count = Atomic<Int>(0)
        func add() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    struct Failure: Error, Equatable {}

    @Test func aReadRerunsOnlyForCommitsThatTouchWhatItRead() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let runs = Runs()
        var results = db.observe { txn -> [String] in
            runs.add()
            let note = try txn.object(forKey: "a", inCollection: "notes", as: String.self)
            let tags = try txn.keys(inCollection: "tags").sorted()
            return [note ?? "-"] + tags
        }.makeAsyncIterator()
        #expect(try await next(&results) == ["-"])
        #expect(runs.value == 1)

        // Another key of the read collection, another collection, and a key Swift calls equal to
        // the one read but with other bytes: none touches the read.
        try await db.write { txn in
            try txn.setObject("b", forKey: "b", inCollection: "notes")
            try txn.setObject("x", forKey: "a", inCollection: "other")
        }
        try await db.write { try $0.setObject("é", forKey: "e\u{301}", inCollection: "notes") }
        try await db.write { try $0.setObject("A", forKey: "a", inCollection: "notes") }
        #expect(try await next(&results) == ["A"])
        #expect(runs.value == 2, "unrelated commits re-ran the read")

        // A key of a collection enumerated whole.
        try await db.write { try $0.setObject(1, forKey: "red", inCollection: "tags") }
        #expect(try await next(&results) == ["A", "red"])
        #expect(runs.value == 3)
    }

    @Test func anEqualResultIsNotYieldedAgain() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let runs = Runs()
        var counts = db.observe { txn in
            runs.add()
            return try txn.numberOfKeys(inCollection: "notes")
        }.makeAsyncIterator()
        #expect(try await next(&counts) == 0)
        try await db.write { try $0.setObject("one", forKey: "1", inCollection: "notes") }
        #expect(try await next(&counts) == 1)
        // The consumer waits while a commit re-runs the read to the same count, then another
        // changes it: the count it gets is the new one, not the same one again.
        let consumer = Task { [counts] in
            var counts = counts
            return try await next(&counts)
        }
        try await Task.sleep(for: .milliseconds(50))
        try await db.write { try $0.setObject("uno", forKey: "1", inCollection: "notes") }  // same count
        #expect(await eventually { runs.value == 3 })
        try await db.write { try $0.setObject("two", forKey: "2", inCollection: "notes") }
        #expect(try await consumer.value == 2)
        #expect(runs.value == 4)
    }

    @Test func aResultThatIsNotEquatableComesAfterEveryTouchingCommit() async throws {
        struct Box: Sendable { var value: String? }
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        var values = db.observe { txn in Box(value: try txn.object(forKey: "k", inCollection: "c", as: String.self)) }.makeAsyncIterator()
        #expect(try await next(&values)?.value == nil)
        try await db.write { try $0.setObject("v", forKey: "k", inCollection: "c") }
        #expect(try await next(&values)?.value == "v")
        _ = try await db.write { try $0.touchObject(forKey: "k", inCollection: "c") }
        #expect(try await next(&values)?.value == "v")
    }

    @Test func aBurstOfCommitsCoalesces() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let runs = Runs()
        var values = db.observe { txn in
            runs.add()
            return try txn.object(forKey: "n", inCollection: "c", as: Int.self) ?? 0
        }.makeAsyncIterator()
        #expect(try await next(&values) == 0)
        for n in 1...50 { try await db.write { try $0.setObject(n, forKey: "n", inCollection: "c") } }
        var last = 0
        while last != 50 { last = try #require(try await next(&values)) }
        #expect(runs.value <= 51)
    }

    @Test func readsThroughAViewFollowItsCollectionsAndItsRebuild() async throws {
        try await withStoreAsync { db in
            func byCategory(_ tag: String, hidden: String) -> AutoView<Item, NoMetadata> {
                AutoView(collections: ["items"], versionTag: tag, grouping: { _, item in item.category == hidden ? nil : item.category }, sorting: { _, item in TupleKey(item.price) })
            }
            let view = try db.register(byCategory("1", hidden: "none"), named: "byCategory")
            try await db.write { try $0.setObject(Item(category: "tools", price: 3, name: "saw"), forKey: "s", inCollection: "items") }
            var groups = db.observe { txn in (try? txn[view].groups()) ?? ["not registered"] }.makeAsyncIterator()
            #expect(try await next(&groups) == ["tools"])
            try await db.write { try $0.setObject(Item(category: "food", price: 1, name: "egg"), forKey: "e", inCollection: "items") }
            #expect(try await next(&groups) == ["food", "tools"])
            // Removing the view and registering it again, rebuilt by a new definition, change what
            // it holds without a change of its collection.
            try db.unregisterExtension(named: "byCategory")
            #expect(try await next(&groups) == ["not registered"])
            _ = try await registerOffThePool(db, byCategory("2", hidden: "food"))
            #expect(try await next(&groups) == ["tools"])
        }
    }

    @Test func anotherProcessesCommitReachesTheObservation() async throws {
        let helper = try #require(ProcessTestSupport.helperExecutable(), "larder-test-helper not found beside the test binary")
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        var values = db.observe { txn in try txn.object(forKey: "shared", inCollection: "external", as: String.self) }.makeAsyncIterator()
        #expect(try await next(&values) == .some(nil))
        let run = try ProcessTestSupport.run(helper, ["commit", path, "2", "1000"])
        #expect(run.status == 0, "helper failed: \(run.standardError)")
        db.checkForExternalChanges()
        var latest: String?
        while latest != "value-1" {
            guard let element = try await next(&values) else {
                Issue.record("the observation ended before it saw the other process's last commit")
                return
            }
            latest = element
        }
    }

    @Test func anErrorEndsTheObservationWithIt() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        var values = db.observe { txn -> Int in
            let n = try txn.object(forKey: "n", inCollection: "c", as: Int.self) ?? 0
            if n < 0 { throw Failure() }
            return n
        }.makeAsyncIterator()
        #expect(try await next(&values) == 0)
        try await db.write { try $0.setObject(-1, forKey: "n", inCollection: "c") }
        await #expect(throws: Failure.self) { _ = try await values.next() }
        #expect(try await values.next() == nil)  // ended
    }

    @Test func cancellingTheConsumerEndsItAndReleasesTheSubscription() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let consumer = Task {
            var count = 0
            for try await _ in db.observe({ txn in try txn.numberOfKeys(inCollection: "c") }) { count += 1 }
            return count
        }
        #expect(await eventually { db.observerCount == 1 })
        try await db.write { try $0.setObject(1, forKey: "x", inCollection: "c") }
        consumer.cancel()
        _ = try await consumer.value
        #expect(await eventually { db.observerCount == 0 })
    }

    /// The hub's test against an observation's reads, case by case.
    @Test func aChangesetTouchesAReadSetExactlyWhereTheyMeet() {
        var changeset = Changeset(commit: 2)
        changeset.recordObject(YapDB.Index(collection: "notes", key: "é"), .updated)
        var reads = ReadSet()
        reads.keys[ExactString("notes")] = ["e\u{301}"]
        #expect(!changeset.touches(reads))
        reads.keys[ExactString("notes")] = ["é"]
        #expect(changeset.touches(reads))
        reads = ReadSet()
        reads.collections = ["note"]
        #expect(!changeset.touches(reads))
        reads.collections = ["notes"]
        #expect(changeset.touches(reads))
        reads = ReadSet()
        reads.extensions = ["byTag"]
        #expect(!changeset.touches(reads))
        changeset.recordExtensionChanges(ExtensionPayload.rebuilt, named: "byTag")
        #expect(changeset.touches(reads))
        var cleared = Changeset(commit: 3)
        cleared.recordCleared("notes")
        reads = ReadSet()
        reads.keys[ExactString("notes")] = ["anything"]
        #expect(cleared.touches(reads))
        reads.everything = true
        #expect(Changeset(commit: 4).touches(reads))
    }
}

/// Runs `body` with a fresh store, from async code, then checks that the store closed.
func withStoreAsync(_ body: (Database) async throws -> Void) async throws {
    let directory = TemporaryDirectory()
    let path = directory.file("store")
    do {
        let db = try Database(path: path)
        try await body(db)
    }
    #expect(await eventually { EnvironmentRegistry.openCount(path: path) == 0 })
}

/// Registers `view` from synchronous code (the call blocks its thread while it rebuilds).
private func registerOffThePool(_ db: Database, _ view: AutoView<Item, NoMetadata>) async throws -> ViewHandle<Item, NoMetadata> {
    try db.register(view, named: "byCategory")
}
