#if Extras
import ArgumentParser
import Foundation
import Larder

/// `larder shell`: an interactive session over one store, for people who live in `sqlite3`.
struct ShellCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shell",
        abstract: "Work with one store interactively: list, get, put, delete, keys, log and more.",
        discussion: """
            Reads one command a line from standard input and answers on standard output; the \
            prompt is shown only when standard input is a terminal, so a script can be piped in. \
            Commands are the tool's own without the store: collections, keys, get, scan, put, delete, \
            log, history, stat, info, readers, check, export (each with its options, such as \
            get --format json or log --limit 5), plus history of the session (the word history \
            alone), !! (run the previous command again), !N (run command N of the session), help \
            and quit (or exit, or end of input). Words are split at spaces; quote a word with \
            '…' or "…", or escape a character with \\. The value of put is the rest of the line, \
            as JSON. A failed command prints its message and the session goes on.
            """)

    @OptionGroup var store: StoreArgument

    /// The subcommands a session runs, with the store inserted as their first argument.
    static let storeCommands: Set<String> = [
        "collections", "keys", "get", "scan", "put", "delete", "log", "stat", "info", "readers", "check", "export",
    ]

    func run() throws {
        _ = try store.open()  // refuse a missing or damaged store before the first prompt
        let interactive = isatty(0) == 1
        var session: [String] = []
        if interactive {
            say("larder shell on \(store.path); type help for the commands, quit to leave")
            // The store is opened for each Tab and closed after it: a session's commands open it
            // for writing, which a database this process kept open read-only would prevent.
            let store = self.store
            LineEditor.start { before, word in
                // Tab offers nothing when the store cannot be opened: the next command reports why.
                guard let database = try? store.open() else { return [] }
                return Self.completions(before: before, word: word, in: database)
            }
        }
        while true {
            try? Output.standard.finish()
            let read = interactive ? LineEditor.readLine(prompt: "larder> ") : readLine(strippingNewline: true)
            guard let read else { break }
            var line = read.trimmingCharacters(in: .whitespaces)
            if interactive && !line.isEmpty { LineEditor.remember(line) }
            if line.isEmpty { continue }
            if line == "!!" || (line.hasPrefix("!") && Int(line.dropFirst()) != nil) {
                let number = line == "!!" ? session.count : Int(line.dropFirst())!
                guard number >= 1 && number <= session.count else {
                    printError("larder: no command \(line == "!!" ? "before this one" : "number \(number)") in this session (history lists them)")
                    continue
                }
                line = session[number - 1]
                say(line)
            }
            session.append(line)
            if line == "quit" || line == "exit" { break }
            perform(line, session: session)
        }
        try Output.standard.finish()
    }

    /// The words the session's commands take.
    static let commandNames = (storeCommands.union(["help", "history", "list", "quit", "exit"])).sorted()

    /// What Tab offers for `word` after `before`: a command first, then a collection (for the
    /// commands that take one), then a key of that collection (at most 200, by prefix). Names
    /// are offered as they must be typed: spaces, quotes and backslashes escaped.
    static func completions(before: String, word: String, in database: Database) -> [String] {
        let words = (try? Self.words(before)) ?? before.split(separator: " ").map(String.init)
        // The word as the command will read it (what the user typed may hold escapes already).
        let typed = (try? Self.words(word))?.first ?? word
        // By bytes, as key ranges match prefixes (`hasPrefix` compares canonical equivalents).
        func starting(_ candidates: [String]) -> [String] { candidates.filter { $0.utf8.starts(with: typed.utf8) }.map(escaped) }
        switch words.count {
        case 0:
            return starting(commandNames)
        case 1 where ["keys", "get", "scan", "put", "delete", "history", "export"].contains(words[0]):
            return starting((try? database.read { try $0.collections() }) ?? [])
        case 2 where ["get", "put", "delete", "history"].contains(words[0]):
            let range = KeyRange(prefix: typed.isEmpty ? nil : typed, limit: 200)
            return ((try? database.read { try $0.keys(inCollection: words[1], range: range) }) ?? []).map(escaped)
        default:
            return []
        }
    }

    /// `name` as one word of a session's line: each space, tab, quote and backslash escaped.
    static func escaped(_ name: String) -> String {
        var text = ""
        for character in name {
            if [" ", "\t", "'", "\"", "\\"].contains(character) { text.append("\\") }
            text.append(character)
        }
        return text
    }

    /// Runs one command line, reporting a failure without ending the session.
    private func perform(_ line: String, session: [String]) {
        let words: [String]
        do {
            words = try Self.words(line)
        } catch {
            printError("larder: \(error.message)")
            return
        }
        guard let name = words.first else { return }
        switch name {
        case "help":
            say(Self.help)
            return
        case "history" where words.count == 1:
            for (number, entry) in session.enumerated() { say("\(String(number + 1).leftPadded(to: 4))  \(entry)") }
            return
        default:
            break
        }
        let command = name == "list" ? "collections" : name
        guard Self.storeCommands.contains(command) || command == "history" else {
            let suggestion = Suggestion.closest(to: name, among: Self.commandNames).map { "; did you mean \(CommandFailure.quoted($0))?" } ?? ""
            printError("larder: unknown command \(CommandFailure.quoted(name))\(suggestion) (help lists the commands)")
            return
        }
        var arguments = [command, store.path] + words.dropFirst()
        if command == "put" {
            // The value is the rest of the line, as typed: JSON holds spaces and quotes.
            do {
                arguments = ["put", store.path] + (try Self.putArguments(line))
            } catch {
                printError("larder: \(error.message)")
                return
            }
        }
        do {
            var parsed = try LarderCommand.parseAsRoot(arguments)
            try parsed.run()
            try Output.standard.finish()
        } catch {
            try? Output.standard.finish()
            switch error {
            case let failure as CommandFailure:
                printError("larder: " + failure.message)
            case let error as LarderError:
                printError("larder: " + CommandFailure(error).message)
            default:
                printError("larder: " + LarderCommand.fullMessage(for: error).split(whereSeparator: \.isNewline).joined(separator: " "))
            }
        }
    }

    static let help = """
        collections                       the collections and their counts (also: list)
        keys COLLECTION [--prefix P] [--limit N] …   the keys of a collection
        get COLLECTION KEY [--metadata] [--json]      a value, as JSON
        scan COLLECTION [--fields a,b] [--limit N]    the values as a table, a column per field
        put COLLECTION KEY JSON           store a value (the rest of the line is the JSON)
        delete COLLECTION KEY… | --all    remove objects
        log [--limit N] [--since C] [--collection C] [--format F]   the change log
        history COLLECTION KEY [--metadata]           the history of one key
        stat, info, readers, check, export            as the larder commands of those names
        history                           the commands of this session, numbered
        !!  /  !N                         run the previous command / command N again
        help                              this list
        quit, exit                        leave (end of input too)
        Each command takes the options of the larder command of its name (see larder help COMMAND).
        """

    /// A command line that cannot be split into words.
    struct WordsError: Error {
        let message: String
    }

    /// `line` split at unquoted spaces; `'…'` and `"…"` quote, `\` escapes one character.
    static func words(_ line: String) throws(WordsError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
                continue
            }
            if character == "\\" && quote != "'" {
                escaped = true
                inWord = true
                continue
            }
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                inWord = true
            case " ", "\t":
                if inWord { words.append(current) }
                current = ""
                inWord = false
            default:
                current.append(character)
                inWord = true
            }
        }
        if quote != nil { throw WordsError(message: "a quote is not closed") }
        if escaped { throw WordsError(message: "the line ends with a lone \\") }
        if inWord { words.append(current) }
        return words
    }

    /// The arguments of `put COLLECTION KEY JSON…`: the collection and key as words, then the
    /// rest of the line unchanged.
    static func putArguments(_ line: String) throws(WordsError) -> [String] {
        var rest = Substring(line)
        var arguments: [String] = []
        // Skip "put", then take two words, each up to its first unquoted space.
        for position in 0..<3 {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            var end = rest.startIndex
            var quote: Character?
            var escaped = false
            while end < rest.endIndex {
                let character = rest[end]
                if escaped { escaped = false } else if character == "\\" && quote != "'" { escaped = true } else if let open = quote {
                    if character == open { quote = nil }
                } else if character == "'" || character == "\"" { quote = character } else if character == " " || character == "\t" { break }
                end = rest.index(after: end)
            }
            let word = rest[rest.startIndex..<end]
            if position > 0 {
                guard let parsed = try words(String(word)).first else { throw WordsError(message: "put needs a collection, a key and a value: put COLLECTION KEY JSON") }
                arguments.append(parsed)
            }
            rest = rest[end...]
        }
        let value = rest.trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty else { throw WordsError(message: "put needs a value after the key (JSON, the rest of the line)") }
        return arguments + ["--", value]
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
#endif
