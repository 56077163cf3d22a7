import Foundation
import Testing
@testable import Larder

/// `shell`, driven through a pseudo-terminal (python3's `pty` module) as a person would, and
/// through a pipe as a script would.
@Suite("Command-line tool: the interactive shell")
struct CommandLineShellTests {
    /// Runs `larder shell STORE` on a pseudo-terminal, typing each of `commands` after the prompt
    /// appears, and returns everything the terminal showed (the echoed input included).
    /// The history goes to `history` (a file of the test's own, never the user's).
    private func session(_ path: String, _ commands: [String], history: String? = nil) throws -> ProcessTestSupport.Run {
        let python = try #require(ProcessTestSupport.tool("python3"), "the shell tests drive a pseudo-terminal with python3's pty module")
        let script = """
            import os, pty, sys, select, time
            larder, path, history, commands = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
            os.environ["LARDER_HISTORY"] = history
            os.environ.setdefault("TERM", "xterm")
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(larder, [larder, "shell", path])
            seen = b""
            def read_until(marker):
                global seen
                deadline = time.time() + 30
                while marker not in seen:
                    if time.time() > deadline:
                        sys.stdout.buffer.write(seen)
                        sys.exit(90)
                    ready, _, _ = select.select([fd], [], [], 0.5)
                    if ready:
                        try:
                            chunk = os.read(fd, 4096)
                        except OSError:
                            return
                        if not chunk:
                            return
                        seen += chunk
            for command in commands:
                read_until(b"larder> ")
                seen = seen.replace(b"larder> ", b"<prompt>", 1)
                os.write(fd, command.encode() + b"\\n")
            read_until(b"\\0")  # to the end of the output
            _, status = os.waitpid(pid, 0)
            sys.stdout.buffer.write(seen)
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let history = history ?? (path + ".history")
        return try ProcessTestSupport.run(python, ["-c", script, try CLI.executable(), path, history] + commands)
    }

    private func makeStore(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { txn in
            try txn.setObject(["name": "Ann"], forKey: "ann", inCollection: "users")
            try txn.setObject(["name": "Bob"], forKey: "bob", inCollection: "users")
        }
        return path
    }

    @Test func aTerminalSessionListsGetsPutsDeletesAndShowsTheLog() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let run = try session(path, [
            "collections",
            #"put users "carol o" {"name": "Carol O'Neil", "age": 41}"#,
            #"get users 'carol o'"#,
            "keys users",
            "delete users bob",
            "get users bob",
            "log --limit 2 --format jsonl",
            "nonsense",
            "history",
            "!1",
            "quit",
        ])
        #expect(run.status == 0, "\(run)")
        let screen = run.standardOutput.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(screen.hasPrefix("larder shell on \(path)"), "\(screen)")
        #expect(screen.components(separatedBy: "<prompt>").count == 12, "a prompt before each of the 11 commands: \(screen)")
        #expect(screen.contains("collections\nusers\t2\n"))
        #expect(screen.contains(#"{"name":"Carol O'Neil","age":41}"#))
        #expect(screen.contains("keys users\nann\nbob\ncarol o\n"))
        #expect(screen.contains(#"larder: no object at collection "users", key "bob""#))
        #expect(screen.contains(#""changes":[{"collection":"users","key":"bob","object":"removed","metadata":null}]"#))
        #expect(screen.contains(#"larder: unknown command "nonsense""#))
        #expect(screen.contains("   9  history\n"))
        #expect(screen.contains("!1\ncollections\nusers\t2\n"), "!1 runs the first command again: \(screen)")
        let db = try Database(path: path)
        #expect(try db.read { try $0.keys(inCollection: "users") } == ["ann", "carol o"])
    }

    /// Line editing on a terminal: Tab completes commands, collections and keys; Up recalls the
    /// previous line instead of sending `^[[A` as a command; the history outlives the session.
    @Test func aTerminalSessionCompletesRecallsAndKeepsHistory() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let history = directory.file("history")
        let up = "\u{1b}[A"
        try CLI.succeed(["put", path, "users", "carol o'neil", #"{"name": "Carol"}"#])
        let first = try session(path, ["col\t", "get us\ta\t", up, "get users car\t", "quit"], history: history)
        #expect(first.status == 0, "\(first)")
        let screen = first.standardOutput.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(screen.contains("users\t3\n"), "col⇥ completes to collections: \(screen)")
        #expect(screen.components(separatedBy: #"{"name":"Ann"}"#).count == 3, "get us⇥a⇥ reads ann, and Up runs it again: \(screen)")
        #expect(!screen.contains("unknown command"), "\(screen)")
        #expect(screen.contains(#"{"name":"Carol"}"#), "a key with a space and a quote completes escaped, as one word: \(screen)")
        let saved = try String(contentsOfFile: history, encoding: .utf8)
        #expect(saved.contains("collections") && saved.contains("get\\040users\\040ann"), "\(saved)")

        // A new session starts with the old one's lines: Up three times (past quit and the
        // get of carol) reaches the get of ann.
        let second = try session(path, [up + up + up, "quit"], history: history)
        let again = second.standardOutput.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(again.contains(#"{"name":"Ann"}"#), "\(again)")
    }

    /// A mistyped subcommand, shell command or collection is answered with the closest name.
    @Test func mistypedNamesGetADidYouMean() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let subcommand = try CLI.fail(["colections", path], status: CLI.Status.usage)
        #expect(subcommand.contains(#"unknown command "colections"; did you mean "collections"?"#), "\(subcommand)")
        #expect(!(try CLI.fail(["frobnicate", path], status: CLI.Status.usage)).contains("did you mean"))
        #expect(try CLI.fail(["keys", path, "usrs"], status: CLI.Status.notFound).contains(#"no collection "usrs" (it has no keys); did you mean "users"?"#))
        #expect(try CLI.fail(["get", path, "user", "ann"], status: CLI.Status.notFound).contains(#"did you mean "users"?"#))
        #expect(try CLI.fail(["delete", path, "userz", "--all"], status: CLI.Status.notFound).contains(#"did you mean "users"?"#))
        // The collection exists: the key is what is missing, and nothing is suggested.
        #expect(!(try CLI.fail(["get", path, "users", "annn"], status: CLI.Status.notFound)).contains("did you mean"))
        // A collection stored with other bytes than typed (decomposed "é" for composed) is
        // suggested: Swift's `==` calls the two equal, the store does not.
        try CLI.succeed(["put", path, "cafe\u{301}s", "k", "1"])
        #expect(try CLI.fail(["keys", path, "caf\u{E9}s"], status: CLI.Status.notFound).contains("did you mean \"cafe\u{301}s\"?"))
        let shell = try CLI.run(["shell", path], input: "kyes users\n")
        #expect(shell.standardError.contains(#"unknown command "kyes"; did you mean "keys"?"#), "\(shell)")
    }

    @Test func aPipedSessionShowsNoPromptAndEndsAtEndOfInput() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let run = try CLI.run(["shell", path], input: "get users ann\nput users dan {\"name\": \"Dan\"}\n!!\nhistory\n")
        #expect(run.status == 0, "\(run)")
        #expect(run.standardOutput == "{\"name\":\"Ann\"}\nput users dan {\"name\": \"Dan\"}\n   1  get users ann\n   2  put users dan {\"name\": \"Dan\"}\n   3  put users dan {\"name\": \"Dan\"}\n   4  history\n")
        #expect(run.standardError.isEmpty, "\(run)")
        #expect(try CLI.succeed(["get", path, "users", "dan"]) == "{\"name\":\"Dan\"}\n")
    }

    @Test func wordsAreSplitLikeAShellDoes() throws {
        try CLI.fail(["shell", TemporaryDirectory().file("missing")], status: CLI.Status.notFound)
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let run = try CLI.run(["shell", path], input: "get users \"ann\"\nget users 'unclosed\nkeys users --prefix b\\ \n")
        #expect(run.standardOutput == "{\"name\":\"Ann\"}\n", "\(run)")
        #expect(run.standardError.contains("larder: a quote is not closed"))
    }
}
