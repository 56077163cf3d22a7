import Foundation
import Testing
@testable import Larder

/// Store format 6: the collection counts and the last commit number are records of LMDB's main
/// database. A store written by the previous Larder (format 5, `Fixtures/larder-format5-store.dump`,
/// made with its `larder` tool) opens and reads as it is, and its first write moves the records.
@Suite("Store format 6: records in the main database")
struct StoreRecordsFormatTests {
    /// What the fixture holds: made by `larder import --create` and `larder put`/`delete`
    /// (11 commits), with two collections Swift calls equal ("café" NFC and NFD), the empty
    /// collection, and a collection emptied again ("gone").
    static let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
    static let counts: [(String, Int)] = [("", 1), (nfd, 2), (nfc, 1), ("notes", 3)]  // in byte order
    static let lastCommit: UInt64 = 11

    static func loadFormatFiveStore(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("store")
        try ChangeLogFormatTests.loadFixture("larder-format5-store.dump", at: path)
        return path
    }

    /// The counts as the store reports them, by the collections' bytes.
    static func storedCounts(_ db: Database) throws -> [[UInt8]] {
        try db.read { txn in
            try txn.collections().map { name in Array(name.utf8) + [UInt8(try txn.numberOfKeys(inCollection: name))] }
        }
    }

    static func expected(_ counts: [(String, Int)]) -> [[UInt8]] {
        counts.map { Array($0.0.utf8) + [UInt8($0.1)] }
    }

    /// The raw records: (count records of the main database, of `collections`, whether `larder`
    /// still holds `last-commit`).
    static func rawRecords(_ db: Database) throws -> (main: [[UInt8]], former: Int, formerLastCommit: Bool) {
        try db.environment.read { lmdb in
            var main: [[UInt8]] = []
            try lmdb.forEachEntry(in: .main, withPrefix: [0]) { key, _ in
                main.append([UInt8](key))
                return true
            }
            var former = 0
            if let collections = try lmdb.openExistingDatabase("collections") {
                former = try lmdb.count(collections)
            }
            return (main, former, try lmdb.get(lmdb.databases.larder, key: "last-commit") != nil)
        }
    }

    @Test func aFormatFiveStoreReadsAsItIsAndItsFirstWriteMovesTheRecords() throws {
        let directory = TemporaryDirectory()
        let path = try Self.loadFormatFiveStore(in: directory)
        do {
            let db = try Database(path: path)
            let before = try db.statistics()
            #expect(before.formatVersion == 5)
            #expect(before.lastCommit == Self.lastCommit && before.collectionCount == 4)
            #expect(try Self.storedCounts(db) == Self.expected(Self.counts))
            #expect(try db.read { try $0.numberOfCollections() } == 4)
            #expect(try db.checkStructure().isConsistent)
            #expect(try db.statistics().formatVersion == 5)  // opening and reading change nothing
            #expect(try Self.rawRecords(db).main.isEmpty)

            // A connection pinned before the move keeps reading its snapshot's counts.
            let pinned = db.newConnection()
            try pinned.pinSnapshot()

            try db.write { txn in
                try txn.setObject("new", forKey: "k", inCollection: "fresh")
                try txn.removeObject(forKey: "k1", inCollection: Self.nfc)
                try txn.setObject(9, forKey: "k3", inCollection: Self.nfd)
            }
            let after = try db.statistics()
            #expect(after.formatVersion == 6)
            #expect(after.lastCommit == Self.lastCommit + 1)
            let moved: [(String, Int)] = [("", 1), (Self.nfd, 3), ("fresh", 1), ("notes", 3)]
            #expect(try Self.storedCounts(db) == Self.expected(moved))
            let raw = try Self.rawRecords(db)
            #expect(raw.main == [[0], Array(LMDBTransaction.lastCommitRecordKey.utf8)] + [Self.nfd, "fresh", "notes"].map { [0] + Array($0.utf8) })
            #expect(raw.former == 0 && !raw.formerLastCommit)
            #expect(try db.checkStructure().isConsistent)
            // The changesets go on from the old log.
            #expect(try db.read { try $0.changesets(after: Self.lastCommit - 1)?.map(\.commit) } == [Self.lastCommit, Self.lastCommit + 1])

            #expect(try pinned.read { try $0.numberOfKeys(inCollection: Self.nfc) } == 1)
            #expect(try pinned.read { try $0.numberOfKeys(inCollection: "fresh") } == 0)
            pinned.unpinSnapshot()
            #expect(try pinned.read { try $0.numberOfKeys(inCollection: Self.nfc) } == 0)
            #expect(try pinned.read { try $0.numberOfKeys(inCollection: "fresh") } == 1)
            db.close()
        }
        // Reopened at format 6: no `collections` database is needed, and writes go on.
        let db = try Database(path: path)
        defer { db.close() }
        try db.write { try $0.removeAllObjects(inCollection: "notes") }
        #expect(try Self.storedCounts(db) == Self.expected([("", 1), (Self.nfd, 3), ("fresh", 1)]))
        #expect(try db.statistics().lastCommit == Self.lastCommit + 2)
        #expect(try db.checkStructure().isConsistent)
        try db.write { try $0.removeAllObjectsInAllCollections() }
        #expect(try db.read { try $0.numberOfCollections() } == 0)
        #expect(try Self.rawRecords(db).main == [Array(LMDBTransaction.lastCommitRecordKey.utf8)])
    }

    /// This process opened the store at format 5; another process's first write moves the
    /// records; this process then reads and writes where they are now.
    @Test func anotherProcessMovesTheRecordsUnderAnOpenStore() throws {
        let directory = TemporaryDirectory()
        let path = try Self.loadFormatFiveStore(in: directory)
        let db = try Database(path: path)
        defer { db.close() }
        #expect(try Self.storedCounts(db) == Self.expected(Self.counts))
        let helper = try #require(ProcessTestSupport.helperExecutable(), "larder-test-helper not found beside the test binary")
        let run = try ProcessTestSupport.run(helper, ["commit", path, "3", "1000"])
        try #require(run.status == 0, "\(run.standardError)")
        #expect(try db.statistics().formatVersion == 6)
        #expect(try db.statistics().lastCommit == Self.lastCommit + 3)
        #expect(try db.read { try $0.numberOfKeys(inCollection: "external") } == 4)  // "shared" and c0…c2
        try db.write { try $0.setObject(1, forKey: "mine", inCollection: "notes") }
        #expect(try Self.storedCounts(db) == Self.expected([("", 1), (Self.nfd, 2), (Self.nfc, 1), ("external", 4), ("notes", 4)]))
        #expect(try db.statistics().lastCommit == Self.lastCommit + 4)
        #expect(try Self.rawRecords(db).former == 0)
        #expect(try db.checkStructure().isConsistent)
    }

    @Test func aFormatFiveStoreOpenedReadOnlyReadsItsCounts() throws {
        let directory = TemporaryDirectory()
        let path = try Self.loadFormatFiveStore(in: directory)
        var configuration = Database.Configuration()
        configuration.readOnly = true
        let db = try Database(path: path, configuration: configuration)
        defer { db.close() }
        #expect(try Self.storedCounts(db) == Self.expected(Self.counts))
        #expect(try db.statistics().lastCommit == Self.lastCommit)
        #expect(try db.checkStructure().isConsistent)
    }

    @Test func aNewStoreKeepsItsRecordsInTheMainDatabaseOnly() throws {
        try withStore { db, _ in
            #expect(try db.statistics().formatVersion == StoreFormat.current)  // 6 or later: a new store records the newest format
            try db.write { txn in
                try txn.setObject(1, forKey: "a", inCollection: "")
                try txn.setObject(2, forKey: "b", inCollection: String(repeating: "x", count: 509))  // the longest collection name a key fits with
            }
            let raw = try Self.rawRecords(db)
            #expect(raw.main == [[0], [0, 0] + Array("last-commit".utf8), [0] + Array(String(repeating: "x", count: 509).utf8)])
            #expect(raw.former == 0 && !raw.formerLastCommit)
            #expect(try db.environment.read { try $0.openExistingDatabase("collections") } == nil)
            #expect(try db.read { try $0.numberOfKeys(inCollection: String(repeating: "x", count: 509)) } == 1)
            #expect(try db.checkStructure().isConsistent)
        }
    }
}
