import Foundation
import Testing
@testable import Larder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Statistics, recorded extensions, the structural check and the compacting copy
/// (`Database+Maintenance.swift`, `Database+StructureCheck.swift`).
@Suite("Maintenance")
struct MaintenanceTests {
    struct Item: Codable, Sendable, Equatable {
        var name: String
        var price: Double
    }

    /// Writes bytes straight into one of the store's own databases, bypassing every rule, to
    /// damage the store the way a bug or a bad disk would.
    private func plant(_ db: Database, in database: (Environment.Databases) -> DatabaseHandle, key: [UInt8], value: [UInt8]?) throws {
        try db.environment.write { lmdb in
            try key.withUnsafeBytes { key in
                if let value {
                    try value.withUnsafeBytes { try lmdb.put(database(lmdb.databases), key: key, value: $0) }
                } else {
                    _ = try lmdb.delete(database(lmdb.databases), key: key)
                }
            }
        }
    }

    /// Writes or removes a record of LMDB's main database (where the store keeps its counts and
    /// last commit number), as damage would.
    private func plantInMainDatabase(_ db: Database, key: [UInt8], value: [UInt8]?) throws {
        try db.environment.write { lmdb in
            try key.withUnsafeBytes { key in
                if let value {
                    try value.withUnsafeBytes { try lmdb.put(.main, key: key, value: $0) }
                } else {
                    _ = try lmdb.delete(.main, key: key)
                }
            }
        }
    }

    private func storageKey(_ collection: String, _ key: String) -> [UInt8] {
        Array(collection.utf8) + [0] + Array(key.utf8)
    }

    /// Pages verified while a writer grows the data file are sound: the file's size is read
    /// after the meta page (a commit writes its pages before the meta page that names them), not
    /// when the file is opened, which made a commit in between look like a truncated file (seen
    /// in CI as `larder backup` refusing a store another thread was writing). The file is opened
    /// here before a commit that grows it, and verified after.
    @Test func pagesVerifiedAfterAWriterGrewTheFileAreSound() throws {
        try withStore { db, _ in
            let file = try #require(PageFile(path: db.environment.dataFile))
            let sizeBefore = file.size
            try db.write { txn in
                for i in 0..<200 { try txn.setObject(String(repeating: "x", count: 2_000), forKey: "k\(i)", inCollection: "c") }
            }
            let report = PageVerifier.verify(file)
            #expect(file.size > sizeBefore)
            #expect(report.problems.isEmpty, "\(report.problems)")
        }
    }

    // MARK: Statistics

    @Test func statisticsOfAFreshStoreAndAfterWrites() throws {
        try withStore { db, _ in
            let fresh = try db.statistics()
            #expect(fresh.formatVersion == 7 && LarderVersion.storeFormat == 7)  // a new store records the newest format
            #expect(fresh.objectCount == 0 && fresh.metadataCount == 0 && fresh.collectionCount == 0)
            #expect(fresh.lastCommit == 0 && fresh.changeLogEntries == 0)
            #expect(fresh.pageSize >= 4096 && fresh.mapSize >= fresh.usedBytes && fresh.usedBytes > 0)
            #expect(fresh.maxKeySize == 511 && fresh.maxReaders == 1024)
            #expect(!fresh.isSingleFile && fresh.dataFile.hasSuffix("/data.mdb"))

            try db.write { txn in
                for i in 0..<10 { try txn.setObject(Item(name: "i\(i)", price: Double(i)), forKey: "k\(i)", inCollection: "items", metadata: i) }
                try txn.setObject("x", forKey: "only", inCollection: "other")
            }
            try db.write { _ = try $0.removeObject(forKey: "k0", inCollection: "items") }
            let after = try db.statistics()
            #expect(after.objectCount == 10 && after.metadataCount == 9 && after.collectionCount == 2)
            #expect(after.lastCommit == 2 && after.changeLogEntries == 2)
            #expect(after.lastTransactionID > fresh.lastTransactionID)
            #expect(after.fileSize.map { $0 >= after.usedBytes } == true)
        }
    }

    @Test func statisticsOfASingleFileStore() throws {
        let directory = TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.singleFile = true
        let db = try Database(path: directory.file("one"), configuration: configuration)
        let statistics = try db.statistics()
        #expect(statistics.isSingleFile && statistics.dataFile == directory.file("one"))
    }

    // MARK: Recorded extensions

    @Test func recordedExtensionsListKindsTagsAndState() throws {
        try withStore { db, directory in
            #expect(try db.recordedExtensions().isEmpty)
            let view = try db.register(
                AutoView<Item, NoMetadata>(collections: ["items"], versionTag: "v2", grouping: { _, _ in "all" }, sorting: { _, item in TupleKey(item.price) }),
                named: "byPrice")
            try db.register(FilteredView(parent: view, versionTag: "f1") { _, _, item, _ in item.price < 5 }, named: "cheap")
            try db.register(SecondaryIndex<Item, NoMetadata>(versionTag: "7") { _, item in TupleKey(item.name) }, named: "byName")
            let recorded = try db.recordedExtensions()
            #expect(recorded.map(\.name) == ["byName", "byPrice", "cheap"])
            #expect(recorded.map(\.kind) == ["secondaryIndex", "view", "filteredView"])
            #expect(recorded.map(\.versionTag) == ["7", "v2", "f1"])
            #expect(recorded[0].collections == nil && recorded[1].collections == ["items"])
            #expect(recorded[2].dependencies == ["byPrice"])
            #expect(recorded.allSatisfy { $0.isRegisteredInThisProcess && !$0.isStale })
        }
    }

    @Test func recordedExtensionsOfAnotherProcessAreListedAndMarkedStale() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            try db.register(SecondaryIndex<Item, NoMetadata>(collections: ["items"], versionTag: "1") { _, item in TupleKey(item.name) }, named: "byName")
        }
        #expect(EnvironmentRegistry.openCount(path: path) == 0)
        let reopened = try Database(path: path)
        try reopened.write { try $0.setObject(Item(name: "a", price: 1), forKey: "a", inCollection: "items") }
        let recorded = try reopened.recordedExtensions()
        #expect(recorded.count == 1)
        #expect(recorded.first?.isRegisteredInThisProcess == false)
        #expect(recorded.first?.isStale == true)
    }

    // MARK: Structure

    @Test func aHealthyStoreChecksConsistent() throws {
        try withStore { db, _ in
            #expect(try db.checkStructure().isConsistent)
            try db.register(SecondaryIndex<Item, NoMetadata>(versionTag: "1") { _, item in TupleKey(item.name) }, named: "byName")
            try db.write { txn in
                for i in 0..<50 { try txn.setObject(Item(name: "i\(i)", price: Double(i)), forKey: "k\(i)", inCollection: "items", metadata: ["n": i]) }
                try txn.setObject([UInt8](repeating: 7, count: 600), forKey: "blob", inCollection: "raw")
                try txn.setObject(Item(name: "j", price: 1), forKey: "j", inCollection: "json", archiver: JSONArchiver<Item>(), metadata: nil as Int?, metadataArchiver: MessagePackArchiver<Int>())
                try txn.setObject(1, forKey: "in the empty collection", inCollection: "")
            }
            try db.write(undoable: "Remove some") { txn in
                for i in 0..<10 { try txn.removeObject(forKey: "k\(i)", inCollection: "items") }
            }
            try db.write { try $0.removeAllObjects(inCollection: "raw") }
            let report = try db.checkStructure()
            #expect(report.problems.isEmpty, "\(report.problems)")
            #expect(report.isConsistent)
            #expect(report.objectsChecked == 42 && report.metadataChecked == 40)
            #expect(report.collectionsChecked == 3)
            #expect(report.changeLogEntriesChecked == 4)
            #expect(report.extensionRecordsChecked == 1)
        }
    }

    @Test func damageIsReportedByKind() throws {
        try withStore(leavesDamage: true) { db, _ in
            try db.write { txn in
                for i in 0..<3 { try txn.setObject(i, forKey: "k\(i)", inCollection: "c", metadata: "m\(i)") }
            }
            try plant(db, in: \.objects, key: storageKey("c", "bad"), value: [0x01, 0x92, 0x01])          // truncated array
            try plant(db, in: \.objects, key: storageKey("c", "trailing"), value: [0x01, 0x01, 0x02])     // bytes after the value
            try plant(db, in: \.objects, key: storageKey("c", "odd"), value: [0x07, 0x00])                 // reserved format
            try plant(db, in: \.objects, key: storageKey("c", "empty"), value: [])                         // no format byte
            try plant(db, in: \.objects, key: Array("nocollection".utf8), value: [0x03])                   // no separator
            try plant(db, in: \.metadata, key: storageKey("c", "ghost"), value: [0x01, 0xc0])              // metadata alone
            try plant(db, in: \.objects, key: storageKey("d", "x"), value: [0x03, 0x01])                   // no count for d
            try plant(db, in: \.metadata, key: storageKey("c", "k1"), value: [0x02, 0xff, 0xfe])           // JSON, not UTF-8
            let report = try db.checkStructure()
            let kinds = report.problems.map(\.kind)
            #expect(!report.isConsistent)
            #expect(kinds.filter { $0 == .malformedValue }.count == 3)
            #expect(kinds.contains(.unknownFormat))
            #expect(kinds.contains(.emptyValue))
            #expect(kinds.contains(.badKey))
            #expect(kinds.contains(.orphanMetadata))
            #expect(report.problems.contains { $0.kind == .orphanMetadata && $0.index == YapDB.Index(collection: "c", key: "ghost") })
            // c: 3 real + 4 planted objects counted against a stored 3; d: none stored.
            #expect(report.problems.contains { $0.kind == .countMismatch && $0.detail.contains("records 3 keys but has 7") })
            #expect(report.problems.contains { $0.kind == .countMismatch && $0.detail.contains("\"d\" has 1 objects but no recorded count") })
            // A count record (in the main database, from format 6) of the wrong size.
            try plantInMainDatabase(db, key: [0] + Array("c".utf8), value: [1, 2, 3])
            #expect(try db.checkStructure().problems.contains { $0.kind == .countMismatch && $0.detail.contains("is 3 bytes long, not 8") })
            // Reading it is an error, not a count of 0.
            let error = #expect(throws: LarderError.self) { try db.read { try $0.numberOfKeys(inCollection: "c") } }
            #expect(error?.code == .corruptValue)
            #expect(try db.statistics().collectionCount == 1)  // statistics still answer ("d" has no count record)
            #expect(report.problemCount == report.problems.count)
            #expect(report.problems.allSatisfy { !$0.description.isEmpty })
        }
    }

    @Test func changeLogInconsistenciesAreReported() throws {
        try withStore(leavesDamage: true) { db, _ in
            for i in 0..<3 { try db.write { try $0.setObject(i, forKey: "k", inCollection: "c") } }
            var two = UInt64(2).bigEndian
            try plant(db, in: \.log, key: withUnsafeBytes(of: &two) { Array($0) }, value: [0xc1])      // undecodable entry
            var nine = UInt64(9).bigEndian
            try plantInMainDatabase(db, key: Array(LMDBTransaction.lastCommitRecordKey.utf8), value: withUnsafeBytes(of: &nine) { Array($0) })
            let problems = try db.checkStructure().problems.filter { $0.kind == .changeLog }
            #expect(problems.contains { $0.detail.contains("commit 2 does not decode") })
            #expect(problems.contains { $0.detail.contains("ends at commit 3 but the last commit is 9") })

            try plant(db, in: \.log, key: withUnsafeBytes(of: &two) { Array($0) }, value: nil)          // a gap
            let gaps = try db.checkStructure().problems.filter { $0.kind == .changeLog }
            #expect(gaps.contains { $0.detail.contains("skips from commit 1 to 3") })
        }
    }

    @Test func aBadExtensionRecordAndFormatVersionAreReported() throws {
        try withStore(leavesDamage: true) { db, _ in
            try plant(db, in: \.larder, key: Array((ExtensionRecord.keyPrefix + "broken").utf8), value: [0x01])
            try plant(db, in: \.larder, key: Array(StoreFormat.versionKey.utf8), value: [0, 0, 0, 0])
            let kinds = try db.checkStructure().problems.map(\.kind)
            #expect(kinds.contains(.extensionRecord))
            #expect(kinds.contains(.formatVersion))
        }
    }

    // MARK: Copying

    @Test(arguments: [true, false])
    func aCopyOpensWithTheSameContents(compacting: Bool) throws {
        try withStore { db, directory in
            try db.register(SecondaryIndex<Item, NoMetadata>(versionTag: "1") { _, item in TupleKey(item.name) }, named: "byName")
            try db.write { txn in
                for i in 0..<200 { try txn.setObject(Item(name: "i\(i)", price: Double(i)), forKey: "k\(i)", inCollection: "items", metadata: i) }
            }
            try db.write { txn in for i in 0..<150 { try txn.removeObject(forKey: "k\(i)", inCollection: "items") } }
            let destination = directory.file("copy")
            try db.copy(to: destination, compacting: compacting)
            #expect(FileManager.default.fileExists(atPath: destination + "/data.mdb"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: destination) == ["data.mdb"])
            let attributes = try FileManager.default.attributesOfItem(atPath: destination + "/data.mdb")
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let copy = try Database(path: destination)
            #expect(try copy.checkStructure().isConsistent)
            let original = try db.read { txn in try txn.objects(inCollection: "items", as: Item.self).map(\.key) }
            #expect(try copy.read { txn in try txn.objects(inCollection: "items", as: Item.self).map(\.key) } == original)
            #expect(try copy.statistics().lastCommit == db.statistics().lastCommit)
            #expect(try copy.recordedExtensions().map(\.name) == ["byName"])
            if compacting {
                #expect(try copy.statistics().usedBytes <= db.statistics().usedBytes)
            }
        }
    }

    @Test func aCopyNeverOverwritesADataFile() throws {
        try withStore { db, directory in
            try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
            let destination = directory.file("copy")
            try db.copy(to: destination)
            #expect(throws: LarderError.self) { try db.copy(to: destination) }
            #expect(throws: LarderError.self) { try db.copy(to: directory.file("store")) }  // the store itself
            let file = directory.file("a-file")
            _ = FileManager.default.createFile(atPath: file, contents: Data([1]))
            let error = #expect(throws: LarderError.self) { try db.copy(to: file) }
            #expect(error?.code == .invalidConfiguration)
            #expect(try FileManager.default.contentsOfDirectory(atPath: destination).sorted() == ["data.mdb"])
        }
    }

    @Test func aFailedCopyLeavesNothingBehind() throws {
        try withStore { db, directory in
            let destination = directory.file("missing-parent/copy")
            #expect(throws: LarderError.self) { try db.copy(to: destination) }
            #expect(!FileManager.default.fileExists(atPath: directory.file("missing-parent")))
        }
    }

    @Test func aSingleFileStoreCopiesToAFile() throws {
        let directory = TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.singleFile = true
        let db = try Database(path: directory.file("one"), configuration: configuration)
        try db.write { try $0.setObject("v", forKey: "k", inCollection: "c") }
        try db.copy(to: directory.file("two"))
        let copy = try Database(path: directory.file("two"))
        #expect(try copy.read { try $0.object(forKey: "k", inCollection: "c", as: String.self) } == "v")
        #expect(try copy.statistics().isSingleFile)
    }

    @Test func aCopyTakenWhileWritersRunIsConsistent() throws {
        try withStore { db, directory in
            try db.write { txn in for i in 0..<500 { try txn.setObject(Item(name: "i\(i)", price: 1), forKey: "k\(i)", inCollection: "items") } }
            let stop = LockedBox(false)
            let finished = DispatchSemaphore(value: 0)
            // The thread takes the database from a box it empties before it signals, so that
            // nothing of it keeps the store open after the test (the fixture checks).
            let shared = LockedBox<Database?>(db)
            let writer = Thread {
                do {
                    let db = shared.withLock({ $0 })!
                    var round = 0
                    while !stop.withLock({ $0 }) {
                        round += 1
                        try? db.write { txn in
                            for i in 0..<50 { try txn.setObject(Item(name: "r\(round)", price: Double(i)), forKey: "w\(round % 20)-\(i)", inCollection: "writes") }
                        }
                    }
                }
                shared.withLock { $0 = nil }
                finished.signal()
            }
            writer.start()
            for attempt in 0..<3 {
                let destination = directory.file("copy\(attempt)")
                try db.copy(to: destination)
                let copy = try Database(path: destination)
                let report = try copy.checkStructure()
                #expect(report.isConsistent, "\(report.problems)")
                #expect(try copy.read { try $0.numberOfKeys(inCollection: "items") } == 500)
            }
            stop.withLock { $0 = true }
            finished.wait()
        }
    }
}
