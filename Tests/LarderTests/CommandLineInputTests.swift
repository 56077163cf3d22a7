import Foundation
import Testing
@testable import Larder

/// What the tool takes in and writes out at its edges: argument bytes that are not UTF-8, the
/// file `export -o` writes (permissions, links, failures), import records that `check` would
/// reject, and what an import that stops says it committed.
@Suite("Command-line tool: input and output")
struct CommandLineInputTests {
    /// Runs `script` under `/bin/sh` with `$0` the larder executable and `$1`… `arguments`, so
    /// that a test can pass bytes a Swift `String` cannot hold (`printf '\377'`) or set a umask.
    private func shell(_ script: String, _ arguments: [String] = []) throws -> ProcessTestSupport.Run {
        try ProcessTestSupport.run("/bin/sh", ["-c", script, try CLI.executable()] + arguments)
    }

    private func expectOneErrorLine(_ run: ProcessTestSupport.Run, status: Int32, containing fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == status, "status \(run.status), stderr: \(run.standardError)", sourceLocation: sourceLocation)
        #expect(run.standardOutput.isEmpty, "stdout: \(run.standardOutput)", sourceLocation: sourceLocation)
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("larder: ") && lines[0].contains(fragment), "stderr: \(run.standardError)", sourceLocation: sourceLocation)
    }

    // MARK: Arguments

    /// `CommandLine.arguments` turns bytes that are not UTF-8 into U+FFFD, so `k\xFF` and `k\xFE`
    /// would both become `k\u{FFFD}`: one key for two. Every such argument is refused, status 3.
    /// A record whose collection the store refuses is reported with its line, as other bad
    /// records are (a NUL in a collection said only "collection names may not contain NUL").
    @Test func aRecordTheStoreRefusesIsReportedWithItsLine() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        _ = try CLI.succeed(["import", path, "--create", "/dev/null"])
        let input = #"{"collection":"ok","key":"a","object":1}"# + "\n" + #"{"collection":"c\u0000d","key":"k","object":1}"# + "\n"
        let output = try CLI.fail(["import", path, "-"], status: CLI.Status.badInput, input: input)
        #expect(output.contains("line 2:") && output.contains("NUL"), "\(output)")
        #expect(try Database(path: path).read { try $0.numberOfKeys(inCollection: "ok") } == 0)
    }

    @Test func argumentsThatAreNotUTF8AreRefusedAndChangeNothing() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { try $0.setObject(1, forKey: "k\u{FFFD}", inCollection: "c\u{FFFD}") }
        let before = try CLI.storedBytes(db)
        let cases: [(String, String)] = [
            ("put", #"exec "$0" put "$1" c "$(printf 'k\377')" 2"#),
            ("put collection", #"exec "$0" put "$1" "$(printf 'c\376')" k 2"#),
            ("get", #"exec "$0" get "$1" "$(printf 'c\377')" "$(printf 'k\376')""#),
            ("delete", #"exec "$0" delete "$1" "$(printf 'c\377')" "$(printf 'k\376')""#),
            ("keys --prefix", #"exec "$0" keys "$1" "$(printf 'c\377')" --prefix "$(printf 'k\377')""#),
            ("export filter", #"exec "$0" export "$1" "$(printf 'c\377')""#),
            ("put value", #"exec "$0" put "$1" c k "$(printf '"\377"')""#),
        ]
        for (name, script) in cases {
            let run = try shell(script, [path])
            expectOneErrorLine(run, status: CLI.Status.badInput, containing: "is not UTF-8")
            #expect(run.status == CLI.Status.badInput, "\(name)")
        }
        #expect(try CLI.storedBytes(db) == before)
        // The same commands with UTF-8 arguments still work.
        #expect(try shell(#"exec "$0" get "$1" "$(printf 'c\357\277\275')" "$(printf 'k\357\277\275')""#, [path]).standardOutput == "1\n")
    }

    // MARK: export -o

    @Test func exportWritesAnOwnerOnlyFileWhateverTheUmaskAndReplacesAnExistingOne() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { try $0.setObject("v", forKey: "k", inCollection: "c") }
        let output = directory.file("out.jsonl")
        try Data("old contents\n".utf8).write(to: URL(fileURLWithPath: output))
        chmod(output, 0o644)
        let run = try shell(#"umask 022; exec "$0" export "$1" -o "$2""#, [path, output])
        #expect(run.status == CLI.Status.ok, "\(run.standardError)")
        #expect(ProcessTestSupport.permissions(output) == 0o600)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == #"{"collection":"c","key":"k","format":"messagePack","object":"v"}"# + "\n")
        let fresh = directory.file("fresh.jsonl")
        #expect(try shell(#"umask 000; exec "$0" export "$1" -o "$2""#, [path, fresh]).status == CLI.Status.ok)
        #expect(ProcessTestSupport.permissions(fresh) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["fresh.jsonl", "out.jsonl", "store"])
    }

    @Test func exportRefusesASymbolicLinkAndLeavesItsTargetAlone() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { try $0.setObject("v", forKey: "k", inCollection: "c") }
        let victim = directory.file("victim")
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        let link = directory.file("link.jsonl")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
        let message = try CLI.fail(["export", path, "-o", link], status: CLI.Status.badInput)
        #expect(message.contains("symbolic link"), "\(message)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == victim)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["link.jsonl", "store", "victim"])
    }

    /// A write that fails midway (here the file size limit: `ulimit -f`, with SIGXFSZ ignored so
    /// that write(2) fails with EFBIG instead of killing the tool) leaves no partial file, and an
    /// existing file at the path as it was.
    @Test func anExportThatFailsMidwayLeavesNoPartialFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { txn in
            for i in 0..<2000 { try txn.setObject(String(repeating: "x", count: 100), forKey: "k\(i)", inCollection: "c") }
        }
        let output = directory.file("out.jsonl")
        try Data("old contents\n".utf8).write(to: URL(fileURLWithPath: output))
        let run = try shell(#"trap '' XFSZ; ulimit -f 64; exec "$0" export "$1" -o "$2""#, [path, output])
        expectOneErrorLine(run, status: CLI.Status.storeError, containing: "cannot write \(output)")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "old contents\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["out.jsonl", "store"])
        // A failure before anything is written (no such collection) leaves nothing either.
        try CLI.fail(["export", path, "nothing-here", "-o", directory.file("new.jsonl")], status: CLI.Status.notFound)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["out.jsonl", "store"])
    }

    @Test(.enabled(if: DamagedStoreTests.canMountTmpfs, "needs root and permission to mount a small tmpfs"))
    func anExportOntoAFullDiskLeavesNoPartialFile() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { txn in
            for i in 0..<5000 { try txn.setObject(String(repeating: "x", count: 200), forKey: "k\(i)", inCollection: "c") }
        }
        let mountPoint = directory.file("small-disk")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mount = try #require(ProcessTestSupport.tool("mount"))
        let umount = try #require(ProcessTestSupport.tool("umount"))
        #expect(try ProcessTestSupport.run(mount, ["-t", "tmpfs", "-o", "size=256k", "tmpfs", mountPoint]).status == 0)
        defer { _ = try? ProcessTestSupport.run(umount, [mountPoint]) }
        let output = mountPoint + "/out.jsonl"
        let message = try CLI.fail(["export", path, "-o", output], status: CLI.Status.storeError)
        #expect(message.contains("No space left on device"), "\(message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint) == [])
    }

    // MARK: import

    /// Every record here is one `check` would report once stored (or JSON that RFC 8259 readers
    /// disagree on); import refuses each with its line number and stores nothing of its chunk.
    @Test func importRefusesRecordsThatCheckWouldReject() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
        let before = try CLI.storedBytes(db)
        let good = #"{"collection": "c", "key": "good", "object": 2}"#
        let cases: [(String, String)] = [
            (#"{"collection": "c", "key": "x", "format": 0, "object": {"$bytes": "AQ=="}}"#, "format byte 0x0"),
            (#"{"collection": "c", "key": "x", "format": 4, "object": {"$bytes": "AQ=="}}"#, "format byte 0x4"),
            (#"{"collection": "c", "key": "x", "format": 63, "object": {"$bytes": ""}}"#, "format byte 0x3f"),
            (#"{"collection": "c", "key": "x", "object": 1, "metadataFormat": 5, "metadata": {"$bytes": "AQ=="}}"#, "metadata has format byte 0x5"),
            (#"{"collection": "c", "key": "x", "format": "json", "object": {"$bytes": "/w=="}}"#, "stored as JSON but is not UTF-8"),
            (#"{"collection": "c", "key": "x", "format": "messagePack", "object": {"$bytes": "kQ=="}}"#, "not well-formed MessagePack"),
            (#"{"collection": "c", "key": "x", "object": {"$bytes": "AQI="}}"#, "1 bytes after its MessagePack value"),
            (#"{"collection": "c", "key": "x", "object": {"$bytes": ""}}"#, "not well-formed MessagePack"),
            (#"{"collection": "c", "key": "x", "object": {"a": 1, "a": 2}}"#, #"member name "a" appears twice"#),
            (#"{"collection": "c", "key": "x", "object": [{"b": {"a": 1, "a": 2}}]}"#, #"member name "a" appears twice"#),
            (#"{"collection": "c", "key": "x", "key": "y", "object": 1}"#, #"member name "key" appears twice"#),
            (#"{"collection": "c", "key": "x", "format": "json", "object": {"a": 1, "a": 2}}"#, #"member name "a" appears twice"#),
            (#"{"collection": "c", "key": "x", "object": "\ud800"}"#, "high surrogate"),
            (#"{"collection": "c", "key": "x", "object": "\udc00"}"#, "low surrogate"),
        ]
        for (line, fragment) in cases {
            let message = try CLI.fail(["import", path], status: CLI.Status.badInput, input: good + "\n" + line + "\n" + good)
            #expect(message.contains("line 2: ") && message.contains(fragment), "\(line): \(message)")
            #expect(message.contains("nothing was imported"), "\(message)")
        }
        // Bytes that are not UTF-8 inside a JSON string.
        let invalid = Array(#"{"collection": "c", "key": "x", "object": "a"#.utf8) + [0xFF] + Array("\"}\n".utf8)
        let run = try ProcessTestSupport.run(try CLI.executable(), ["import", path], input: invalid)
        expectOneErrorLine(run, status: CLI.Status.badInput, containing: "not valid UTF-8")
        #expect(try CLI.storedBytes(db) == before)
        // What check accepts still imports: custom formats with any bytes, raw bytes, valid values.
        let accepted = [
            #"{"collection": "c", "key": "custom", "format": 64, "object": {"$bytes": "/w=="}}"#,
            #"{"collection": "c", "key": "raw", "format": "raw", "object": {"$bytes": ""}}"#,
            #"{"collection": "c", "key": "json", "format": "json", "object": {"$bytes": "e30="}}"#,
            #"{"collection": "c", "key": "pair", "object": "\ud83d\udd11"}"#,
        ]
        try CLI.succeed(["import", path], input: accepted.joined(separator: "\n"))
        #expect(try db.checkStructure().isConsistent)
        #expect(try db.read { try $0.object(forKey: "pair", inCollection: "c", as: String.self) } == "🔑")
    }

    /// A refused line or a failed write says how many records the chunks before it committed
    /// (they stay); nothing of the failing chunk is written.
    @Test func anImportThatStopsSaysWhatItCommitted() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        _ = try Database(path: path)
        let good = (0..<5).map { #"{"collection": "c", "key": "k\#($0)", "object": \#($0)}"# }
        let badLine = try CLI.fail(["import", path, "--chunk-size", "2"], status: CLI.Status.badInput,
                                   input: (good + [#"{"collection": "c"}"#]).joined(separator: "\n"))
        #expect(badLine.contains("line 6: ") && badLine.contains("4 records were committed before it, in 2 transactions, and stay in the store"), "\(badLine)")
        let badWrite = try CLI.fail(["import", path, "--chunk-size", "3"], status: CLI.Status.badInput,
                                    input: (good + [#"{"collection": "c", "key": "", "object": 1}"#]).joined(separator: "\n"))
        #expect(badWrite.contains("line 6: ") && badWrite.contains("3 records were committed before it, in 1 transaction, and stay in the store"), "\(badWrite)")
        let first = try CLI.fail(["import", path], status: CLI.Status.badInput, input: "[]")
        #expect(first.contains("line 1: ") && first.hasSuffix("(nothing was imported)\n"), "\(first)")
        let db = try Database(path: path)
        #expect(try db.read { try $0.keys(inCollection: "c") } == ["k0", "k1", "k2", "k3"])
    }

    @Test(.enabled(if: DamagedStoreTests.canMountTmpfs, "needs root and permission to mount a small tmpfs"))
    func anImportOntoAFullDiskSaysHowManyRecordsItCommitted() throws {
        let directory = TemporaryDirectory()
        let mountPoint = directory.file("small-disk")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mount = try #require(ProcessTestSupport.tool("mount"))
        let umount = try #require(ProcessTestSupport.tool("umount"))
        #expect(try ProcessTestSupport.run(mount, ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint]).status == 0)
        defer { _ = try? ProcessTestSupport.run(umount, [mountPoint]) }
        let path = mountPoint + "/store"
        let value = String(repeating: "x", count: 4000)
        let records = (0..<2000).map { #"{"collection": "c", "key": "k\#($0)", "object": "\#(value)"}"# }
        let input = directory.file("records.jsonl")  // a file: the tool stops before reading it all
        try Data(records.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: input))
        let message = try CLI.fail(["import", path, input, "--create", "--chunk-size", "50"], status: CLI.Status.storeError)
        let pattern = /(\d+) records were committed before it, in (\d+) transactions, and stay in the store/
        let match = try #require(message.firstMatch(of: pattern), "\(message)")
        let committed = try #require(Int(match.1))
        #expect(committed > 0 && committed % 50 == 0 && Int(match.2) == committed / 50)
        #expect(message.contains("disk"), "\(message)")
        do {
            let db = try Database(path: path)
            #expect(try db.read { try $0.numberOfKeys(inCollection: "c") } == committed)
            #expect(try db.checkStructure().isConsistent)
        }
    }
}
