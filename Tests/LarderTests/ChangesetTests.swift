import Foundation
import Testing
@testable import Larder

/// The changeset of every commit: what it lists, how it answers queries, how changesets merge,
/// and the change log that carries them to other processes.
@Suite("Changesets")
struct ChangesetTests {
    let hammer = Product(id: "p1", name: "Hammer", price: 24)
    let info = ProductInfo(stock: 3, updated: Date(timeIntervalSince1970: 1_700_000_000))

    /// Commits `body` and returns its changeset, as an observer of the database sees it.
    func commit(_ db: Database, _ body: (ReadWriteTransaction) throws -> Void) throws -> Changeset {
        let changes = db.changes()
        try db.write(body)
        return try #require(changes.lease.subscription.takeBuffered().first)
    }

    @Test func eachKindOfWriteIsListed() throws {
        try withStore { db, _ in
            let p1 = YapDB.Index(collection: "products", key: "p1")
            let p2 = YapDB.Index(collection: "products", key: "p2")
            var changes = try commit(db) { txn in
                try txn.setObject(hammer, forKey: "p1", inCollection: "products", metadata: info)
                try txn.setObject(hammer, forKey: "p2", inCollection: "products")
            }
            #expect(changes.change(for: p1) == .init(object: .inserted, metadata: .inserted))
            #expect(changes.change(for: p2) == .init(object: .inserted, metadata: nil))
            #expect(changes.commits == 1...1)

            changes = try commit(db) { txn in
                try txn.setObject(hammer, forKey: "p1", inCollection: "products")  // removes the metadata
                try txn.replaceMetadata(info, forKey: "p2", inCollection: "products")
            }
            #expect(changes.change(for: p1) == .init(object: .updated, metadata: .removed))
            #expect(changes.change(for: p2) == .init(object: nil, metadata: .inserted))
            #expect(changes.hasMetadataChange(for: p2) && !changes.hasObjectChange(for: p2))
            #expect(changes.commit == 2)

            changes = try commit(db) { txn in
                #expect(try txn.removeObject(forKey: "p2", inCollection: "products"))
                try txn.touchObject(forKey: "p1", inCollection: "products")
            }
            #expect(changes.change(for: p2) == .init(object: .removed, metadata: .removed))
            #expect(changes.change(for: p1) == .init(object: .updated, metadata: nil))
        }
    }

    @Test func changesWithinOneTransactionAreNetted() throws {
        try withStore { db, _ in
            try db.write { try $0.setObject(hammer, forKey: "old", inCollection: "products") }
            let changes = try commit(db) { txn in
                try txn.setObject(hammer, forKey: "new", inCollection: "products")
                try txn.removeObject(forKey: "new", inCollection: "products")      // came and went
                try txn.removeObject(forKey: "old", inCollection: "products")
                try txn.setObject(hammer, forKey: "old", inCollection: "products")  // removed, then back
                try txn.setObject(hammer, forKey: "kept", inCollection: "products")
            }
            #expect(changes.change(for: YapDB.Index(collection: "products", key: "new")) == nil)
            #expect(changes.change(for: YapDB.Index(collection: "products", key: "old"))?.object == .updated)
            #expect(changes.change(for: YapDB.Index(collection: "products", key: "kept"))?.object == .inserted)
            #expect(changes.changedKeys(inCollection: "products") == ["old", "kept"])
        }
    }

    @Test func clearedCollectionsAndEverythingRemoved() throws {
        try withStore { db, _ in
            try db.write { txn in
                for i in 0..<3 {
                    try txn.setObject(i, forKey: "k\(i)", inCollection: "a")
                    try txn.setObject(i, forKey: "k\(i)", inCollection: "b")
                }
            }
            var changes = try commit(db) { txn in
                try txn.setObject(9, forKey: "k9", inCollection: "a")
                try txn.removeAllObjects(inCollection: "a")
                try txn.setObject(7, forKey: "k7", inCollection: "a")
            }
            #expect(changes.clearedCollections == ["a"])
            #expect(changes.changedKeys(inCollection: "a") == ["k7"])  // what came after the clear
            #expect(changes.hasObjectChange(for: YapDB.Index(collection: "a", key: "k0")))
            #expect(!changes.hasChange(inCollection: "b"))
            #expect(!changes.hasChange(forAnyKeys: ["k0", "k1"], inCollection: "b"))

            changes = try commit(db) { try $0.removeAllObjectsInAllCollections() }
            #expect(changes.removedEverything)
            #expect(changes.hasChange(for: YapDB.Index(collection: "b", key: "k0")))
            #expect(changes.hasChange(inCollection: "never-existed"))
        }
    }

    @Test func queriesOverOneAndManyChangesets() throws {
        try withStore { db, _ in
            let first = try commit(db) { try $0.setObject(1, forKey: "x", inCollection: "c") }
            let second = try commit(db) { try $0.replaceMetadata("m", forKey: "x", inCollection: "c") }
            let x = YapDB.Index(collection: "c", key: "x")
            #expect(first.hasChange(forAnyKeys: ["w", "x"], inCollection: "c"))
            #expect(!first.hasChange(forAnyKeys: ["w", "y"], inCollection: "c"))
            #expect(first.hasObjectChange(forAnyKeys: ["x"], inCollection: "c"))
            #expect(!second.hasObjectChange(forAnyKeys: ["x"], inCollection: "c"))
            #expect(second.hasMetadataChange(forAnyKeys: ["x"], inCollection: "c"))
            #expect(!first.hasChange(inCollection: "d"))

            let both = [first, second]
            #expect(both.hasObjectChange(for: x) && both.hasMetadataChange(for: x))
            #expect(![second].hasObjectChange(for: x))
            #expect(both.hasChange(forAnyKeys: ["x"], inCollection: "c"))
            #expect(!both.hasChange(inCollection: "d"))
            #expect(!both.hasChange(for: YapDB.Index(collection: "c", key: "y")))
            #expect(!([] as [Changeset]).hasChange(inCollection: "c"))
        }
    }

    @Test func aResetAnswersEveryQueryWithChanged() {
        let reset = Changeset.reset(after: 4, upTo: 9)
        #expect(reset.isReset && reset.commits == 5...9)
        #expect(reset.hasChange(for: YapDB.Index(collection: "any", key: "thing")))
        #expect(reset.hasObjectChange(forAnyKeys: ["k"], inCollection: "c"))
        #expect(reset.hasMetadataChange(for: YapDB.Index(collection: "c", key: "k")))
        #expect(reset.hasChange(inCollection: "z"))
    }

    @Test func mergingKeepsTheNetEffectInOrder() {
        let x = YapDB.Index(collection: "c", key: "x")
        let y = YapDB.Index(collection: "c", key: "y")
        var first = Changeset(commit: 3)
        first.recordObject(x, .inserted)
        first.recordObject(y, .updated)
        first.recordCommitInfo([1])
        var second = Changeset(commit: 4)
        second.recordObject(x, .removed)
        second.recordMetadata(y, .inserted)
        second.recordCommitInfo([2])
        var third = Changeset(commit: 5)
        third.recordCleared("d")

        let merged = Changeset.merged([first, second, third])!
        #expect(merged.commits == 3...5)
        #expect(merged.change(for: x) == nil)  // inserted then removed
        #expect(merged.change(for: y) == .init(object: .updated, metadata: .inserted))
        #expect(merged.clearedCollections == ["d"])
        #expect(merged.commitInfos == [[1], [2]])

        var clearing = Changeset(commit: 6)
        clearing.recordCleared("c")
        var afterClear = merged
        afterClear.merge(clearing)
        #expect(afterClear.change(for: y) == nil && afterClear.hasChange(for: y))
        var everything = Changeset(commit: 7)
        everything.recordRemovedEverything()
        afterClear.merge(everything)
        #expect(afterClear.removedEverything && afterClear.clearedCollections.isEmpty)
    }

    @Test func commitInfoTravelsWithTheChangeset() throws {
        struct Reason: Codable, Equatable { var text: String; var user: Int }
        try withStore { db, _ in
            let changes = try commit(db) { txn in
                try txn.setObject(1, forKey: "x", inCollection: "c")
                try txn.setCommitInfo(Reason(text: "first try", user: 1))
                try txn.setCommitInfo(Reason(text: "checkout", user: 7))  // replaces
            }
            #expect(try changes.commitInfo(as: Reason.self) == [Reason(text: "checkout", user: 7)])
            #expect(throws: LarderError.self) { try changes.commitInfo(as: Int.self) }
            // A transaction that only attaches information still commits, so observers see it.
            let infoOnly = try commit(db) { try $0.setCommitInfo("note") }
            #expect(try infoOnly.commitInfo(as: String.self) == ["note"])
            #expect(infoOnly.changes.isEmpty && infoOnly.commit == changes.commit + 1)
        }
    }

    @Test func commitInfoThatDoesNotEncodeIsAClearErrorAndKeepsTheStore() throws {
        try withStore { db, _ throws in
            let error = #expect(throws: LarderError.self) {
                try db.write { txn in
                    try txn.setObject(1, forKey: "x", inCollection: "c")
                    try txn.setCommitInfo(Date(timeIntervalSinceReferenceDate: .infinity))
                }
            }
            #expect(error?.code == .encodingFailed)
            #expect(try !db.read { txn throws in try txn.hasObject(forKey: "x", inCollection: "c") })
            #expect(try db.read { $0.lastCommit } == 0)
        }
    }

    @Test func transactionsThatChangeNothingMakeNoCommit() throws {
        try withStore { db, _ in
            let changes = db.changes()
            try db.write { try $0.setObject(1, forKey: "x", inCollection: "c") }
            try db.write { txn in _ = try txn.removeObject(forKey: "absent", inCollection: "c") }
            try db.write { txn in
                try txn.setObject(2, forKey: "y", inCollection: "c")
                txn.rollback()
            }
            struct Failure: Error {}
            #expect(throws: Failure.self) {
                try db.write { txn in
                    try txn.setObject(3, forKey: "z", inCollection: "c")
                    throw Failure()
                }
            }
            let delivered = changes.lease.subscription.takeBuffered()
            #expect(delivered.map(\.commit) == [1])
            #expect(try db.read { $0.lastCommit } == 1)
        }
    }

    @Test func extensionPayloadsTravelThroughTheLog() throws {
        var changes = Changeset(commit: 12)
        changes.recordObject(YapDB.Index(collection: "c", key: "k"), .inserted)
        changes.recordMetadata(YapDB.Index(collection: "c", key: "k"), .updated)
        changes.recordMetadata(YapDB.Index(collection: "é", key: "ü"), .removed)
        changes.recordCleared("gone")
        changes.recordExtensionChanges([1, 2, 3], named: "byPrice")
        changes.recordCommitInfo([0xa1, 0x61])
        let bytes = try changes.logBytes()
        let read = try bytes.withUnsafeBytes { try Changeset(logBytes: $0) }
        #expect(read.commits == changes.commits)
        #expect(read.changes == changes.changes)
        #expect(read.clearedCollections == ["gone"])
        #expect(read.extensionChanges(named: "byPrice") == [[1, 2, 3]])
        #expect(read.extensionChanges(named: "other").isEmpty)
        #expect(read.commitInfos == [[0xa1, 0x61]])
    }

    @Test func damagedLogEntriesAreClearErrors() throws {
        for bytes: [UInt8] in [[], [0xc1], [0x80], Array("not msgpack".utf8)] {
            let error = #expect(throws: LarderError.self) { try bytes.withUnsafeBytes { try Changeset(logBytes: $0) } }
            #expect(error?.code == .corruptValue)
        }
        var changes = Changeset(commit: 1)
        changes.recordObject(YapDB.Index(collection: "c", key: "k"), .inserted)
        var bytes = try changes.logBytes()
        // Change code 9 does not exist: find the code byte (0x01) at the end of the key "k".
        let position = try #require(bytes.lastIndex(of: 0x01))
        bytes[position] = 0x09
        #expect(throws: LarderError.self) { try bytes.withUnsafeBytes { try Changeset(logBytes: $0) } }
    }

    @Test func theLogKeepsTheNewestCommitsWithinItsLimit() throws {
        var configuration = Database.Configuration()
        configuration.changeLogLimit = 5
        try withStore(configuration) { db, directory in
            for i in 0..<12 { try db.write { try $0.setObject(i, forKey: "k\(i)", inCollection: "c") } }
            try db.read { txn in
                #expect(txn.lastCommit == 12)
                #expect(try txn.lmdb.count(txn.lmdb.databases.log) == 5)
                #expect(try ChangeLog.changeset(7, in: txn.lmdb) == nil)
                let kept = try #require(try ChangeLog.changeset(8, in: txn.lmdb))
                #expect(kept.changedKeys(inCollection: "c") == ["k7"])
            }
        }
    }

    /// Past the limit the oldest entries leave in batches of a sixteenth of it (4 for 64): after
    /// each commit the log holds the newest 64 to 67 commits, contiguous and ending at the last,
    /// and its oldest entry moves only when a batch has gathered (so most commits leave the
    /// log's first pages alone).
    @Test func theLogTrimsItsOldestEntriesInBatches() throws {
        var configuration = Database.Configuration()
        configuration.changeLogLimit = 64
        #expect(ChangeLog.trimBatch(64) == 4 && ChangeLog.trimBatch(1000) == 62 && ChangeLog.trimBatch(5) == 1)
        try withStore(configuration) { db, _ in
            var oldestSeen: [UInt64] = []
            for i in 0..<200 {
                try db.write { try $0.setObject(i, forKey: "k\(i % 7)", inCollection: "c") }
                let (last, entries, oldest) = try db.read { txn in
                    var keys: [UInt64] = []
                    try txn.lmdb.forEachEntry(in: txn.lmdb.databases.log) { key, _ in
                        keys.append(UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)))
                        return true
                    }
                    return (txn.lastCommit, keys, keys.first)
                }
                #expect(entries.last == last && entries == Array(entries.first!...last))
                #expect(entries.count == min(Int(last), entries.count) && entries.count >= min(Int(last), 64) && entries.count <= 67, "\(entries.count) entries after commit \(last)")
                if let oldest, oldestSeen.last != oldest { oldestSeen.append(oldest) }
            }
            // The oldest entry went 1, 5, 9, …: one move per batch of 4.
            #expect(oldestSeen == Array(stride(from: 1, through: oldestSeen.last!, by: 4)))
            #expect(oldestSeen.count > 30)
        }
    }

    @Test func commitNumbersSurviveReopening() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            for i in 0..<3 { try db.write { try $0.setObject(i, forKey: "k", inCollection: "c") } }
        }
        let db = try Database(path: path)
        let changes = db.changes()
        try db.write { try $0.setObject(9, forKey: "k", inCollection: "c") }
        #expect(changes.lease.subscription.takeBuffered().map(\.commit) == [4])
    }
}
