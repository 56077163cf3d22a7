import Foundation
import Testing
@testable import Larder

// The runs of a full-text search (issue 35, item 5): the postings of small transactions written
// at the end of the `postings` tree, read after the blocks, folded into them at their limits and
// before any edit. The suite changes the process's run limits, so its tests run one at a time.

@Suite("Full-text runs", .serialized)
struct FullTextRunsTests {
    /// Runs `body` with the run limits set to `bytes` and `count`, then puts them back.
    static func withRunLimits<R>(bytes: Int? = nil, count: Int? = nil, _ body: () throws -> R) rethrows -> R {
        let saved = (FullTextStorage.runByteLimit.load(ordering: .relaxed), FullTextStorage.runCountLimit.load(ordering: .relaxed))
        defer {
            FullTextStorage.runByteLimit.store(saved.0, ordering: .relaxed)
            FullTextStorage.runCountLimit.store(saved.1, ordering: .relaxed)
        }
        if let bytes { FullTextStorage.runByteLimit.store(bytes, ordering: .relaxed) }
        if let count { FullTextStorage.runCountLimit.store(count, ordering: .relaxed) }
        return try body()
    }

    /// The live runs of the search `name`, and how many `postings` keys belong to runs.
    static func runs(in db: Database, search name: String) throws -> (live: Range<UInt64>, keys: Int) {
        try db.read { txn in
            let storage = try txn.extensionRuntime(named: name, as: FullTextSearchRuntime<Note, NoMetadata>.self).storage
            var keys = 0
            try txn.lmdb.forEachEntry(in: storage.postings, withPrefix: [FullTextStorage.runMarker]) { _, _ in
                keys += 1
                return true
            }
            return (try storage.runs(in: txn.lmdb), keys)
        }
    }

    static func note(_ number: Int) -> Note {
        Note(title: "note \(number)", body: "swift store number\(number) \(number % 2 == 0 ? "even" : "odd") shared words here", tags: "t\(number % 3)")
    }

    @Test func smallTransactionsWriteRunsThatEveryQueryReads() throws {
        try Self.withRunLimits(count: 16) {
            try withStore { db, _ in
                let search = try db.register(FullTextSearchTests.notes(tokenizer: FullTextTokenizer()), named: "notes")
                // Two transactions that write to the blocks (no run may hold a byte), then five
                // small ones.
                try Self.withRunLimits(bytes: 0) {
                    try db.write { txn in for number in 0..<40 { try txn.setObject(Self.note(number), forKey: "k\(number)", inCollection: "a") } }
                    try db.write { txn in try txn.setObject(Self.note(40), forKey: "k40", inCollection: "a") }
                }
                #expect(try Self.runs(in: db, search: "notes").keys == 0)
                for number in 41..<46 {
                    try db.write { txn in try txn.setObject(Self.note(number), forKey: "k\(number)", inCollection: "a") }
                }
                let runs = try Self.runs(in: db, search: "notes")
                #expect(runs.live.count == 5 && runs.keys > 0)
                #expect(try db.statistics().formatVersion == StoreFormat.fullTextRuns)
                try db.read { txn in
                    let reader = try txn[search]
                    #expect(try reader.count(matching: "swift") == 46)
                    #expect(try reader.count(matching: "even") == 23)
                    #expect(try reader.count(matching: "\"swift store\"") == 46)       // a phrase over blocks and runs
                    #expect(try reader.count(matching: "\"number44 even\"") == 1)     // a phrase inside a run
                    #expect(try reader.indexes(matching: "number4*").map(\.key).sorted() == ["k4"] + (40..<46).map { "k\($0)" })
                    #expect(try reader.count(matching: "even AND t0") == 8)
                    #expect(try reader.count(matching: "swift NOT odd") == 23)
                    // Ids grow over the parts: the ranking sees each document once.
                    #expect(Set(try reader.search("swift", limit: 100).map(\.index.key)).count == 46)
                }
                #expect(try db.verifyExtensions().isEmpty)
                #expect(try db.checkStructure().isConsistent)

                // An update edits blocks only: the runs fold first.
                try db.write { txn in try txn.setObject(Note(title: "changed", body: "rewritten", tags: ""), forKey: "k43", inCollection: "a") }
                let folded = try Self.runs(in: db, search: "notes")
                #expect(folded.live.isEmpty && folded.keys == 0)
                try db.read { txn in
                    let reader = try txn[search]
                    #expect(try reader.count(matching: "swift") == 45)
                    #expect(try reader.indexes(matching: "rewritten").map(\.key) == ["k43"])
                    #expect(try reader.count(matching: "\"number44 even\"") == 1)
                }
                #expect(try db.verifyExtensions().isEmpty)
            }
        }
    }

    @Test func runsFoldAtTheirLimitAndBeforeRemovals() throws {
        try Self.withRunLimits(count: 3) {
            try withStore { db, _ in
                let search = try db.register(FullTextSearchTests.notes(tokenizer: FullTextTokenizer()), named: "notes")
                var seen: [Int] = []
                for number in 0..<7 {
                    try db.write { txn in try txn.setObject(Self.note(number), forKey: "k\(number)", inCollection: number < 5 ? "a" : "b") }
                    seen.append(try Self.runs(in: db, search: "notes").live.count)
                }
                // Three runs, then the fourth flush folds them and goes to the blocks.
                #expect(seen == [1, 2, 3, 0, 1, 2, 3])
                #expect(try db.read { try $0[search].count(matching: "swift") } == 7)
                // A removal folds; so does clearing a collection.
                try db.write { txn in _ = try txn.removeObject(forKey: "k1", inCollection: "a") }
                #expect(try Self.runs(in: db, search: "notes").live.isEmpty)
                try db.write { txn in try txn.setObject(Self.note(7), forKey: "k7", inCollection: "b") }
                #expect(try Self.runs(in: db, search: "notes").live.count == 1)
                try db.write { txn in try txn.removeAllObjects(inCollection: "b") }
                let cleared = try Self.runs(in: db, search: "notes")
                #expect(cleared.live.isEmpty && cleared.keys == 0)
                try db.read { txn in
                    let reader = try txn[search]
                    #expect(try reader.indexes(matching: "swift").map(\.key).sorted() == ["k0", "k2", "k3", "k4"])
                }
                #expect(try db.verifyExtensions().isEmpty)
                #expect(try db.checkStructure().isConsistent)
            }
        }
    }

    @Test func aRolledBackTransactionLeavesNoRun() throws {
        struct Rollback: Error {}
        try withStore { db, _ in
            let search = try db.register(FullTextSearchTests.notes(tokenizer: FullTextTokenizer()), named: "notes")
            try db.write { txn in try txn.setObject(Self.note(0), forKey: "k0", inCollection: "a") }
            #expect(throws: Rollback.self) {
                try db.write { txn in
                    try txn.setObject(Self.note(1), forKey: "k1", inCollection: "a")
                    // A read in the transaction writes its postings (a run) first.
                    #expect(try txn[search].count(matching: "swift") == 2)
                    throw Rollback()
                }
            }
            #expect(try Self.runs(in: db, search: "notes").live.count == 1)
            #expect(try db.read { try $0[search].count(matching: "swift") } == 1)
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    /// A full block that an edit grows past the cap splits into a nearly full block, which keeps
    /// its overflow page, and a small one on a leaf page; two halves of about 2 KiB would take an
    /// overflow page each (the index grew 21% after rewriting 5% of real documents; 8% now).
    @Test func aBlockThatOutgrowsTheCapSplitsUnevenly() throws {
        try Self.withRunLimits(bytes: 0) {
            try withStore { db, _ in
                let search = try db.register(FullTextSearchTests.notes(tokenizer: FullTextTokenizer()), named: "notes")
                // "common" three times in each of 1,000 documents: postings of about 10 bytes.
                try db.write { txn in
                    for number in 0..<1_000 {
                        try txn.setObject(Note(title: "n\(number)", body: "common x common y common", tags: ""), forKey: "k\(number)", inCollection: "a")
                    }
                }
                let before = try db.read { try FullTextSearchTests.blocks(of: "common", in: $0, search: "notes") }
                let full = try #require(before.first)
                #expect(full.bytes > FullTextPostingsEditor.maximumBlockBytes - 40)
                // A document in the middle of the full block gets a much longer posting.
                let inside = try #require(try db.read { txn in
                    try txn.object(forKey: "k100", inCollection: "a", as: Note.self)
                })
                #expect(inside.title == "n100")
                try db.write { txn in
                    try txn.setObject(Note(title: "n100", body: Array(repeating: "common", count: 60).joined(separator: " "), tags: ""), forKey: "k100", inCollection: "a")
                }
                let after = try db.read { try FullTextSearchTests.blocks(of: "common", in: $0, search: "notes") }
                let split = after.filter { $0.first < before.dropFirst().first?.first ?? .max }
                #expect(split.count == 2)
                #expect(split.map(\.bytes).max()! >= FullTextPostingsEditor.maximumBlockBytes - FullTextPostingsEditor.splitHeadroom - 200, "\(split)")
                #expect(split.map(\.bytes).min()! < 1_000, "\(split)")
                #expect(try db.read { try $0[search].count(matching: "common") } == 1_000)
                #expect(try db.verifyExtensions().isEmpty)
            }
        }
        #expect(FullTextPostingsEditor.unevenCut([1_000, 1_000, 1_000, 1_000, 200], total: 4_200) == 3)
        #expect(FullTextPostingsEditor.unevenCut([4_000, 4_000], total: 8_000) == 1)
        #expect(FullTextPostingsEditor.unevenCut([3_000, 3_000, 3_000], total: 9_000) == nil)  // the rest would not fit a block
    }

    @Test func damagedRunRecordsAreReportedNotTrusted() throws {
        try withStore(leavesDamage: true) { db, _ in
            let search = try db.register(FullTextSearchTests.notes(tokenizer: FullTextTokenizer()), named: "notes")
            for number in 0..<2 { try db.write { txn in try txn.setObject(Self.note(number), forKey: "k\(number)", inCollection: "a") } }
            #expect(try Self.runs(in: db, search: "notes").live == 1..<3)
            let storage = try db.read { try $0.extensionRuntime(named: "notes", as: FullTextSearchRuntime<Note, NoMetadata>.self).storage }

            // A run the statistics do not list: readers do not see it, the check and the fold refuse it.
            try db.write { txn in
                let key = FullTextStorage.runPrefix(9) + Array("swift".utf8) + [0] + [0, 0, 0, 0, 0, 0, 0, 1]
                try key.withUnsafeBytes { key in try [UInt8]([1, 0, 5, 1, 1, 1, 0]).withUnsafeBytes { try txn.lmdb.put(storage.postings, key: key, value: $0) } }
            }
            #expect(try db.read { try $0[search].count(matching: "swift") } == 2)
            #expect(try !db.verifyExtensions().isEmpty)
            let fold = #expect(throws: LarderError.self) {
                try db.write { txn in _ = try txn.removeObject(forKey: "k0", inCollection: "a") }
            }
            #expect(fold?.code == .corruptValue)

            // Statistics whose runs are not a range of run numbers.
            try db.write { txn in
                var statistics = try FullTextStatistics.read(from: storage.documents, columns: storage.columnCount, in: txn.lmdb)
                statistics.firstRun = 5
                statistics.nextRun = 2
                try statistics.write(to: storage.documents, in: txn.lmdb)
            }
            let read = #expect(throws: LarderError.self) { try db.read { try $0[search].count(matching: "swift") } }
            #expect(read?.code == .corruptValue)
        }
    }

    @Test func theModelAgreesWhateverTheRunLimits() throws {
        try FullTextSearchTests.checkAgainstTheModel(varyingRunLimits: true)
    }

    @Test func aStoreOfFormat6WithAnIndexReadsAndItsFirstRunRecordsFormat7() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            _ = try db.register(FullTextSearchTests.notes(tokenizer: FullTextTokenizer()), named: "notes")
            try Self.withRunLimits(bytes: 0) {
                try db.write { txn in for number in 0..<20 { try txn.setObject(Self.note(number), forKey: "k\(number)", inCollection: "a") } }
            }
            // What a format-6 store with a full-text index holds: blocks only, version 6.
            try db.write { txn in
                var version = StoreFormat.recordsInMainDatabase.bigEndian
                try withUnsafeBytes(of: &version) { try txn.lmdb.put(txn.lmdb.databases.larder, key: StoreFormat.versionKey, value: $0) }
            }
        }
        let db = try Database(path: path)
        let search = try db.register(FullTextSearchTests.notes(tokenizer: FullTextTokenizer()), named: "notes")
        #expect(try db.statistics().formatVersion == StoreFormat.recordsInMainDatabase)
        #expect(try db.read { try $0[search].count(matching: "swift") } == 20)
        try db.write { txn in try txn.setObject(Self.note(20), forKey: "k20", inCollection: "a") }
        #expect(try Self.runs(in: db, search: "notes").live.count == 1)
        #expect(try db.statistics().formatVersion == StoreFormat.fullTextRuns)
        #expect(try db.read { try $0[search].count(matching: "swift") } == 21)
        #expect(try db.verifyExtensions().isEmpty)
    }
}
