import Foundation
import Testing
@testable import Larder

/// `export`, `import` and `backup`, run on real stores: byte-identical round trips, the record
/// format, chunked imports, bad lines, and copies taken while writers run.
@Suite("Command-line tool: export, import, backup")
struct CommandLineTransferTests {
    struct Reading: Codable {
        var sensor: String
        var value: Double
        var small: Float
        var at: Date
        var raw: Data
        var flags: [Int: Bool]
    }

    struct Person: Codable {
        var name: String
        var age: Int
    }

    /// A store with every kind of value the export must carry exactly.
    private func makeVariedStore(_ path: String) throws -> Database {
        let db = try Database(path: path)
        try db.write { txn in
            for i in 0..<30 {
                try txn.setObject(Person(name: "p\(i) \"quoted\"\n\t✓", age: i - 10), forKey: "person/\(i)", inCollection: "people", metadata: ["visits": i])
            }
            try txn.setObject(Reading(sensor: "s", value: .nan, small: 0.1, at: Date(timeIntervalSince1970: 1_234_567_890.123), raw: Data([0, 255]), flags: [1: true]),
                              forKey: "r1", inCollection: "readings", metadata: Date(timeIntervalSince1970: 0))
            try txn.setObject(Reading(sensor: "t", value: .infinity, small: -0, at: Date(timeIntervalSince1970: -1), raw: Data(), flags: [:]),
                              forKey: "r2", inCollection: "readings")
            try txn.setObject(Person(name: "json", age: 1), forKey: "j", inCollection: "json", archiver: JSONArchiver<Person>(),
                              metadata: Person(name: "meta", age: 2), metadataArchiver: JSONArchiver<Person>())
            try txn.setObject([UInt8](0...255), forKey: "bytes", inCollection: "raw")
            try txn.setObject(["$bytes": "not a wrapper"], forKey: "lookalike", inCollection: "tricky")
            try txn.setObject(["$timestamp": "2020-01-01T00:00:00Z"], forKey: "timestamp-lookalike", inCollection: "tricky")
            try txn.setObject(String(repeating: "long ", count: 20_000), forKey: "long", inCollection: "tricky")
            try txn.setObject(Int64.min, forKey: "min", inCollection: "tricky")
            try txn.setObject(UInt64.max, forKey: "max", inCollection: "tricky")
            try txn.setObject("in the empty collection", forKey: "k", inCollection: "")
            try txn.setObject("ünïcödé", forKey: "ключ 🔑", inCollection: "ünï")
        }
        try CLI.plant(db, collection: "tricky", key: "bad-utf8", value: [0x01, 0xa2, 0xff, 0xfe])
        try CLI.plant(db, collection: "tricky", key: "ext", value: [0x01, 0xd4, 0x05, 0x01])
        try CLI.plant(db, collection: "tricky", key: "float32-map-keys", value: [0x01, 0x81, 0xca, 0x3f, 0x80, 0x00, 0x00, 0xc0])
        try CLI.plant(db, collection: "tricky", key: "non-minimal-int", value: [0x01, 0xd3, 0, 0, 0, 0, 0, 0, 0, 5])
        try CLI.plant(db, collection: "tricky", key: "pretty-json", value: [0x02] + Array("{\n  \"a\" : 1\n}".utf8))
        try CLI.plant(db, collection: "tricky", key: "compact-json", value: [0x02] + Array(#"{"a":1.50,"b":"\/"}"#.utf8))
        try CLI.plant(db, collection: "tricky", key: "custom", value: [0x40, 9, 8, 7])
        try CLI.plant(db, metadata: true, collection: "tricky", key: "custom", value: [0x03])
        return db
    }

    @Test func exportThenImportRestoresEveryStoredByte() throws {
        let directory = TemporaryDirectory()
        let source = try makeVariedStore(directory.file("source"))
        let exported = directory.file("export.jsonl")
        let run = try CLI.run(["export", directory.file("source"), "--output", exported])
        #expect(run.status == 0 && run.standardOutput.isEmpty && run.standardError.isEmpty, "\(run.standardError)")
        let imported = try CLI.succeed(["import", directory.file("copy"), exported, "--create", "--chunk-size", "7"])
        #expect(imported == "imported 48 records into 7 collections in 7 transactions\n")
        let copy = try Database(path: directory.file("copy"))
        #expect(try CLI.storedBytes(copy) == CLI.storedBytes(source))
        #expect(try copy.checkStructure().isConsistent)
        // And again through a pipe, into a store that already holds other values.
        try CLI.succeed(["put", directory.file("copy"), "people", "person/0", "0"])
        let text = try CLI.succeed(["export", directory.file("source")])
        try CLI.succeed(["import", directory.file("copy")], input: text)
        #expect(try CLI.storedBytes(copy) == CLI.storedBytes(source))
    }

    @Test func exportWritesReadableRecordsAndWrapsOnlyWhatJSONCannotCarry() throws {
        let directory = TemporaryDirectory()
        _ = try makeVariedStore(directory.file("source"))
        let lines = try CLI.succeed(["export", directory.file("source")]).split(separator: "\n")
        #expect(lines.count == 48)
        var records: [String: [String: Any]] = [:]
        for line in lines {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            records["\(record["collection"] as? String ?? "?")/\(record["key"] as? String ?? "?")"] = record
        }
        let person = try #require(records["people/person/3"])
        #expect(person["format"] as? String == "messagePack")
        #expect((person["object"] as? [String: Any])?["age"] as? Int == -7)
        #expect((person["metadata"] as? [String: Any])?["visits"] as? Int == 3)
        #expect(person["metadataFormat"] as? String == "messagePack")
        let reading = try #require(records["readings/r1"]?["metadata"] as? [String: Any])
        #expect(reading["$timestamp"] as? String == "1970-01-01T00:00:00Z")
        #expect(records["readings/r1"]?["object"].flatMap { ($0 as? [String: Any])?["$bytes"] } != nil)  // NaN, float32, bin
        #expect(records["json/j"]?["format"] as? String == "json")
        #expect((records["json/j"]?["object"] as? [String: Any])?["name"] as? String == "json")
        #expect(records["raw/bytes"]?["format"] as? String == "raw")
        #expect((records["raw/bytes"]?["object"] as? [String: Any])?["$bytes"] as? String == Data([UInt8](0...255)).base64EncodedString())
        #expect((records["tricky/lookalike"]?["object"] as? [String: Any])?["$bytes"] != nil)
        #expect((records["tricky/timestamp-lookalike"]?["object"] as? [String: Any])?["$bytes"] != nil)
        #expect((records["tricky/max"]?["object"] as? NSNumber)?.uint64Value == UInt64.max)
        #expect(records["tricky/custom"]?["format"] as? Int == 0x40)
        #expect(records["/k"]?["object"] as? String == "in the empty collection")
        #expect(records["ünï/ключ 🔑"]?["object"] as? String == "ünïcödé")
        #expect(records["tricky/compact-json"]?["object"] != nil)
        #expect(lines.contains { $0.contains(#""object":{"a":1.50,"b":"\/"}"#) })  // JSON values as stored

        let chosen = try CLI.succeed(["export", directory.file("source"), "readings", "json"]).split(separator: "\n")
        #expect(chosen.count == 3)
        #expect(chosen.allSatisfy { $0.hasPrefix(#"{"collection":"readings""#) || $0.hasPrefix(#"{"collection":"json""#) })
        try CLI.fail(["export", directory.file("source"), "readings", "nothing"], status: CLI.Status.notFound)
    }

    @Test func importTakesHandWrittenRecords() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        _ = try Database(path: path)
        let input = """
            {"collection": "people", "key": "ann", "object": {"name": "Ann", "age": 40}, "metadata": {"$timestamp": "2024-05-01T08:00:00Z"}}

            {"collection": "notes", "key": "n", "format": "json", "object": {"text": "as written" }}\r
            {"collection": "blobs", "key": "b", "format": "raw", "object": {"$bytes": "AAEC"}}
            """
        let summary = try #require(try CLI.json(["import", path, "--json"], input: input) as? [String: Any])
        #expect(summary["records"] as? Int == 3 && summary["collections"] as? Int == 3 && summary["transactions"] as? Int == 1)
        let db = try Database(path: path)
        try db.read { txn throws in
            #expect(try txn.object(forKey: "ann", inCollection: "people", as: Person.self)?.age == 40)
            #expect(try txn.metadata(forKey: "ann", inCollection: "people", as: Date.self) == Date(timeIntervalSince1970: 1_714_550_400))
            #expect(try txn.storedObject(forKey: "n", inCollection: "notes")?.bytes == Array(#"{"text": "as written" }"#.utf8))
            #expect(try txn.storedObject(forKey: "b", inCollection: "blobs")?.format == .raw)
            #expect(try txn.object(forKey: "b", inCollection: "blobs", as: [UInt8].self) == [0, 1, 2])
        }
    }

    @Test func aBadLineStopsTheImportAfterTheChunksBeforeIt() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        _ = try Database(path: path)
        let good = (0..<5).map { #"{"collection": "c", "key": "k\#($0)", "object": \#($0)}"# }
        func attempt(_ bad: String, expecting fragment: String, status: Int32 = CLI.Status.badInput) throws {
            let message = try CLI.fail(["import", path, "--chunk-size", "2"], status: status, input: (good + [bad] + good).joined(separator: "\n"))
            #expect(message.contains("line 6: "), "\(message)")
            #expect(message.contains(fragment), "\(message)")
        }
        try attempt(#"{"collection": "c", "key": "x", "object": 1,}"#, expecting: "the line is not JSON")
        try attempt(#"[1]"#, expecting: "not a JSON object")
        try attempt(#"{"collection": "c", "object": 1}"#, expecting: "no \"key\" string")
        try attempt(#"{"collection": "c", "key": "x"}"#, expecting: "no \"object\"")
        try attempt(#"{"collection": "c", "key": "x", "object": 1, "metdata": 2}"#, expecting: "unknown member \"metdata\"")
        try attempt(#"{"collection": "c", "key": "x", "object": 1, "format": "yaml"}"#, expecting: "format is not")
        try attempt(#"{"collection": "c", "key": "x", "object": "AAEC", "format": "raw"}"#, expecting: "must be written as")
        try attempt(#"{"collection": "c", "key": "x", "object": {"$bytes": "***"}}"#, expecting: "not a base64 string")
        try attempt(#"{"collection": "c", "key": "", "object": 1}"#, expecting: "empty")
        // The first two chunks (four records) were committed; the chunk with line 6 was not.
        let db = try Database(path: path)
        #expect(try db.read { try $0.keys(inCollection: "c") } == ["k0", "k1", "k2", "k3"])
        try CLI.fail(["import", path, directory.file("no-such-file.jsonl")], status: CLI.Status.notFound)
    }

    @Test func backupCopiesWhileAWriterRunsAndChecksTheCopy() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { txn in for i in 0..<300 { try txn.setObject(Person(name: "p\(i)", age: i), forKey: "p\(i)", inCollection: "people") } }
        let stop = LockedBox(false)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { finished.signal() }
            var round = 0
            while !stop.withLock({ $0 }) {
                round += 1
                try? db.write { txn in
                    for i in 0..<20 { try txn.setObject(Person(name: "w\(round)", age: i), forKey: "w\(round % 10)-\(i)", inCollection: "writes") }
                }
            }
        }
        let destination = directory.file("backup")
        let text = try CLI.succeed(["backup", path, destination])
        let summary = try #require(try CLI.json(["backup", path, directory.file("backup2"), "--json"]) as? [String: Any])
        stop.withLock { $0 = true }
        finished.wait()
        #expect(text.hasPrefix("copied \(path) to \(destination), compacted"))
        #expect(text.hasSuffix("the copy opens and its structure is consistent\n"))
        #expect(summary["consistent"] as? Bool == true && summary["compacted"] as? Bool == true)
        #expect((summary["objects"] as? Int ?? 0) >= 300)
        let copy = try Database(path: destination)
        #expect(try copy.read { try $0.numberOfKeys(inCollection: "people") } == 300)
        #expect(try copy.checkStructure().isConsistent)
    }

    @Test func backupRefusesToOverwriteUnlessForced() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { try $0.setObject("one", forKey: "k", inCollection: "c") }
        let destination = directory.file("backup")
        try CLI.succeed(["backup", path, destination, "--no-compact"])
        try db.write { try $0.setObject("two", forKey: "k", inCollection: "c") }
        let refused = try CLI.fail(["backup", path, destination], status: CLI.Status.badInput)
        #expect(refused.contains("already holds a store; give --force"))
        #expect(try Database(path: destination).read { try $0.object(forKey: "k", inCollection: "c", as: String.self) } == "one")
        try CLI.succeed(["backup", path, destination, "--force"])
        #expect(try Database(path: destination).read { try $0.object(forKey: "k", inCollection: "c", as: String.self) } == "two")
        try CLI.fail(["backup", path, path, "--force"], status: CLI.Status.badInput)  // the store itself
        #expect(try db.read { try $0.object(forKey: "k", inCollection: "c", as: String.self) } == "two")
        let busy = directory.file("busy")
        try FileManager.default.createDirectory(atPath: busy, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: busy + "/keep.txt", contents: Data("x".utf8))
        try CLI.fail(["backup", path, busy, "--force"], status: CLI.Status.badInput)
        #expect(try FileManager.default.contentsOfDirectory(atPath: busy) == ["keep.txt"])
        let empty = directory.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try CLI.succeed(["backup", path, empty])
    }

    @Test func backupReportsADamagedCopyWithStatusFour() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { try $0.setObject("v", forKey: "k", inCollection: "c") }
        try CLI.plant(db, metadata: true, collection: "c", key: "ghost", value: [0x01, 0xc0])
        let run = try CLI.run(["backup", path, directory.file("backup")])
        #expect(run.status == CLI.Status.checkFailed)
        #expect(run.standardOutput.contains("problem: orphanMetadata"))
        #expect(run.standardError == "larder: the check of the copy found 1 problem\n")
    }
}
