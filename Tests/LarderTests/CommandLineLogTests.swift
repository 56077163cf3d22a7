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

/// `log` (with `--follow` against writes of other processes) and `history`, run on real stores.
@Suite("Command-line tool: the change log")
struct CommandLineLogTests {
    struct Note: Codable, Sendable, Equatable {
        var text: String
    }

    struct Author: Codable {
        var author: String
        var ticket: Int
    }

    /// A store whose commits 1–5 insert, update with commit information, add metadata, remove,
    /// and clear a collection.
    private func makeStore(_ directory: TemporaryDirectory, keepsValueHistory: Bool = false) throws -> String {
        let path = directory.file("store")
        var configuration = Database.Configuration()
        configuration.keepsValueHistory = keepsValueHistory
        let db = try Database(path: path, configuration: configuration)
        try db.write { txn in
            try txn.setObject(Note(text: "one"), forKey: "a", inCollection: "notes")
            try txn.setObject(Note(text: "two"), forKey: "b", inCollection: "notes")
        }
        try db.write { txn in
            try txn.setObject(Note(text: "one, again"), forKey: "a", inCollection: "notes")
            try txn.setCommitInfo(Author(author: "ann", ticket: 7))
        }
        try db.write { txn in try txn.setObject(Note(text: "x"), forKey: "k", inCollection: "other", metadata: 5) }
        try db.write { txn in _ = try txn.removeObject(forKey: "b", inCollection: "notes") }
        try db.write { txn in try txn.removeAllObjects(inCollection: "other") }
        return path
    }

    private func entries(_ arguments: [String]) throws -> [[String: Any]] {
        try #require(try CLI.json(arguments) as? [[String: Any]])
    }

    @Test func logShowsEveryCommitWithItsChangesAndDecodedInfo() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let log = try entries(["log", path, "--format", "json"])
        #expect(log.map { $0["commit"] as? Int } == [1, 2, 3, 4, 5])
        #expect(log.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true })
        let first = try #require(log[0]["changes"] as? [[String: Any]])
        #expect(first.map { $0["key"] as? String } == ["a", "b"])
        #expect(first.allSatisfy { $0["collection"] as? String == "notes" && $0["object"] as? String == "inserted" && $0["metadata"] is NSNull })
        let info = try #require(log[1]["info"] as? [[String: Any]])
        #expect(info.count == 1 && info[0]["author"] as? String == "ann" && info[0]["ticket"] as? Int == 7)
        let third = try #require(log[2]["changes"] as? [[String: Any]])
        #expect(third.first?["object"] as? String == "inserted" && third.first?["metadata"] as? String == "inserted")
        #expect((log[3]["changes"] as? [[String: Any]])?.first?["object"] as? String == "removed")
        #expect(log[4]["cleared"] as? [String] == ["other"])

        let text = try CLI.succeed(["log", path])
        #expect(text.contains("commit 2  "))
        #expect(text.contains(#"  "notes" "a"  object updated"#))
        #expect(text.contains(#"  info: {"author":"ann","ticket":7}"#))
        #expect(text.contains(#"  cleared  "other""#))
    }

    @Test func logSelectsBySinceLimitAndCollection() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        #expect(try entries(["log", path, "--format", "json", "--since", "3"]).map { $0["commit"] as? Int } == [4, 5])
        #expect(try entries(["log", path, "--format", "json", "--limit", "2"]).map { $0["commit"] as? Int } == [4, 5])
        #expect(try entries(["log", path, "--format", "json", "--since", "1", "--limit", "1"]).map { $0["commit"] as? Int } == [5])
        let other = try entries(["log", path, "--format", "json", "--collection", "other"])
        #expect(other.map { $0["commit"] as? Int } == [3, 5])
        #expect(try entries(["log", path, "--format", "json", "--collection", "notes", "--limit", "1"]).map { $0["commit"] as? Int } == [4])
        #expect(try entries(["log", path, "--format", "json", "--since", "5"]).isEmpty)
        // Only the chosen collection's changes are shown of a commit.
        #expect((other[0]["changes"] as? [[String: Any]])?.allSatisfy { $0["collection"] as? String == "other" } == true)
        try CLI.fail(["log", path, "--limit", "-1"], status: CLI.Status.usage)
        try CLI.fail(["log", path, "--follow", "--format", "json"], status: CLI.Status.usage)
    }

    @Test func logFormatsJSONLinesTableAndCSV() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let lines = try CLI.succeed(["log", path, "--format", "jsonl", "--limit", "2"]).split(separator: "\n")
        #expect(lines.count == 2)
        let parsed = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(parsed.map { $0["commit"] as? Int } == [4, 5])
        let csv = try CLI.succeed(["log", path, "--format", "csv", "--since", "1"]).split(separator: "\n").map(String.init)
        try #require(csv.count == 5, "\(csv)")
        #expect(csv[0] == "commit,time,collection,key,object,metadata,info,undo")
        #expect(csv[1].hasPrefix("2,") && csv[1].hasSuffix(#",notes,a,updated,,"[{""author"":""ann"",""ticket"":7}]","#))
        #expect(csv[2].hasPrefix("3,") && csv[2].hasSuffix(",other,k,inserted,inserted,,"))
        #expect(csv[4].hasPrefix("5,") && csv[4].hasSuffix(",other,,cleared,cleared,,"))
        let table = try CLI.succeed(["log", path, "--format", "table", "--since", "3"]).split(separator: "\n").map(String.init)
        #expect(table.first?.hasPrefix("commit  time") == true)
        #expect(table.count == 3 && table[1].hasPrefix("4 ") && table[1].contains("notes") && table[1].contains("removed"))
    }

    @Test func logMarksTheCommitsThatUndidOrRedid() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        do {
            let db = try Database(path: path)
            try db.write(undoable: "Retitle") { try $0.setObject(Note(text: "retitled"), forKey: "a", inCollection: "notes") }
            try db.undo()
            try db.redo()
        }
        let step = try #require(try Database(path: path).undoHistory().undoable.last?.id)
        let log = try entries(["log", path, "--format", "json", "--since", "5"])
        try #require(log.count == 3, "\(log)")
        #expect((log[0]["undo"] as? [Any])?.isEmpty == true)
        for (entry, action) in zip(log[1...], ["undo", "redo"]) {
            let undo = try #require(entry["undo"] as? [[String: Any]])
            #expect(undo.count == 1 && undo[0]["action"] as? String == action && undo[0]["step"] as? UInt64 == step && undo[0]["name"] as? String == "Retitle")
        }
        let text = try CLI.succeed(["log", path, "--since", "6"])
        #expect(text.contains("commit 7  ") && text.contains("\n  undo of step \(step) \"Retitle\"\n"), "\(text)")
        #expect(text.contains("\n  redo of step \(step) \"Retitle\"\n"), "\(text)")
        let retitle = try CLI.succeed(["log", path, "--since", "5"]).components(separatedBy: "commit 7")[0]
        #expect(retitle.contains("commit 6") && !retitle.contains("of step"), "\(retitle)")
        let csv = try CLI.succeed(["log", path, "--format", "csv", "--since", "6"]).split(separator: "\n").map(String.init)
        try #require(csv.count == 3, "\(csv)")
        #expect(csv[1].hasSuffix(#",notes,a,updated,,,"undo of step \#(step) ""Retitle""""#), "\(csv[1])")
        #expect(csv[2].hasSuffix(#",notes,a,updated,,,"redo of step \#(step) ""Retitle""""#), "\(csv[2])")
    }

    /// Text and table output escape what would break a line, a column or a quoted name, and show
    /// the combining marks of a name not in composed form, so twins print apart (they printed
    /// alike, and a key with a newline split a table row).
    @Test func textAndTableOutputShowNamesUnambiguously() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            try db.write { txn in
                try txn.setObject(1, forKey: "weird\"key\nline2", inCollection: "text")
                try txn.setObject(1, forKey: "caf\u{E9}", inCollection: "names")
                try txn.setObject(2, forKey: "cafe\u{301}", inCollection: "names")
            }
            try db.write(undoable: "Remove \"saw\"\nnow") { _ = try $0.removeObject(forKey: "caf\u{E9}", inCollection: "names") }
            try db.undo()
        }
        let text = try CLI.succeed(["log", path])
        #expect(text.contains(#""text" "weird\"key\nline2"  object inserted"#), "\(text)")
        #expect(text.contains(#""names" "café"  object inserted"#))
        #expect(text.contains(#""names" "cafe\u{301}"  object inserted"#))
        #expect(text.contains(#"undo of step 1 "Remove \"saw\"\nnow""#), "\(text)")
        let table = try CLI.succeed(["log", path, "--format", "table"]).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(table.filter { !$0.isEmpty }.count == 1 + 5, "\(table)")   // the header and one row per change
        #expect(table.contains { $0.contains(#"weird"key\nline2"#) })
        // JSON keeps the names exact.
        let log = try #require(try CLI.json(["log", path, "--format", "json"]) as? [[String: Any]])
        let keys = log.flatMap { ($0["changes"] as? [[String: Any]] ?? []).compactMap { $0["key"] as? String } }
        #expect(keys.contains { $0.utf8.elementsEqual("cafe\u{301}".utf8) } && keys.contains { $0.utf8.elementsEqual("caf\u{E9}".utf8) })
    }

    @Test func logFollowStreamsCommitsOfOtherProcessesUntilInterrupted() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let follower = try StreamingProcess(try CLI.executable(), ["log", path, "--follow", "--format", "jsonl", "--limit", "1"])
        #expect(follower.waitUntilOutput { $0.contains(#"{"commit":5,"#) }, "the backlog: \(follower.standardOutput)")
        // Writers in other processes: the larder tool, then the test helper.
        try CLI.succeed(["put", path, "notes", "c", #"{"text": "from another process"}"#])
        #expect(follower.waitUntilOutput { $0.contains(#"{"commit":6,"#) }, "commit 6 did not arrive: \(follower.standardOutput)")
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let commit = try ProcessTestSupport.run(helper, ["commit", path, "3", "1000"])
        #expect(commit.status == 0, "\(commit)")
        #expect(follower.waitUntilOutput { $0.contains(#"{"commit":9,"#) }, "commits 7–9 did not arrive: \(follower.standardOutput)")
        let run = follower.interrupt()
        #expect(run.status == 0 && run.signal == nil, "\(run)")
        let commits = try run.standardOutput.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["commit"] as? Int
        }
        #expect(commits == [5, 6, 7, 8, 9])
        #expect(run.standardError.isEmpty)
    }

    @Test func logFollowEndsCleanlyOnSIGTERM() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let follower = try StreamingProcess(try CLI.executable(), ["log", path, "--follow", "--since", "4"])
        #expect(follower.waitUntilOutput { $0.contains("commit 5") })
        let run = follower.interrupt(with: SIGTERM)
        #expect(run.status == 0 && run.signal == nil, "\(run)")
        #expect(run.standardOutput.hasPrefix("commit 5  ") && run.standardOutput.contains(#"  cleared  "other""#))
    }

    @Test func historyShowsEachCommitOfOneKeyWithRecordedValues() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory, keepsValueHistory: true)
        let history = try entries(["history", path, "notes", "a", "--format", "json"])
        #expect(history.map { $0["commit"] as? Int } == [1, 2])
        #expect(history.map { $0["event"] as? String } == ["inserted", "updated"])
        #expect(history.map { ($0["value"] as? [String: Any])?["text"] as? String } == ["one", "one, again"])
        let removed = try entries(["history", path, "notes", "b", "--format", "json"])
        #expect(removed.map { $0["event"] as? String } == ["inserted", "removed"])
        #expect(removed.last?["valueKnown"] as? Bool == true && removed.last?["value"] is NSNull)
        let metadata = try entries(["history", path, "other", "k", "--metadata", "--format", "json"])
        #expect(metadata.map { $0["event"] as? String } == ["inserted", "cleared"])
        #expect(metadata.first?["value"] as? Int == 5)
        let text = try CLI.succeed(["history", path, "notes", "a"])
        #expect(text.split(separator: "\n").count == 2 && text.contains(#"  updated  {"text":"one, again"}"#))
        #expect(try CLI.succeed(["history", path, "notes", "never"]).isEmpty)
    }

    @Test func historyWithoutRecordedValuesSaysSo() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let history = try entries(["history", path, "notes", "a", "--format", "json"])
        #expect(history.map { $0["valueKnown"] as? Bool } == [false, false])
        #expect(try CLI.succeed(["history", path, "notes", "a"]).contains("(value not recorded)"))
        try CLI.fail(["history", path, "notes", String(repeating: "k", count: 600)], status: CLI.Status.badInput)
    }
}

/// A child process whose output is read while it runs, and which can be interrupted (SIGINT).
final class StreamingProcess: @unchecked Sendable {  // output and errors guarded by `lock`
    private let process = Process()
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()
    private let done = DispatchGroup()

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for (pipe, isOutput) in [(out, true), (err, false)] {
            done.enter()
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread { [self] in
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    lock.withLock { if isOutput { output.append(data) } else { errors.append(data) } }
                }
                done.leave()
            }
        }
    }

    var standardOutput: String { lock.withLock { String(decoding: output, as: UTF8.self) } }

    /// Waits (up to 30 s) until `condition` holds for the output so far.
    func waitUntilOutput(_ condition: (String) -> Bool) -> Bool {
        for _ in 0..<3_000 {
            if condition(standardOutput) { return true }
            if !process.isRunning { return condition(standardOutput) }
            usleep(10_000)
        }
        return false
    }

    /// Sends `signal` (SIGINT by default) and waits (up to 30 s, then SIGKILL) for the process
    /// to end.
    func interrupt(with signal: Int32 = SIGINT) -> ProcessTestSupport.Run {
        kill(process.processIdentifier, signal)
        if done.wait(timeout: .now() + .seconds(30)) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            _ = done.wait(timeout: .now() + .seconds(5))
        }
        process.waitUntilExit()
        let signaled = process.terminationReason == .uncaughtSignal
        return lock.withLock {
            ProcessTestSupport.Run(
                status: signaled ? -1 : process.terminationStatus,
                standardOutput: String(decoding: output, as: UTF8.self),
                standardError: String(decoding: errors, as: UTF8.self),
                signal: signaled ? process.terminationStatus : nil)
        }
    }
}
