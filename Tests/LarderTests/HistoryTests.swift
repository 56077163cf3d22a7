import Foundation
import Testing
@testable import Larder

/// The readable history of changes: commit times, values kept in the change log
/// (`keepsValueHistory`), and the history of an index read back from the log.
@Suite("History")
struct HistoryTests {
    static var withValues: Database.Configuration {
        var configuration = Database.Configuration()
        configuration.keepsValueHistory = true
        return configuration
    }

    /// Commits `body` and returns its changeset, as an observer of the database sees it.
    func commit(_ db: Database, _ body: (ReadWriteTransaction) throws -> Void) throws -> Changeset {
        let changes = db.changes()
        try db.write(body)
        return try #require(changes.lease.subscription.takeBuffered().first)
    }

    /// The change log entry of `commit`, as stored.
    func logEntry(_ db: Database, _ commit: UInt64) throws -> [UInt8]? {
        try db.read { txn in
            try withUnsafeBytes(of: commit.bigEndian) { try txn.lmdb.get(txn.lmdb.databases.log, key: $0) }.map { [UInt8]($0) }
        }
    }

    /// Replaces the change log entry of `commit` with `bytes` (the transaction makes no commit).
    func replaceLogEntry(_ db: Database, _ commit: UInt64, with bytes: [UInt8]) throws {
        try db.write { txn in
            try withUnsafeBytes(of: commit.bigEndian) { key in
                try bytes.withUnsafeBytes { try txn.lmdb.put(txn.lmdb.databases.log, key: key, value: $0) }
            }
        }
    }

    /// The keys a change log entry may have, read with the Codable decoder as any tool would.
    struct EntryProbe: Decodable {
        var version: Int
        var time: Date?
        var values: [String: [String: [Data?]]]?
    }

    // MARK: The log's size

    @Test func theChangeLogIsCappedByItsBytesAsWellAsByItsCommits() throws {
        let directory = TemporaryDirectory()
        var configuration = Self.withValues
        let limit = 256 * 1024
        configuration.changeLogByteLimit = limit
        let db = try Database(path: directory.file("store"), configuration: configuration)
        // A connection whose cache holds k0 from before the log dropped what changed it.
        try db.write { try $0.setObject("first", forKey: "k0", inCollection: "big") }
        let behind = db.newConnection()
        #expect(try behind.read { try $0.object(forKey: "k0", inCollection: "big", as: String.self) } == "first")
        // 100 commits of a 20 KB value each: 2 MB of values with history, far past the limit,
        // far under the 1,000 commits the count allows.
        let value = String(repeating: "x", count: 20_000)
        for i in 0..<100 {
            try db.write { try $0.setObject(value + String(i), forKey: "k\(i % 5)", inCollection: "big") }
        }
        let statistics = try db.statistics()
        #expect(statistics.changeLogEntries >= 1 && statistics.changeLogEntries < 50, "\(statistics.changeLogEntries) entries kept")
        let log = try #require(try db.databaseStatistics().first { $0.name == "log" })
        let pageSize = 4096
        // Within the limit, give or take the entry that must stay and the tree's branch pages.
        #expect(log.pages * pageSize <= limit + 32 * 1024, "the log takes \(log.pages) pages")
        // The newest commits are still there, with their values.
        let history = try db.read { try $0.history(ofObjectAt: YapDB.Index(collection: "big", key: "k4")) }
        #expect(history.first?.commit == 101 && history.first?.isValueKnown == true, "\(history.prefix(2))")
        // The connection that fell behind what the log keeps starts over: no stale value.
        #expect(try behind.read { try $0.object(forKey: "k0", inCollection: "big", as: String.self) } == value + "95")

        // Without a byte limit the count alone caps it: every commit is kept.
        var uncapped = Self.withValues
        uncapped.changeLogByteLimit = nil
        let other = try Database(path: directory.file("uncapped"), configuration: uncapped)
        for i in 0..<100 { try other.write { try $0.setObject(value + String(i), forKey: "k\(i % 5)", inCollection: "big") } }
        #expect(try other.statistics().changeLogEntries == 100)
        var zero = Database.Configuration()
        zero.changeLogByteLimit = 0
        #expect(throws: LarderError.self) { try Database(path: directory.file("zero"), configuration: zero) }
    }

    // MARK: Commit times

    @Test func everyCommitIsStampedWithItsTimeInOrder() throws {
        try withStore { db, _ in
            let before = Date()
            var changesets: [Changeset] = []
            for i in 0..<20 { changesets.append(try commit(db) { try $0.setObject(i, forKey: "k", inCollection: "c") }) }
            let after = Date()
            let times = try changesets.map { try #require($0.time) }
            #expect(times.allSatisfy { $0 >= before && $0 <= after })
            // Not strictly: two commits may share a clock reading.
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })

            // The log holds the same times, to the bit, for other processes and for the history.
            let logged = try #require(try db.read { try $0.changesets(after: 0) })
            #expect(logged.map(\.commit) == Array(1...20))
            #expect(logged.map(\.time) == changesets.map(\.time))
            let history = try db.read { try $0.history(ofObjectAt: YapDB.Index(collection: "c", key: "k")) }
            #expect(history.map(\.commit) == Array((1...20).reversed()))
            #expect(history.map(\.time) == changesets.reversed().map(\.time))
            #expect(history.map(\.event) == Array(repeating: HistoryEntry.Event.updated, count: 19) + [.inserted])
        }
    }

    @Test func timesSurviveReopening() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        var times: [Date?] = []
        do {
            let db = try Database(path: path)
            for i in 0..<3 { times.append(try commit(db) { try $0.setObject(i, forKey: "k", inCollection: "c") }.time) }
        }
        #expect(!times.contains(nil))
        let db = try Database(path: path)
        #expect(try db.read { try $0.changesets(after: 0) }?.map(\.time) == times)
        #expect(try db.read { try $0.history(ofObjectAt: YapDB.Index(collection: "c", key: "k")) }.map(\.time) == times.reversed())
        let next = try commit(db) { try $0.setObject(3, forKey: "k", inCollection: "c") }
        #expect(next.commit == 4 && next.time! >= times[2]!)
    }

    @Test func mergedChangesetsKeepTheLatestTimeAndResetsHaveNone() throws {
        var early = Changeset(commit: 1)
        early.time = Date(timeIntervalSince1970: 100)
        var late = Changeset(commit: 2)
        late.time = Date(timeIntervalSince1970: 200)
        let untimed = Changeset(commit: 3)  // as read from an entry logged before times
        #expect(Changeset.merged([early, late])?.time == late.time)
        #expect(Changeset.merged([late, early])?.time == late.time)  // the latest, not the last
        #expect(Changeset.merged([early, untimed])?.time == early.time)
        #expect(Changeset.merged([untimed, early])?.time == early.time)
        #expect(Changeset.merged([untimed])?.time == nil)

        let reset = Changeset.reset(after: 3, upTo: 9)
        #expect(reset.time == nil)
        var merged = late
        merged.merge(reset)
        #expect(merged.isReset && merged.time == nil)

        // The time travels through the log form; an untimed changeset writes no `time` key.
        let read = try late.logBytes().withUnsafeBytes { try Changeset(logBytes: $0) }
        #expect(read.time == late.time)
        let probe = try MessagePackDecoder().decode(EntryProbe.self, from: try untimed.logBytes())
        #expect(probe.time == nil && probe.values == nil)
    }

    // MARK: Old entries

    /// The form of a log entry before commit times and values.
    struct OldLogForm: Codable {
        var version = 1
        var first: UInt64
        var last: UInt64
        var everything = false
        var cleared: [String] = []
        var changes: [String: [String: UInt8]]
        var extensions: [String: [[UInt8]]] = [:]
        var info: [[UInt8]] = []
    }

    @Test func entriesLoggedBeforeTimesAndValuesStillDecode() throws {
        try withStore(Self.withValues) { db, _ in
            for i in 1...3 { try db.write { try $0.setObject("v\(i)", forKey: "k", inCollection: "c") } }
            // Commit 2 as the previous encoder wrote it (Codable, no `time`, no `values`)...
            let old = try MessagePackEncoder().encode(OldLogForm(first: 2, last: 2, changes: ["c": ["k": 2]]))
            try replaceLogEntry(db, 2, with: old)
            // ...and commit 1 written out by hand: {"version": 1, "first": 1, "last": 1,
            // "everything": false, "cleared": [], "changes": {"c": {"k": 1}}, "extensions": {}, "info": []}.
            func str(_ text: String) -> [UInt8] { [0xa0 | UInt8(text.utf8.count)] + Array(text.utf8) }
            var handWritten: [UInt8] = [0x88]
            handWritten += str("version") + [0x01] + str("first") + [0x01] + str("last") + [0x01]
            handWritten += str("everything") + [0xc2] + str("cleared") + [0x90]
            handWritten += str("changes") + [0x81] + str("c") + [0x81] + str("k") + [0x01]
            handWritten += str("extensions") + [0x80] + str("info") + [0x90]
            try replaceLogEntry(db, 1, with: handWritten)

            let changesets = try #require(try db.read { try $0.changesets(after: 0) })
            #expect(changesets.map(\.commit) == [1, 2, 3])
            #expect(changesets[0].time == nil && changesets[1].time == nil && changesets[2].time != nil)
            #expect(changesets[0].change(for: YapDB.Index(collection: "c", key: "k"))?.object == .inserted)
            #expect(changesets[1].change(for: YapDB.Index(collection: "c", key: "k"))?.object == .updated)

            let history = try db.read { try $0.history(ofObjectAt: YapDB.Index(collection: "c", key: "k")) }
            #expect(history.map(\.commit) == [3, 2, 1])
            #expect(history.map(\.event) == [.updated, .updated, .inserted])
            #expect(history.map(\.isValueKnown) == [true, false, false])
            #expect(history.map { $0.time == nil } == [false, true, true])
            #expect(try history.map { try $0.value(as: String.self) } == ["v3", nil, nil])
        }
    }

    // MARK: Values

    @Test func valuesAreKeptForObjectsAndMetadataSeparately() throws {
        try withStore(Self.withValues) { db, _ in
            let index = Product.index(forKey: "p1")
            let v1 = Product(id: "p1", name: "Hammer", price: 24)
            let v2 = Product(id: "p1", name: "Hammer", price: 19, tags: ["sale"])
            let info1 = ProductInfo(stock: 3, updated: Date(timeIntervalSince1970: 1_700_000_000))
            let info2 = ProductInfo(stock: 1, updated: Date(timeIntervalSince1970: 1_700_000_500))

            try db.write { try $0.setObject(v1, forKey: "p1", inCollection: "products", metadata: info1) }  // 1
            try db.write { _ = try $0.replaceObject(v2, forKey: "p1", inCollection: "products") }                // 2
            let object2 = try #require(try db.read { try $0.storedObject(forKey: "p1", inCollection: "products") })
            try db.write { _ = try $0.replaceMetadata(info2, forKey: "p1", inCollection: "products") }           // 3
            let metadata3 = try #require(try db.read { try $0.storedMetadata(forKey: "p1", inCollection: "products") })
            try db.write { try $0.setObject(v1, forKey: "p2", inCollection: "products") }                    // 4: another key
            try db.write { _ = try $0.touchObject(forKey: "p1", inCollection: "products") }                      // 5
            try db.write { _ = try $0.removeObject(forKey: "p1", inCollection: "products") }                     // 6

            try db.read { txn in
                let objects = try txn.history(ofObjectAt: index)
                #expect(objects.map(\.commit) == [6, 5, 2, 1])
                #expect(objects.map(\.event) == [.removed, .updated, .updated, .inserted])
                #expect(objects.allSatisfy { $0.isValueKnown && $0.index == index })
                #expect(try objects.map { try $0.value(as: Product.self) } == [nil, v2, v2, v1])
                // The raw value is exactly what the store held after the commit.
                #expect(objects[2].stored?.format == object2.format && objects[2].stored?.bytes == object2.bytes)
                #expect(objects[2].framedBytes == [object2.format.rawValue] + object2.bytes)
                #expect(objects[1].framedBytes == objects[2].framedBytes)  // a touch keeps the bytes
                #expect(objects[0].framedBytes == nil && objects[0].stored == nil)

                let metadata = try txn.history(ofMetadataAt: index)
                #expect(metadata.map(\.commit) == [6, 3, 1])
                #expect(metadata.map(\.event) == [.removed, .updated, .inserted])
                #expect(try metadata.map { try $0.value(as: ProductInfo.self) } == [nil, info2, info1])
                #expect(metadata[1].stored?.format == metadata3.format && metadata[1].stored?.bytes == metadata3.bytes)

                let revisions = try txn.history(of: Product.self, key: "p1")
                #expect(revisions.map(\.value) == [nil, v2, v2, v1])
                #expect(revisions.map(\.commit) == objects.map(\.commit))
                #expect(revisions.map(\.event) == objects.map(\.event))
                #expect(revisions.map(\.time) == objects.map(\.time))
                #expect(try txn.history(of: Product.self, id: "p2").map(\.value) == [v1])
                #expect(try txn.history(ofObjectAt: Product.index(forKey: "never")).isEmpty)

                let error = #expect(throws: LarderError.self) { try objects[2].value(as: Int.self) }
                #expect(error?.code == .decodingFailed && error?.index == index)
                #expect(throws: LarderError.self) { try txn.history(of: Product.self, key: "") }
            }
        }
    }

    @Test func storingAnObjectWithoutMetadataIsAMetadataRemoval() throws {
        try withStore(Self.withValues) { db, _ in
            let index = YapDB.Index(collection: "c", key: "k")
            try db.write { try $0.setObject(1, forKey: "k", inCollection: "c", metadata: "note") }  // 1
            try db.write { try $0.setObject(2, forKey: "k", inCollection: "c") }                    // 2: drops the metadata
            try db.write { try $0.setObject(3, forKey: "k", inCollection: "c") }                    // 3: no metadata to drop
            let metadata = try db.read { try $0.history(ofMetadataAt: index) }
            #expect(metadata.map(\.commit) == [2, 1])
            #expect(metadata.map(\.event) == [.removed, .inserted])
            #expect(try metadata.map { try $0.value(as: String.self) } == [nil, "note"])
            #expect(try db.read { try $0.history(ofObjectAt: index) }.map { try $0.value(as: Int.self) } == [3, 2, 1])
        }
    }

    @Test func withoutValueHistoryCommitsAreListedWithoutValues() throws {
        try withStore { db, _ in
            let index = YapDB.Index(collection: "c", key: "k")
            try db.write { try $0.setObject("a", forKey: "k", inCollection: "c") }
            try db.write { try $0.setObject("b", forKey: "k", inCollection: "c") }
            try db.write { _ = try $0.removeObject(forKey: "k", inCollection: "c") }
            let history = try db.read { try $0.history(ofObjectAt: index) }
            #expect(history.map(\.commit) == [3, 2, 1])
            #expect(history.map(\.event) == [.removed, .updated, .inserted])
            #expect(history.map(\.isValueKnown) == [true, false, false])  // a removal leaves nothing, known or not
            #expect(history.allSatisfy { $0.framedBytes == nil && $0.time != nil })
            #expect(try history.map { try $0.value(as: String.self) } == [nil, nil, nil])
            let probe = try MessagePackDecoder().decode(EntryProbe.self, from: try #require(try logEntry(db, 2)))
            #expect(probe.values == nil && probe.time != nil)
        }
    }

    @Test func theEntryIsReadableByAPlainMessagePackTool() throws {
        try withStore(Self.withValues) { db, directory in
            let changes = try commit(db) { txn in
                try txn.setObject("hello", forKey: "k", inCollection: "c", metadata: 7)
                try txn.setObject("other", forKey: "gone", inCollection: "c")
                try txn.removeObject(forKey: "gone", inCollection: "c")
            }
            try db.write { txn in
                try txn.replaceMetadata(8, forKey: "k", inCollection: "c")
                try txn.setObject("x", forKey: "y", inCollection: "d")
                try txn.removeObject(forKey: "y", inCollection: "d")
            }
            try db.write { _ = try $0.removeObject(forKey: "k", inCollection: "c") }
            let stored = try #require(try logEntry(db, 1))
            let probe = try MessagePackDecoder().decode(EntryProbe.self, from: stored)
            let objectBytes = try #require(probe.values?["c"]?["k"]?[0])
            #expect(Array(objectBytes) == [ArchiveFormat.messagePack.rawValue] + (try MessagePackEncoder().encode("hello")))
            #expect(probe.values?["c"]?["k"]?[1] == Data([ArchiveFormat.messagePack.rawValue, 7]))
            #expect(probe.values?["c"]?["gone"] == nil)  // came and went: not listed, so no value

            let second = try MessagePackDecoder().decode(EntryProbe.self, from: try #require(try logEntry(db, 2)))
            #expect(second.values?["c"]?["k"] == [nil, Data([ArchiveFormat.messagePack.rawValue, 8])])
            let third = try MessagePackDecoder().decode(EntryProbe.self, from: try #require(try logEntry(db, 3)))
            #expect(third.values == [:])  // a removal records no value, but the entry says values were kept

            guard try MessagePackPythonInteropTests.requireMsgpack() else { return }
            let file = directory.file("entry.bin")
            try Data(stored).write(to: URL(fileURLWithPath: file))
            let script = """
            import msgpack, sys
            entry = msgpack.unpackb(open(sys.argv[1], "rb").read())
            print(sorted(entry.keys()))
            print(type(entry["time"]).__name__, entry["time"].to_unix_nano())
            print(entry["values"]["c"]["k"][0].hex(), entry["values"]["c"]["k"][1].hex())
            """
            let run = try MessagePackPythonInteropTests.runPython(script, [file])
            #expect(run.status == 0, "\(run.output)")
            let time = try #require(changes.time)
            let (seconds, nanoseconds) = try #require(MessagePackTimestamp.components(of: time))
            let hex = ([ArchiveFormat.messagePack.rawValue] + (try MessagePackEncoder().encode("hello"))).map { String(format: "%02x", $0) }.joined()
            #expect(run.output.split(separator: "\n").map(String.init) == [
                "['changes', 'cleared', 'everything', 'extensions', 'first', 'info', 'last', 'time', 'values', 'version']",
                "Timestamp \(Int64(seconds) * 1_000_000_000 + Int64(nanoseconds))",
                "\(hex) 0107",
            ])
        }
    }

    // MARK: Retention, clears, other processes

    @Test func theHistoryReachesAsFarBackAsTheLog() throws {
        var configuration = Self.withValues
        configuration.changeLogLimit = 4
        try withStore(configuration) { db, _ in
            let index = YapDB.Index(collection: "c", key: "k")
            for i in 0..<10 { try db.write { try $0.setObject(i, forKey: "k", inCollection: "c") } }
            try db.read { txn in
                let history = try txn.history(ofObjectAt: index)
                #expect(history.map(\.commit) == [10, 9, 8, 7])
                #expect(try history.map { try $0.value(as: Int.self) } == [9, 8, 7, 6])
                #expect(try txn.loggedCommits() == 7...10)
                #expect(try txn.changesets(after: 6)?.map(\.commit) == [7, 8, 9, 10])
                #expect(try txn.changesets(after: 5) == nil)  // commit 6 is gone
                #expect(try txn.changesets(after: 10)?.isEmpty == true)
            }
            // A clear at the start of what the log holds is listed: nothing says the key was absent.
            try db.write { try $0.removeAllObjects(inCollection: "c") }                            // 11
            for i in 0..<3 { try db.write { try $0.setObject(i, forKey: "other", inCollection: "c") } }  // 12-14
            let history = try db.read { try $0.history(ofObjectAt: index) }
            #expect(history.map(\.commit) == [11])
            #expect(history.first?.event == .cleared(collection: "c"))
            #expect(history.first?.isValueKnown == true && history.first?.framedBytes == nil)
        }
    }

    @Test func clearedCollectionsAndEverythingRemovedAppear() throws {
        try withStore(Self.withValues) { db, _ in
            let index = YapDB.Index(collection: "c", key: "k")
            try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }                     // 1
            try db.write { try $0.removeAllObjects(inCollection: "c") }                               // 2
            try db.write { try $0.setObject(3, forKey: "k", inCollection: "c") }                     // 3
            try db.write { txn in                                                                     // 4
                try txn.removeAllObjects(inCollection: "c")
                try txn.setObject(4, forKey: "k", inCollection: "c")
            }
            try db.write { try $0.removeAllObjectsInAllCollections() }                               // 5
            try db.write { try $0.setObject(6, forKey: "other", inCollection: "c") }                 // 6
            try db.write { try $0.removeAllObjects(inCollection: "c") }                               // 7: k already gone
            try db.write { try $0.setObject(8, forKey: "x", inCollection: "d") }                     // 8
            try db.write { try $0.removeAllObjectsInAllCollections() }                               // 9: k already gone

            try db.read { txn in
                let history = try txn.history(ofObjectAt: index)
                #expect(history.map(\.commit) == [5, 4, 4, 3, 2, 1])
                #expect(history.map(\.event) == [.removedEverything, .inserted, .cleared(collection: "c"), .inserted, .cleared(collection: "c"), .inserted])
                #expect(try history.map { try $0.value(as: Int.self) } == [nil, 4, nil, 3, nil, 1])
                #expect(history.allSatisfy { $0.isValueKnown })
                // The key never had metadata, so no clear concerned its metadata.
                #expect(try txn.history(ofMetadataAt: index).isEmpty)
                let changesets = try #require(try txn.changesets(after: 0))
                #expect(changesets.map(\.clearedCollections) == [[], ["c"], [], ["c"], [], [], ["c"], [], []])
                #expect(changesets.map(\.removedEverything) == [false, false, false, false, true, false, false, false, true])
            }
        }
    }

    @Test func anotherProcessesCommitsAppearInTheHistory() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable(), "larder-test-helper not found beside the test binary")
        try withStore(Self.withValues) { db, directory in
            let index = YapDB.Index(collection: "external", key: "shared")
            try db.write { try $0.setObject("mine", forKey: "shared", inCollection: "external") }  // 1
            // Three commits (2-4) of a process that keeps no values (the helper's default).
            let run = try ProcessTestSupport.run(helper, ["commit", directory.file("store"), "3", "1000"])
            #expect(run.status == 0, "helper failed: \(run.standardError)")
            try db.write { try $0.setObject("again", forKey: "shared", inCollection: "external") }  // 5

            try db.read { txn in
                let history = try txn.history(ofObjectAt: index)
                #expect(history.map(\.commit) == [5, 4, 3, 2, 1])
                #expect(history.map(\.event) == [.updated, .updated, .updated, .updated, .inserted])
                #expect(history.map(\.isValueKnown) == [true, false, false, false, true])
                #expect(try history.map { try $0.value(as: String.self) } == ["again", nil, nil, nil, "mine"])
                let times = try history.reversed().map { try #require($0.time) }
                #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
                let other = try txn.history(ofObjectAt: YapDB.Index(collection: "external", key: "c1"))
                #expect(other.map(\.commit) == [3] && other.first?.event == .inserted)
                #expect(try txn.changesets(after: 1)?.map { try $0.commitInfo(as: String.self) } == [["helper-0"], ["helper-1"], ["helper-2"], []])
            }
        }
    }

    @Test func theSamplesOfTheGuideWork() throws {
        var configuration = Database.Configuration()
        configuration.keepsValueHistory = true          // keep the values too (off by default)
        try withStore(configuration) { db, _ in
            let hammer = Product(id: "p1", name: "Hammer", price: 24)
            try db.write { try $0.write(hammer) }
            try db.write { try $0.write(Product(id: "p1", name: "Claw hammer", price: 19)) }
            var printed: [String] = []
            try db.read { txn in
                for entry in try txn.history(ofObjectAt: hammer.index) {          // newest first
                    printed.append("\(entry.commit) \(entry.event) \(try entry.value(as: Product.self)?.name ?? "-")")
                    _ = entry.time ?? .distantPast
                }
                let prices = try txn.history(of: Product.self, key: "p1").compactMap { $0.value?.price }
                #expect(prices == [19, 24])
                for revision in try txn.history(of: Product.self, key: "p1") {   // newest first
                    printed.append("\(revision.commit) \(revision.event) \(revision.value?.name ?? "-")")
                }
            }
            #expect(printed == ["2 updated Claw hammer", "1 inserted Hammer", "2 updated Claw hammer", "1 inserted Hammer"])
            let history = try db.read { try $0.history(ofObjectAt: hammer.index) }   // newest first
            let earlierPrices = try history.compactMap { try $0.value(as: Product.self)?.price }
            #expect(earlierPrices == [19, 24])
            let lastSeen: UInt64 = 1
            let since = try db.read { try $0.changesets(after: lastSeen) }   // nil: reload everything
            #expect(since?.map(\.commit) == [2])
        }
    }

    // MARK: Transactions and damage

    @Test func aWriteSeesTheHistoryUpToItsOwnCommit() throws {
        try withStore(Self.withValues) { db, _ in
            let index = YapDB.Index(collection: "c", key: "k")
            try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
            try db.write { txn in
                try txn.setObject(2, forKey: "k", inCollection: "c")
                // This transaction's change is not in the log until it commits.
                #expect(try txn.history(ofObjectAt: index).map(\.commit) == [1])
                #expect(try txn.changesets(after: 0)?.count == 1)
            }
            #expect(try db.read { try $0.history(ofObjectAt: index) }.map(\.commit) == [2, 1])
        }
    }

    @Test func aDamagedLogEntryIsAClearError() throws {
        try withStore(Self.withValues) { db, _ in
            let index = YapDB.Index(collection: "c", key: "k")
            for i in 0..<3 { try db.write { try $0.setObject(i, forKey: "k", inCollection: "c") } }
            let good = try #require(try logEntry(db, 2))
            var badCode = good
            // The change code of "k" follows its key in the `changes` map: fixstr "k" (a1 6b), then 02.
            let codeAt = try #require((0..<badCode.count - 2).first { badCode[$0] == 0xa1 && badCode[$0 + 1] == 0x6b && badCode[$0 + 2] == 0x02 })
            badCode[codeAt + 2] = 0x09
            var newer = good
            let versionAt = try #require((0..<newer.count - 7).first { newer[$0..<$0 + 7].elementsEqual("version".utf8) })
            newer[versionAt + 7] = 0x03  // entry versions 1 and 2 are known
            let damaged: [[UInt8]] = [[], Array("not msgpack".utf8), [0x80], Array(good.dropLast(3)), good + [0xc0], badCode, newer]
            for bytes in damaged {
                try replaceLogEntry(db, 2, with: bytes)
                try db.read { txn throws in
                    let error = #expect(throws: LarderError.self) { try txn.history(ofObjectAt: index) }
                    #expect(error?.code == .corruptValue)
                    #expect(error?.operation == "history" && error?.message.contains("commit 2") == true)
                    let fromChangesets = #expect(throws: LarderError.self) { try txn.changesets(after: 0) }
                    #expect(fromChangesets?.code == .corruptValue)
                    #expect(try txn.loggedCommits() == 1...3)
                }
            }
            try replaceLogEntry(db, 2, with: good)
            #expect(try db.read { try $0.history(ofObjectAt: index) }.count == 3)
        }
    }

    @Test func damagedEntriesNeverCrashTheHistoryReader() throws {
        try withStore(Self.withValues) { db, _ in
            try db.write { txn in
                try txn.setObject("hello", forKey: "k", inCollection: "c", metadata: [1, 2, 3])
                try txn.setObject(String(repeating: "x", count: 300), forKey: "long", inCollection: "c")
                try txn.removeAllObjects(inCollection: "gone")
                try txn.setCommitInfo("why")
            }
            try db.write { txn in
                try txn.setObject(1, forKey: "a", inCollection: "gone")
                try txn.removeAllObjects(inCollection: "gone")
            }
            let good = try #require(try logEntry(db, 1))
            let index = YapDB.Index(collection: "c", key: "k")
            let record = try #require(try good.withUnsafeBytes { try ChangeLog.record(of: index, metadata: true, commit: 1, in: $0) })
            #expect(record.change == .init(object: .inserted, metadata: .inserted) && record.recordsValues)
            #expect(record.value == [ArchiveFormat.messagePack.rawValue] + (try MessagePackEncoder().encode([1, 2, 3])))

            let seed = UInt64.random(in: 0...UInt64.max)
            var random = SplitMix(seed: seed)
            var mutations: [[UInt8]] = (0..<good.count).map { Array(good.prefix($0)) }
            for _ in 0..<3000 {
                var bytes = good
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
                mutations.append(bytes)
            }
            for bytes in mutations {
                for metadata in [false, true] {
                    do {
                        _ = try bytes.withUnsafeBytes { try ChangeLog.record(of: index, metadata: metadata, commit: 1, in: $0) }
                    } catch let error as LarderError {
                        #expect(error.code == .corruptValue, "seed \(seed)")
                    } catch {
                        Issue.record("not a LarderError: \(error) (seed \(seed))")
                    }
                }
            }
        }
    }
}
