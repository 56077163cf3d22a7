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

/// `stat` and `compact`, run on real stores.
@Suite("Command-line tool: stat and compact")
struct CommandLineMaintenanceTests {
    /// A store with `count` small objects, some metadata, a few values large enough for overflow
    /// pages, and a secondary index (an extension's named databases).
    private func makeStore(_ directory: TemporaryDirectory, count: Int = 300) throws -> String {
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.register(SecondaryIndex<Int, NoMetadata>(collections: ["numbers"], versionTag: "1") { _, number in TupleKey(number % 10) }, named: "byDigit")
        try db.write { txn in
            for number in 0..<count {
                try txn.setObject(number, forKey: "n\(number)", inCollection: "numbers", metadata: number % 7 == 0 ? "seven" : nil)
            }
            for large in 0..<3 {
                try txn.setObject(String(repeating: "x", count: 20_000 + large), forKey: "big\(large)", inCollection: "blobs")
            }
        }
        return path
    }

    private func rows(_ arguments: [String]) throws -> [[String: Any]] {
        try #require(try CLI.json(arguments) as? [[String: Any]])
    }

    /// `mdb_stat -a`'s blocks: the database name ("Main DB" for the main one) and its figures.
    private func mdbStat(_ path: String) throws -> [String: [String: Int]]? {
        guard let tool = ProcessTestSupport.tool("mdb_stat") else { return nil }
        let run = try ProcessTestSupport.run(tool, ["-a", path])
        #expect(run.status == 0, "\(run)")
        var blocks: [String: [String: Int]] = [:]
        var current: String?
        for line in run.standardOutput.split(separator: "\n") {
            if line.hasPrefix("Status of ") {
                current = String(line.dropFirst("Status of ".count))
                blocks[current!] = [:]
            } else if let current, let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].trimmingCharacters(in: .whitespaces)
                if let value = Int(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)) { blocks[current]![name] = value }
            }
        }
        return blocks
    }

    @Test func statGivesTheFiguresMdbStatGivesForEveryDatabase() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let trees = try rows(["stat", path, "--format", "json"])
        let names = trees.compactMap { $0["database"] as? String }
        #expect(names.first == "(main)")
        for expected in ["objects", "metadata", "larder", "log"] { #expect(names.contains(expected)) }
        #expect(!names.contains("collections"))  // from store format 6 the counts are records of the main database
        #expect(names.allSatisfy { !$0.utf8.contains(0) })  // and those records are no database's
        #expect(names.contains { $0.hasPrefix("x.byDigit.") })
        let objects = try #require(trees.first { $0["database"] as? String == "objects" })
        #expect(objects["entries"] as? Int == 303)
        #expect((objects["overflowPages"] as? Int ?? 0) >= 3 * 5, "three 20 kB values take at least five 4 kB pages each")
        #expect(objects["pages"] as? Int == (objects["branchPages"] as? Int ?? 0) + (objects["leafPages"] as? Int ?? 0) + (objects["overflowPages"] as? Int ?? 0))
        #expect(trees.first { $0["database"] as? String == "metadata" }?["entries"] as? Int == 43)
        if let reference = try mdbStat(path) {
            #expect(reference.count == trees.count, "mdb_stat lists \(reference.keys.sorted())")
            for tree in trees {
                let name = tree["database"] as? String == "(main)" ? "Main DB" : tree["database"] as? String ?? ""
                let figures = try #require(reference[name], "mdb_stat has no \(name)")
                #expect(figures["Entries"] == tree["entries"] as? Int, "\(name)")
                #expect(figures["Tree depth"] == tree["depth"] as? Int, "\(name)")
                #expect(figures["Branch pages"] == tree["branchPages"] as? Int, "\(name)")
                #expect(figures["Leaf pages"] == tree["leafPages"] as? Int, "\(name)")
                #expect(figures["Overflow pages"] == tree["overflowPages"] as? Int, "\(name)")
            }
        } else {
            let statistics = try Database(path: path).statistics()
            #expect(objects["entries"] as? Int == statistics.objectCount)
        }
        let text = try CLI.succeed(["stat", path])
        #expect(text.hasPrefix("Status of Main DB\n  Tree depth: 1\n"))
        #expect(text.contains("Status of \"objects\"\n"))
        let csv = try CLI.succeed(["stat", path, "--format", "csv"]).split(separator: "\n")
        #expect(csv.first == "database,entries,depth,branchPages,leafPages,overflowPages,pages")
        #expect(csv.count == trees.count + 1)
    }

    @Test func compactShrinksTheFileAndKeepsEveryByte() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let before: [String: [[UInt8]: [UInt8]]]
        do {
            let db = try Database(path: path)
            try db.write { txn in
                for number in 0..<500 { try txn.setObject(String(repeating: "v", count: 2000), forKey: "v\(number)", inCollection: "values") }
            }
            try db.write { txn in try txn.removeAllObjects(inCollection: "values") }
            try db.write { txn in
                for number in 0..<250 { _ = try txn.removeObject(forKey: "n\(number)", inCollection: "numbers") }
            }
            before = try CLI.storedBytes(db)
        }
        let log = try CLI.succeed(["log", path, "--format", "jsonl"])
        let sizeBefore = try #require(ProcessTestSupport.fileSize(path + "/data.mdb"))
        let summary = try #require(try CLI.json(["compact", path, "--json"]) as? [String: Any])
        let sizeAfter = try #require(ProcessTestSupport.fileSize(path + "/data.mdb"))
        #expect(summary["bytesBefore"] as? Int == sizeBefore && summary["bytesAfter"] as? Int == sizeAfter)
        #expect(sizeAfter < sizeBefore / 2, "\(sizeBefore) -> \(sizeAfter) bytes")
        #expect(summary["objects"] as? Int == 53)
        let db = try Database(path: path)
        #expect(try CLI.storedBytes(db) == before)
        #expect(try db.checkStructure().isConsistent)
        #expect(try db.read { try $0.object(forKey: "n299", inCollection: "numbers", as: Int.self) } == 299)
        #expect(try CLI.succeed(["log", path, "--format", "jsonl"]) == log)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["store"], "no copy is left beside the store")
        try db.write { txn in try txn.setObject(1, forKey: "after", inCollection: "numbers") }
        #expect(try CLI.succeed(["get", path, "numbers", "after"]) == "1\n")
    }

    @Test func aCopyLeftByAKilledCompactIsReportedAndRemovedByTheNextButALiveOnesIsKept() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        // A process that has ended: its number is free (the kernel reuses numbers only after
        // it has gone round them all).
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let deadCopy = path + ".compacting-\(ended.processIdentifier)"
        let liveCopy = path + ".compacting-\(getpid())"
        for copy in [deadCopy, liveCopy] {
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
            try FileManager.default.copyItem(atPath: path + "/data.mdb", toPath: copy + "/data.mdb")
        }
        defer { try? FileManager.default.removeItem(atPath: liveCopy) }

        let info = try CLI.succeed(["info", path])
        #expect(info.contains("compact copy: \(deadCopy)") && info.contains("ended without finishing"), "\(info)")
        #expect(info.contains("compact copy: \(liveCopy)") && info.contains("still running"), "\(info)")
        let check = try CLI.succeed(["check", path])
        #expect(check.contains("compact copy: \(deadCopy)"), "\(check)")
        let leftovers = try #require((try CLI.json(["info", path, "--json"]) as? [String: Any])?["compactLeftovers"] as? [[String: Any]])
        #expect(Set(leftovers.compactMap { $0["path"] as? String }) == [deadCopy, liveCopy])

        let compacted = try CLI.succeed(["compact", path])
        #expect(compacted.contains("removed \(deadCopy)"), "\(compacted)")
        #expect(!FileManager.default.fileExists(atPath: deadCopy), "the dead process's copy is still there")
        #expect(FileManager.default.fileExists(atPath: liveCopy + "/data.mdb"), "a live process's copy was removed")
        #expect(try CLI.succeed(["info", path]).contains("compact copy: \(deadCopy)") == false)
    }

    @Test func compactWorksOnASingleFileStore() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store.larder")
        do {
            var configuration = Database.Configuration()
            configuration.singleFile = true
            let db = try Database(path: path, configuration: configuration)
            try db.write { txn in for number in 0..<2000 { try txn.setObject(number, forKey: "n\(number)", inCollection: "numbers") } }
            try db.write { txn in try txn.removeAllObjects(inCollection: "numbers") }
            try db.write { txn in try txn.setObject("kept", forKey: "k", inCollection: "c") }
        }
        let sizeBefore = try #require(ProcessTestSupport.fileSize(path))
        let text = try CLI.succeed(["compact", path])
        #expect(text.hasPrefix("compacted \(path): "))
        #expect(try #require(ProcessTestSupport.fileSize(path)) < sizeBefore)
        #expect(try CLI.succeed(["get", path, "c", "k"]) == "\"kept\"\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["store.larder", "store.larder-lock"])
    }

    @Test func compactRefusesWhileAnotherProcessHasTheStoreOpen() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let holder = try BackgroundHelper(helper, ["hold-read", path])
        defer { holder.kill() }
        #expect(holder.waitForLine("reading"))
        let data = try #require(FileManager.default.contents(atPath: path + "/data.mdb"))
        let message = try CLI.fail(["compact", path], status: CLI.Status.storeError)
        #expect(message.contains("another process has \(path) open"))
        #expect(FileManager.default.contents(atPath: path + "/data.mdb") == data, "the store is left as it was")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["store"])
        holder.kill()
        try CLI.succeed(["compact", path])
    }

    @Test func compactRefusesWhileThisTestProcessHasTheStoreOpen() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let db = try Database(path: path)  // open, but neither reading nor writing
        let message = try CLI.fail(["compact", path], status: CLI.Status.storeError)
        #expect(message.contains("another process has"))
        #expect(try db.read { try $0.numberOfKeys(inCollection: "numbers") } == 300)
    }

    /// Writers that open the store while compactions run, over and over: every write the tool
    /// acknowledged is in the store afterwards. A writer that loses the race gets an error (the
    /// store is being compacted, or was replaced while it opened), never a silent loss.
    /// `LARDER_FULL=1` runs ten times as many writes.
    @Test func writersRacingCompactionsLoseNoAcknowledgedWrite() throws {
        let writes = ProcessInfo.processInfo.environment["LARDER_FULL"] == "1" ? 400 : 40
        let directory = TemporaryDirectory()
        let path = try makeStore(directory, count: 50)
        let writer = try StreamingProcess("/bin/sh", ["-c", """
            i=0
            while [ $i -lt \(writes) ]; do
                i=$((i + 1))
                if "$0" put "$1" racing "k$i" "$i" 2>/dev/null; then echo "ok $i"; else echo "failed $i"; fi
            done
            echo done
            """, try CLI.executable(), path])
        var compacted = 0
        var refused = 0
        while !writer.standardOutput.contains("done\n") {
            let run = try CLI.run(["compact", path])
            if run.status == 0 { compacted += 1 } else { refused += 1 }
            #expect(run.status == 0 || run.status == CLI.Status.storeError, "\(run)")
        }
        let lines = writer.standardOutput.split(separator: "\n")
        let acknowledged = lines.filter { $0.hasPrefix("ok ") }.map { String($0.dropFirst(3)) }
        let db = try Database(path: path)
        let stored = try db.read { try $0.keys(inCollection: "racing") }
        for number in acknowledged {
            #expect(try db.read { try $0.object(forKey: "k" + number, inCollection: "racing", as: Int.self) } == Int(number), "acknowledged write k\(number) is missing")
        }
        #expect(stored.count == acknowledged.count, "only acknowledged writes are stored")
        #expect(try db.checkStructure().isConsistent)
        #expect(compacted > 0, "no compaction succeeded (\(refused) refused)")
        print("compact race: \(writes) writes, \(acknowledged.count) acknowledged, \(compacted) compactions, \(refused) refused")
    }
}
