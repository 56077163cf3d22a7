import Foundation
import Testing
@testable import Larder

/// `--format` on the reading commands, `get --raw`, `put --format`, `import --dry-run`, the
/// progress bar's rate and time left, and the shell completion scripts.
@Suite("Command-line tool: formats, raw values, dry runs and completions")
struct CommandLineFormatTests {
    struct Item: Codable, Equatable {
        var name: String
        var count: Int
    }

    private func makeStore(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { txn in
            try txn.setObject(Item(name: "cup, blue", count: 2), forKey: "a", inCollection: "items", metadata: ["note": "said \"hi\""])
            try txn.setObject(Item(name: "pen", count: 5), forKey: "b", inCollection: "items")
            try txn.setObject(1, forKey: "x", inCollection: "other")
        }
        return path
    }

    /// Runs `command` with `/bin/sh -c`, with `LARDER` set to the tool, and returns the bytes
    /// written to `file`.
    private func shell(_ command: String, file: String) throws -> [UInt8] {
        let run = try ProcessTestSupport.run("/bin/sh", ["-c", "LARDER='\(try CLI.executable())'; " + command])
        #expect(run.status == 0, "\(run)")
        return [UInt8](try #require(FileManager.default.contents(atPath: file)))
    }

    @Test func readingCommandsPrintEveryFormat() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        #expect(try CLI.succeed(["keys", path, "items", "--format", "jsonl"]) == "{\"key\":\"a\"}\n{\"key\":\"b\"}\n")
        #expect(try CLI.succeed(["keys", path, "items", "--format", "csv"]) == "key\na\nb\n")
        #expect(try CLI.succeed(["keys", path, "items", "--format", "json"]) == "[\"a\",\"b\"]\n")
        #expect(try CLI.succeed(["collections", path, "--format", "table"]) == "name   count\nitems  2\nother  1\n")
        #expect(try CLI.succeed(["collections", path, "--format", "csv"]) == "name,count\nitems,2\nother,1\n")
        #expect(try CLI.succeed(["collections", path, "--format", "jsonl"]) == "{\"name\":\"items\",\"count\":2}\n{\"name\":\"other\",\"count\":1}\n")
        let csv = try CLI.succeed(["get", path, "items", "a", "--format", "csv"])
        #expect(csv == #"""
            collection,key,format,object,metadataFormat,metadata
            items,a,messagePack,"{""name"":""cup, blue"",""count"":2}",messagePack,"{""note"":""said \""hi\""""}"

            """#)
        let object = try #require(try CLI.json(["get", path, "items", "b", "--format", "json"]) as? [String: Any])
        #expect(object["key"] as? String == "b" && (object["object"] as? [String: Any])?["count"] as? Int == 5)
        #expect(try CLI.succeed(["get", path, "items", "b", "--format", "jsonl", "--pretty"]).split(separator: "\n").count == 1)
        // A table shows the value as field/value rows, the metadata's fields after it.
        #expect(try CLI.succeed(["get", path, "items", "a", "--format", "table"]) == """
            field          value
            name           cup, blue
            count          2
            metadata.note  said "hi"

            """)
        try CLI.fail(["keys", path, "items", "--format", "xml"], status: CLI.Status.usage)
    }

    /// `scan` prints a collection's values as a table: a column per field (all of them, or those
    /// `--fields` names), an empty cell for a missing one, a `value` column for a value that is
    /// not a map; the other formats carry the same rows.
    @Test func scanPrintsValuesAsATable() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        try CLI.succeed(["put", path, "items", "c", #"{"name": "ink", "colour": "blue"}"#])
        #expect(try CLI.succeed(["scan", path, "items"]) == """
            key  name       count  colour
            a    cup, blue  2
            b    pen        5
            c    ink               blue

            """)
        #expect(try CLI.succeed(["scan", path, "items", "--fields", "count,name", "--limit", "2", "--format", "csv"]) == "key,count,name\na,2,\"cup, blue\"\nb,5,pen\n")
        #expect(try CLI.succeed(["scan", path, "other", "--format", "jsonl"]) == #"{"key":"x","value":1}"# + "\n")
        #expect(try CLI.fail(["scan", path, "itemz"], status: CLI.Status.notFound).contains(#"did you mean "items"?"#))
        try CLI.fail(["scan", path, "items", "--fields", ","], status: CLI.Status.usage)

        // Field names are told apart by their bytes: "é" composed and decomposed are two columns
        // (Swift's `==` calls them equal, and one column would have shown one value as the other's).
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        try CLI.succeed(["put", path, "menu", "m1", "{\"\(composed)\": 1, \"\(decomposed)\": 2}"])
        #expect(try CLI.succeed(["scan", path, "menu", "--format", "csv"]) == "key,\(composed),\(decomposed)\nm1,1,2\n")
        #expect(try CLI.succeed(["scan", path, "menu", "--fields", decomposed, "--format", "csv"]) == "key,\(decomposed)\nm1,2\n")
    }

    @Test func getRawWritesTheStoredBytesAndPutFormatReadsThemBack() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let stored = try #require(try Database(path: path).read { try $0.storedObject(forKey: "a", inCollection: "items") })
        let raw = try shell(#"$LARDER get "\#(path)" items a --raw > "\#(directory.file("a.bin"))""#, file: directory.file("a.bin"))
        #expect(raw == stored.bytes)
        let metadata = try shell(#"$LARDER get "\#(path)" items a --raw --metadata > "\#(directory.file("m.bin"))""#, file: directory.file("m.bin"))
        #expect(metadata == (try Database(path: path).read { try $0.storedMetadata(forKey: "a", inCollection: "items") })?.bytes)
        // The bytes go back in unchanged, as MessagePack, and read as the same Codable value.
        _ = try shell(#"$LARDER get "\#(path)" items a --raw | $LARDER put "\#(path)" items copy --format messagepack && $LARDER get "\#(path)" items copy --raw > "\#(directory.file("c.bin"))""#, file: directory.file("c.bin"))
        let db = try Database(path: path)
        #expect(try db.read { try $0.object(forKey: "copy", inCollection: "items", as: Item.self) } == Item(name: "cup, blue", count: 2))
        #expect(try db.read { try $0.storedObject(forKey: "copy", inCollection: "items") }?.bytes == stored.bytes)
        // Raw bytes are stored in the raw format, byte for byte.
        try CLI.succeed(["put", path, "blobs", "r", "--format", "raw"], input: "not JSON \u{1}")
        let blob = try #require(try db.read { try $0.storedObject(forKey: "r", inCollection: "blobs") })
        #expect(blob.format == .raw && blob.bytes == Array("not JSON \u{1}".utf8))
        // Bytes that are not one MessagePack value are refused, and nothing is stored.
        let message = try CLI.fail(["put", path, "items", "bad", "--format", "messagepack"], status: CLI.Status.badInput, input: "\u{C1}")
        #expect(message.contains("not one MessagePack value"))
        #expect(try db.read { try $0.storedObject(forKey: "bad", inCollection: "items") } == nil)
        try CLI.fail(["get", path, "items", "a", "--raw", "--json"], status: CLI.Status.usage)
    }

    @Test func importDryRunChecksAndCountsButWritesNothing() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let db = try Database(path: path)
        let before = try CLI.storedBytes(db)
        let commitBefore = try db.read { $0.lastCommit }
        let lines = (0..<25).map { #"{"collection": "new", "key": "k\#($0)", "object": {"n": \#($0)}}"# }.joined(separator: "\n") + "\n"
        let summary = try #require(try CLI.json(["import", path, "--dry-run", "--json", "--chunk-size", "10"], input: lines) as? [String: Any])
        #expect(summary["records"] as? Int == 25 && summary["collections"] as? Int == 1 && summary["transactions"] as? Int == 3)
        #expect(summary["dryRun"] as? Bool == true)
        #expect(try CLI.succeed(["import", path, "--dry-run"], input: lines) == "dry run: would import 25 records into 1 collection in 1 transaction; nothing was written\n")
        #expect(try CLI.storedBytes(db) == before)
        #expect(try db.read { $0.lastCommit } == commitBefore)
        // A record the store would refuse (a key too long) fails the dry run as it would fail the import.
        let tooLong = #"{"collection": "new", "key": "\#(String(repeating: "k", count: 600))", "object": 1}"# + "\n"
        let message = try CLI.fail(["import", path, "--dry-run"], status: CLI.Status.badInput, input: lines + tooLong)
        #expect(message.contains("line 26") && message.contains("dry run: nothing was written"))
        #expect(try CLI.storedBytes(db) == before)
        // With --create and nothing at the path, a dry run creates nothing.
        let missing = directory.file("missing")
        try CLI.succeed(["import", missing, "--create", "--dry-run"], input: lines)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func progressBarShowsRateAndTimeLeftOnATerminal() throws {
        let python = try #require(ProcessTestSupport.tool("python3"), "the progress bar is drawn on a terminal only: python3's pty module provides one")
        let directory = TemporaryDirectory()
        let input = directory.file("records.jsonl")
        let lines = (0..<40_000).map { #"{"collection": "c", "key": "k\#($0)", "object": {"n": \#($0), "text": "some words to make the line longer"}}"# }
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let script = """
            import os, pty, sys
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], sys.argv[1:])
            seen = b""
            while True:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
            _, status = os.waitpid(pid, 0)
            sys.stdout.buffer.write(seen)
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let run = try ProcessTestSupport.run(python, ["-c", script, try CLI.executable(), "import", directory.file("store"), input, "--create", "--chunk-size", "500"])
        #expect(run.status == 0, "\(run)")
        let frames = run.standardOutput.split(separator: "\r").map(String.init)
        #expect(frames.contains { $0.contains("importing [") && $0.contains("/s, ") && $0.hasSuffix(" left)") }, "a frame with the rate and the time left: \(frames.suffix(5))")
        #expect(run.standardOutput.contains("imported 40000 records"))
    }

    @Test func completionScriptsAreGeneratedForEveryShell() throws {
        for shell in ["bash", "zsh", "fish"] {
            let script = try CLI.succeed(["--generate-completion-script", shell])
            #expect(script.contains("compact") && script.contains("shell") && script.contains("history"), "\(shell)")
        }
        #expect(try CLI.succeed(["--generate-completion-script", "bash"]).hasPrefix("#!/bin/bash"))
    }
}
