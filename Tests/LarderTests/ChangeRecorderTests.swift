import Testing
@testable import Larder

/// `ChangeRecorder` (what a write transaction records as it goes) against a plain `Changeset`
/// recording the same changes one by one: random runs of changes over a few collections, with
/// clears, removals of everything and queries in between, must give the same answers and the
/// same changeset. And in a store: the changeset and the counts of a transaction that reads
/// between its writes.
@Suite("Change recorder")
struct ChangeRecorderTests {
    static let collections = ["a", "b", "ab"]
    static let changes: [Changeset.Change] = [.inserted, .updated, .removed]

    @Test(arguments: 1...40)
    func recordsWhatAChangesetRecordsOneByOne(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var recorder = ChangeRecorder()
        var model = Changeset(commit: 0)
        let steps = Int.random(in: 1...300, using: &random)
        var collection = "a"
        for step in 0..<steps {
            // Runs: mostly the collection of the step before, sometimes another.
            if Int.random(in: 0..<8, using: &random) == 0 { collection = Self.collections.randomElement(using: &random)! }
            let index = YapDB.Index(collection: collection, key: "k\(Int.random(in: 0..<12, using: &random))")
            let change = Self.changes.randomElement(using: &random)!
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<55:
                recorder.recordObject(index, change)
                model.recordObject(index, change)
            case 55..<85:
                recorder.recordMetadata(index, change)
                model.recordMetadata(index, change)
            case 85..<95:
                let probe = YapDB.Index(collection: Self.collections.randomElement(using: &random)!, key: "k\(Int.random(in: 0..<12, using: &random))")
                #expect(recorder.hasChange(for: probe) == model.hasChange(for: probe), "seed \(seed), step \(step): \(probe)")
            case 95..<99:
                recorder.recordCleared(collection)
                model.recordCleared(collection)
            default:
                recorder.recordRemovedEverything()
                model.recordRemovedEverything()
            }
        }
        let recorded = recorder.changeset()
        #expect(recorded.changes == model.changes, "seed \(seed)")
        #expect(recorded.clearedCollections == model.clearedCollections, "seed \(seed)")
        #expect(recorded.removedEverything == model.removedEverything, "seed \(seed)")
        // The recorder goes on from what it returned.
        let after = YapDB.Index(collection: "a", key: "after")
        recorder.recordObject(after, .inserted)
        model.recordObject(after, .inserted)
        #expect(recorder.changeset().changes == model.changes, "seed \(seed)")
    }

    @Test func aTransactionThatReadsBetweenItsWritesCommitsWhatItDid() throws {
        try withStore { db, _ in
            try db.write { txn in
                for i in 0..<20 { try txn.setObject(i, forKey: "k\(i)", inCollection: "a") }
            }
            let changes = db.changes()
            try db.write { txn in
                for i in 0..<40 {
                    // A write, then reads of the same collection (they net the current run) and of another.
                    try txn.setObject(i * 10, forKey: "k\(i)", inCollection: "a")
                    #expect(try txn.object(forKey: "k\(i)", inCollection: "a", as: Int.self) == i * 10)
                    #expect(try txn.numberOfKeys(inCollection: "a") == max(20, i + 1) - (i + 4) / 5)
                    if i % 3 == 0 { try txn.setObject(i, forKey: "k\(i)", inCollection: "b") }
                    if i % 5 == 0 { _ = try txn.removeObject(forKey: "k\(i)", inCollection: "a") }
                    #expect(try txn.object(forKey: "k\(i)", inCollection: "a", as: Int.self) == (i % 5 == 0 ? nil : i * 10))
                }
            }
            let changeset = try #require(changes.lease.subscription.takeBuffered().first)
            for i in 0..<40 {
                let expected: Changeset.Change? = switch (i < 20, i % 5 == 0) {
                case (true, true): .removed
                case (true, false): .updated
                case (false, true): nil  // came and went
                case (false, false): .inserted
                }
                #expect(changeset.change(for: YapDB.Index(collection: "a", key: "k\(i)"))?.object == expected, "k\(i)")
            }
            #expect(changeset.changedKeys(inCollection: "b").count == 14)
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: "a") == 40 - 8)
                #expect(try txn.numberOfKeys(inCollection: "b") == 14)
            }
        }
    }
}
