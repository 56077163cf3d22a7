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

/// `info`, `collections`, `keys`, `get`, `readers` and `check`, run on real stores.
@Suite("Command-line tool: inspecting")
struct CommandLineInspectionTests {
    struct Tool: Codable, Sendable {
        var name: String
        var price: Double
        var count: Int
        var added: Date
    }

    struct Odd: Codable {
        var small: Float
        var notANumber: Double
        var infinite: Double
        var blob: Data
    }

    /// A store with tools (with metadata), notes, a JSON value, raw bytes and a view.
    private func makeStore(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.register(AutoView<Tool, NoMetadata>(collections: ["tools"], versionTag: "v3", grouping: { _, _ in "all" }, sorting: { _, tool in TupleKey(tool.price) }),
                        named: "toolsByPrice")
        try db.write { txn in
            let added = Date(timeIntervalSince1970: 1_700_000_000.5)
            for (index, name) in ["hammer", "saw", "chisel", "plane", "rasp"].enumerated() {
                try txn.setObject(Tool(name: name, price: Double(index) + 0.5, count: index, added: added), forKey: "t/\(name)", inCollection: "tools", metadata: ["shelf": index])
            }
            try txn.setObject("buy nails", forKey: "n1", inCollection: "notes")
            try txn.setObject(Tool(name: "json", price: 1, count: 1, added: added), forKey: "j", inCollection: "json",
                              archiver: JSONArchiver<Tool>(), metadata: nil as Int?, metadataArchiver: MessagePackArchiver<Int>())
            try txn.setObject([UInt8]([0xde, 0xad, 0xbe, 0xef]), forKey: "r", inCollection: "raw")
            try txn.setObject(Odd(small: 0.1, notANumber: .nan, infinite: -.infinity, blob: Data([1, 2, 3])), forKey: "o", inCollection: "odd")
        }
        return path
    }

    @Test func infoShowsTheStoreAsTextAndJSON() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let text = try CLI.succeed(["info", path])
        #expect(text.contains("store:        \(path) (directory)"))
        #expect(text.contains("format:       version \(LarderVersion.storeFormat)"))
        #expect(text.contains("entries:      9 objects, 5 metadata values, 5 collections"))
        #expect(text.contains("  \"tools\"  5"))
        #expect(text.contains("  toolsByPrice  view  tag \"v3\"  collections: \"tools\""))

        let info = try #require(try CLI.json(["info", path, "--json"]) as? [String: Any])
        #expect(info["formatVersion"] as? Int == Int(LarderVersion.storeFormat))
        #expect(info["objects"] as? Int == 9 && info["metadata"] as? Int == 5)
        #expect((info["pageSize"] as? Int ?? 0) >= 4096)
        #expect((info["mapSize"] as? Int ?? 0) >= (info["usedBytes"] as? Int ?? .max))
        #expect(info["lastCommit"] as? Int == 2)  // the view's registration, then the writes
        let collections = try #require(info["collections"] as? [[String: Any]])
        #expect(collections.map { $0["name"] as? String } == ["json", "notes", "odd", "raw", "tools"])
        #expect(collections.map { $0["count"] as? Int } == [1, 1, 1, 1, 5])
        let extensions = try #require(info["extensions"] as? [[String: Any]])
        #expect(extensions.count == 1)
        #expect(extensions.first?["name"] as? String == "toolsByPrice")
        #expect(extensions.first?["kind"] as? String == "view")
        #expect(extensions.first?["versionTag"] as? String == "v3")
        #expect(extensions.first?["collections"] as? [String] == ["tools"])
        #expect(info["readers"] as? [Any] != nil)
    }

    @Test func collectionsListsNamesAndCounts() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        #expect(try CLI.succeed(["collections", path]) == "json\t1\nnotes\t1\nodd\t1\nraw\t1\ntools\t5\n")
        let listed = try #require(try CLI.json(["collections", path, "--json"]) as? [[String: Any]])
        #expect(listed.count == 5)
        #expect(listed.last?["name"] as? String == "tools" && listed.last?["count"] as? Int == 5)
        let empty = directory.file("empty")
        _ = try Database(path: empty)
        #expect(try CLI.succeed(["collections", empty]).isEmpty)
        #expect(try CLI.json(["collections", empty, "--json"]) as? [Any] != nil)
    }

    @Test func keysTakeRangesLimitsAndOrder() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        #expect(try CLI.succeed(["keys", path, "tools"]) == "t/chisel\nt/hammer\nt/plane\nt/rasp\nt/saw\n")
        #expect(try CLI.succeed(["keys", path, "tools", "--reverse", "--limit", "2"]) == "t/saw\nt/rasp\n")
        #expect(try CLI.succeed(["keys", path, "tools", "--prefix", "t/s"]) == "t/saw\n")
        #expect(try CLI.succeed(["keys", path, "tools", "--from", "t/h", "--to", "t/r"]) == "t/hammer\nt/plane\n")
        #expect(try CLI.succeed(["keys", path, "tools", "--prefix", "x"]).isEmpty)
        #expect(try CLI.json(["keys", path, "tools", "--json", "--limit", "3"]) as? [String] == ["t/chisel", "t/hammer", "t/plane"])
        #expect(try CLI.json(["keys", path, "tools", "--json", "--prefix", "none"]) as? [String] == [])
        let missing = try CLI.fail(["keys", path, "nothing"], status: CLI.Status.notFound)
        #expect(missing.contains("no collection \"nothing\""))
        try CLI.fail(["keys", path, "tools", "--from", String(repeating: "k", count: 600)], status: CLI.Status.badInput)
    }

    @Test func getPrintsEachFormat() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        #expect(try CLI.succeed(["get", path, "tools", "t/saw"]) == #"{"name":"saw","price":1.5,"count":1,"added":"2023-11-14T22:13:20.5Z"}"# + "\n")
        #expect(try CLI.succeed(["get", path, "tools", "t/saw", "--metadata"]) == #"{"shelf":1}"# + "\n")
        #expect(try CLI.succeed(["get", path, "notes", "n1"]) == "\"buy nails\"\n")
        #expect(try CLI.succeed(["get", path, "raw", "r"]) == "deadbeef\n")
        #expect(try CLI.succeed(["get", path, "notes", "n1", "--hex"]) == "a9627579206e61696c73\n")
        let json = try #require(try CLI.json(["get", path, "json", "j"]) as? [String: Any])
        #expect(json["name"] as? String == "json" && json["count"] as? Int == 1)
        let pretty = try CLI.succeed(["get", path, "tools", "t/saw", "--pretty"])
        #expect(pretty.hasPrefix("{\n  \"name\": \"saw\",\n"))
    }

    @Test func getShowsMessagePackTypesThatJSONLacksByTheDocumentedConventions() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let odd = try #require(try CLI.json(["get", path, "odd", "o"]) as? [String: Any])
        #expect((odd["small"] as? NSNumber)?.doubleValue == 0.1)
        #expect(odd["notANumber"] as? String == "NaN")
        #expect(odd["infinite"] as? String == "-Infinity")
        #expect(odd["blob"] as? String == "AQID")  // base64
        let db = try Database(path: path)
        try CLI.plant(db, collection: "odd", key: "map", value: [0x01, 0x82, 0x07, 0xa5] + Array("seven".utf8) + [0xa1, 0x78, 0xc0])
        let byNumber = try #require(try CLI.json(["get", path, "odd", "map"]) as? [String: Any])
        let pairs = try #require(byNumber["$map"] as? [[Any]])
        #expect(pairs.count == 2 && pairs[0][0] as? Int == 7 && pairs[0][1] as? String == "seven")
        #expect(pairs[1][0] as? String == "x" && pairs[1][1] is NSNull)
        try CLI.plant(db, collection: "odd", key: "ext", value: [0x01, 0xd5, 0x05, 0x0a, 0x0b])
        let ext = try #require(try CLI.json(["get", path, "odd", "ext"]) as? [String: Any])
        #expect(ext["$ext"] as? Int == 5 && ext["base64"] as? String == "Cgs=")
        try CLI.plant(db, collection: "odd", key: "custom", value: [0x41, 0x01, 0x02])
        #expect(try CLI.succeed(["get", path, "odd", "custom"]) == "0102\n")
    }

    @Test func getWithJSONHoldsFormatsObjectAndMetadata() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let saw = try #require(try CLI.json(["get", path, "tools", "t/saw", "--json"]) as? [String: Any])
        #expect(saw["collection"] as? String == "tools" && saw["key"] as? String == "t/saw")
        #expect(saw["format"] as? String == "messagePack" && saw["metadataFormat"] as? String == "messagePack")
        #expect((saw["object"] as? [String: Any])?["name"] as? String == "saw")
        #expect((saw["metadata"] as? [String: Any])?["shelf"] as? Int == 1)
        let raw = try #require(try CLI.json(["get", path, "raw", "r", "--json"]) as? [String: Any])
        #expect(raw["format"] as? String == "raw" && raw["object"] as? String == "deadbeef" && raw["metadata"] == nil)
        let json = try #require(try CLI.json(["get", path, "json", "j", "--json"]) as? [String: Any])
        #expect(json["format"] as? String == "json")
    }

    @Test func getReportsWhatIsMissingOrDamaged() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let missing = try CLI.fail(["get", path, "tools", "t/drill"], status: CLI.Status.notFound)
        #expect(missing == "larder: no object at collection \"tools\", key \"t/drill\"\n")
        try CLI.fail(["get", path, "nowhere", "k"], status: CLI.Status.notFound)
        try CLI.fail(["get", path, "notes", "n1", "--metadata"], status: CLI.Status.notFound)
        try CLI.fail(["get", path, "tools", ""], status: CLI.Status.badInput)
        try CLI.fail(["get", path, "tools", String(repeating: "k", count: 600)], status: CLI.Status.badInput)
        let db = try Database(path: path)
        try CLI.plant(db, collection: "notes", key: "broken", value: [0x01, 0x92, 0x01])
        let broken = try CLI.fail(["get", path, "notes", "broken"], status: CLI.Status.storeError)
        #expect(broken.contains("does not read as MessagePack"))
        #expect(try CLI.succeed(["get", path, "notes", "broken", "--hex"]) == "9201\n")
    }

    @Test func readersListOtherProcessesWithTheirAge() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let db = try Database(path: path)
        let screen = db.newConnection()
        try screen.pinSnapshot()
        for i in 0..<3 { try db.write { try $0.setObject(i, forKey: "n", inCollection: "counter") } }
        let listed = try #require(try CLI.json(["readers", path, "--json"]) as? [String: Any])
        let readers = try #require(listed["readers"] as? [[String: Any]])
        let mine = readers.filter { $0["pid"] as? Int == Int(getpid()) && !($0["snapshot"] is NSNull) }
        #expect(mine.count == 1)
        #expect(mine.first?["transactionsBehind"] as? Int == 3)
        #expect(mine.first?["alive"] as? Bool == true)
        let text = try CLI.succeed(["readers", path])
        #expect(text.hasPrefix("pid\tthread\tsnapshot\tbehind\tprocess\n"))
        #expect(text.contains("\(getpid())\t") && text.contains("\t3\talive"))
        let info = try CLI.succeed(["info", path])
        #expect(info.contains("pid \(getpid()) 3 transactions behind"))
        screen.unpinSnapshot()
    }

    @Test func readersClearStaleSlotsOfDeadProcesses() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: helper)
        process.arguments = ["hold-read", path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var text = ""
        while !text.contains("reading") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        let pid = Int(process.processIdentifier)
        let live = try #require(try CLI.json(["readers", path, "--json"]) as? [String: Any])
        #expect((live["readers"] as? [[String: Any]])?.contains { $0["pid"] as? Int == pid && $0["alive"] as? Bool == true } == true)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let cleared = try #require(try CLI.json(["readers", path, "--clear-stale", "--json"]) as? [String: Any])
        #expect(cleared["cleared"] as? Int != nil)
        #expect((cleared["readers"] as? [[String: Any]])?.contains { $0["pid"] as? Int == pid } == false)
        #expect(try CLI.succeed(["readers", path, "--clear-stale"]).hasPrefix("cleared 0 stale reader slots\n"))
    }

    @Test func checkPassesAHealthyStoreAndListsUnverifiedExtensions() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let text = try CLI.succeed(["check", path])
        #expect(text.contains("checked 9 objects, 5 metadata values, the counts of 5 collections, 2 change log entries, 1 extension record"))
        #expect(text.contains("extension toolsByPrice (view) not verified: not registered"))
        #expect(text.hasSuffix("structure: consistent\n"))
        let report = try #require(try CLI.json(["check", path, "--json"]) as? [String: Any])
        #expect(report["consistent"] as? Bool == true && report["problemCount"] as? Int == 0)
        let extensions = try #require(report["extensions"] as? [[String: Any]])
        #expect(extensions.first?["name"] as? String == "toolsByPrice" && extensions.first?["verified"] as? Bool == false)
    }

    @Test func checkFailsADamagedStoreWithStatusFour() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let db = try Database(path: path)
        try CLI.plant(db, metadata: true, collection: "notes", key: "ghost", value: [0x01, 0xc0])
        try CLI.plant(db, collection: "notes", key: "odd", value: [0x09])
        let run = try CLI.run(["check", path, "--json"])
        #expect(run.status == CLI.Status.checkFailed)
        #expect(run.standardError == "larder: the check found 2 problems\n")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        #expect(report["consistent"] as? Bool == false)
        let problems = try #require(report["problems"] as? [[String: Any]])
        #expect(Set(problems.compactMap { $0["kind"] as? String }) == ["orphanMetadata", "unknownFormat"])
        #expect(problems.contains { $0["collection"] as? String == "notes" && $0["key"] as? String == "ghost" })
        let plain = try CLI.run(["check", path])
        #expect(plain.status == CLI.Status.checkFailed)
        #expect(plain.standardOutput.contains("problem: orphanMetadata: a metadata value has no object beside it"))
    }
}
