#if Extras
import ArgumentParser
import Foundation
import Larder
import LarderMessagePack
import Synchronization

/// `larder log`: the change log, one entry per commit, newest last; `--follow` streams new
/// commits as they land, from any process.
struct LogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show the change log: what each commit changed, newest last.",
        discussion: """
            Each commit shows its number, its time (when the writer recorded one), every object \
            and metadata value it inserted, updated or removed, the collections it cleared, the \
            commit information its writers attached (as JSON), the undo step it undid or redid, \
            and which extensions recorded changes. The log keeps the newest commits only (Configuration.changeLogLimit); older \
            ones are gone. With --follow the command keeps running and prints each new commit, \
            by this or any other process, as it lands (it polls the store about five times a \
            second) until it is interrupted (SIGINT or SIGTERM; the status is then 0).
            """)

    @OptionGroup var store: StoreArgument
    @Option(help: ArgumentHelp("Only commits after this one (give the last commit you saw).", valueName: "commit")) var since: UInt64?
    @Option(help: "Only the newest this many commits (with --follow: of those already in the log).") var limit: Int?
    @Option(help: "Only commits that changed this collection, and only their changes in it.") var collection: String?
    @Flag(help: "Keep running and print new commits as they land, until interrupted.") var follow = false
    @Option(help: "text, json, jsonl, table or csv (one row per change in table and csv).") var format: OutputFormat = .text

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
        if follow && !format.streams { throw ValidationError("--follow prints commits as they come: use --format text, jsonl or csv") }
    }

    func run() throws {
        let db = try store.open()
        let (entries, last, note) = try withStoreErrors { try db.read { txn in try self.backlog(txn) } }
        if let note { printError("larder: " + note) }
        let printer = LogPrinter(format: format, collection: collection)
        printer.begin()
        printer.print(entries)
        printer.end()
        guard follow else { return }
        try Output.standard.finish()
        try followCommits(in: db, after: last, printer: printer)
    }

    /// The entries to show first, the last commit of the snapshot, and a note when the commits
    /// asked for are older than the log reaches.
    private func backlog(_ txn: ReadTransaction) throws -> ([Changeset], UInt64, String?) {
        let last = txn.lastCommit
        guard let logged = try txn.loggedCommits() else { return ([], last, nil) }
        var start = logged.lowerBound - 1
        var note: String?
        if let since {
            if since < start { note = "the log begins at commit \(logged.lowerBound); commits \(since + 1)–\(start) are no longer kept" }
            start = max(start, since)
        }
        if collection == nil, let limit { start = max(start, logged.upperBound >= UInt64(limit) ? logged.upperBound - UInt64(limit) : 0) }
        guard start < logged.upperBound else { return ([], last, note) }
        guard var changesets = try txn.changesets(after: start) else { return ([], last, note) }
        if let collection { changesets = changesets.filter { $0.hasChange(inCollection: collection) } }
        if let limit { changesets = Array(changesets.suffix(limit)) }
        return (changesets, last, note)
    }

    /// Polls the store for commits after `seen` and prints them, until SIGINT or SIGTERM.
    private func followCommits(in db: Database, after seen: UInt64, printer: LogPrinter) throws {
        StopSignal.install()
        var seen = seen
        while StopSignal.received.load(ordering: .relaxed) == 0 {
            let (changesets, last) = try withStoreErrors {
                try db.read { txn -> ([Changeset]?, UInt64) in
                    let last = txn.lastCommit
                    return (last > seen ? try txn.changesets(after: seen) : [], last)
                }
            }
            if let changesets {
                printer.print(collection.map { name in changesets.filter { $0.hasChange(inCollection: name) } } ?? changesets)
            } else {
                printError("larder: commits \(seen + 1)–\(last) left the log before they could be read (the writers outran --follow); going on from commit \(last + 1)")
            }
            seen = last
            try Output.standard.finish()
            for _ in 0..<4 where StopSignal.received.load(ordering: .relaxed) == 0 { usleep(50_000) }
        }
    }
}

/// The signal that asked a long-running command (`log --follow`) to stop; 0 while none did.
enum StopSignal {
    static let received = Atomic<Int32>(0)

    /// Makes SIGINT and SIGTERM set ``received`` instead of ending the process at once, so that
    /// the command finishes its output and exits with status 0.
    static func install() {
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { number in StopSignal.received.store(number, ordering: .relaxed) }
            sigaddset(&unblocked, signalNumber)
        }
        // A blocked signal mask is inherited through exec: a parent that spawns the tool from a
        // thread that blocks signals (libdispatch's worker threads do) would leave it deaf.
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }
}

/// Prints change log entries in one ``OutputFormat``.
final class LogPrinter {
    let format: OutputFormat
    /// Only changes in this collection are shown.
    let collection: String?

    static let columns = ["commit", "time", "collection", "key", "object", "metadata", "info", "undo"]

    /// What comes before the first entry: the CSV header.
    func begin() {
        if format == .csv { say(RecordTable.csvLine(Self.columns)) }
    }

    func print(_ changesets: [Changeset]) {
        switch format {
        case .text:
            for changeset in changesets { printText(changeset) }
        case .jsonl:
            for changeset in changesets { sayJSON(json(changeset)) }
        case .json:
            pending.append(contentsOf: changesets.map(json))
        case .csv, .table:
            var table = RecordTable(columns: Self.columns)
            for changeset in changesets { for row in rows(changeset) { table.append(row) } }
            if format == .csv {
                for row in table.rows { say(table.csvRow(row)) }
            } else {
                pendingRows.append(contentsOf: table.rows)
            }
        }
    }

    /// What comes after the last entry: the JSON array, or the table, which need every entry.
    func end() {
        switch format {
        case .json: sayJSON(.array(pending))
        case .table:
            var table = RecordTable(columns: Self.columns)
            for row in pendingRows { table.append(row) }
            table.print(.table)
        default: break
        }
    }

    /// The entries (JSON) or rows (table) printed at ``end()``.
    private var pending: [JSONValue] = []
    private var pendingRows: [[JSONValue]] = []

    init(format: OutputFormat, collection: String?) {
        self.format = format
        self.collection = collection
    }

    // MARK: Reading a changeset

    /// The listed changes, sorted by collection then key (UTF-8 byte order); with `--collection`,
    /// those of the collection with exactly its bytes.
    private func changes(_ changeset: Changeset) -> [(index: YapDB.Index, change: Changeset.IndexChange)] {
        changeset.changes
            .filter { change in collection.map { ExactString.bytesEqual(change.key.collection, $0) } ?? true }
            .map { (index: $0.key, change: $0.value) }
            .sorted { $0.index < $1.index }
    }

    private func cleared(_ changeset: Changeset) -> [String] {
        changeset.clearedCollectionsInByteOrder.filter { cleared in collection.map { ExactString.bytesEqual(cleared, $0) } ?? true }
    }

    static func name(_ change: Changeset.Change?) -> String? {
        switch change {
        case .inserted: "inserted"
        case .updated: "updated"
        case .removed: "removed"
        case nil: nil
        }
    }

    static func time(_ date: Date?) -> String? {
        guard let date else { return nil }
        let interval = date.timeIntervalSince1970
        let seconds = interval.rounded(.down)
        return Timestamp.format(seconds: Int64(seconds), nanoseconds: Int(((interval - seconds) * 1e9).rounded()) / 1000 * 1000)
    }

    /// A MessagePack payload as JSON; bytes that do not read as MessagePack as `{"$hex": …}`.
    static func payload(_ bytes: [UInt8]) -> JSONValue {
        guard let value = try? MessagePackValue(reading: bytes) else { return .object([JSONMember("$hex", .string(ValueDisplay.hex(bytes)))]) }
        return ValueDisplay.json(value)
    }

    private func info(_ changeset: Changeset) -> [JSONValue] { changeset.encodedCommitInfo.map(Self.payload) }

    /// An undo action as the text and table formats show it: `undo of step 3 “Rename”`.
    static func describe(_ action: UndoAction) -> String {
        "\(action.kind.rawValue) of step \(action.stepID) \(InfoCommand.quote(action.stepName))"
    }

    static func json(_ action: UndoAction) -> JSONValue {
        .object([JSONMember("action", .string(action.kind.rawValue)), JSONMember("step", .unsigned(action.stepID)), JSONMember("name", .string(action.stepName))])
    }

    func json(_ changeset: Changeset) -> JSONValue {
        var members = [JSONMember("commit", .unsigned(changeset.commit)), JSONMember("time", Self.time(changeset.time).map(JSONValue.string) ?? .null)]
        if changeset.commits.count > 1 { members.append(JSONMember("firstCommit", .unsigned(changeset.commits.lowerBound))) }
        if changeset.isReset { members.append(JSONMember("reset", .bool(true))) }
        if changeset.removedEverything { members.append(JSONMember("removedEverything", .bool(true))) }
        members.append(JSONMember("cleared", jsonStrings(cleared(changeset))))
        members.append(JSONMember("changes", .array(changes(changeset).map { entry in
            .object([
                JSONMember("collection", .string(entry.index.collection)), JSONMember("key", .string(entry.index.key)),
                JSONMember("object", Self.name(entry.change.object).map(JSONValue.string) ?? .null),
                JSONMember("metadata", Self.name(entry.change.metadata).map(JSONValue.string) ?? .null),
            ])
        })))
        members.append(JSONMember("info", .array(info(changeset))))
        members.append(JSONMember("undo", .array(changeset.undoActions.map(Self.json))))
        members.append(JSONMember("extensions", .object(changeset.extensionsWithChanges.map { name in
            JSONMember(name, .array(changeset.encodedExtensionChanges(named: name).map(Self.payload)))
        })))
        return .object(members)
    }

    /// One row per change (and per cleared collection, and one for a commit that lists neither).
    func rows(_ changeset: Changeset) -> [[JSONValue]] {
        let commit = JSONValue.unsigned(changeset.commit)
        let time = Self.time(changeset.time).map(JSONValue.string) ?? .null
        let infos = info(changeset)
        let info: JSONValue = infos.isEmpty ? .null : .array(infos)
        let undo: JSONValue = changeset.undoActions.isEmpty ? .null : .string(changeset.undoActions.map(Self.describe).joined(separator: "; "))
        var rows: [[JSONValue]] = []
        if changeset.isReset { rows.append([commit, time, .null, .null, .string("reset"), .string("reset"), info, undo]) }
        if changeset.removedEverything { rows.append([commit, time, .null, .null, .string("removed everything"), .string("removed everything"), info, undo]) }
        for name in cleared(changeset) { rows.append([commit, time, .string(name), .null, .string("cleared"), .string("cleared"), info, undo]) }
        for entry in changes(changeset) {
            rows.append([
                commit, time, .string(entry.index.collection), .string(entry.index.key),
                Self.name(entry.change.object).map(JSONValue.string) ?? .null, Self.name(entry.change.metadata).map(JSONValue.string) ?? .null, info, undo,
            ])
        }
        if rows.isEmpty { rows.append([commit, time, .null, .null, .null, .null, info, undo]) }
        return rows
    }

    private func printText(_ changeset: Changeset) {
        var heading = "commit \(changeset.commit)"
        if changeset.commits.count > 1 { heading = "commits \(changeset.commits.lowerBound)–\(changeset.commit)" }
        if let time = Self.time(changeset.time) { heading += "  " + time }
        say(heading)
        for action in changeset.undoActions { say("  " + Self.describe(action)) }
        if changeset.isReset { say("  (the changes of these commits are no longer known: anything may have changed)") }
        if changeset.removedEverything { say("  removed everything") }
        for name in cleared(changeset) { say("  cleared  \(InfoCommand.quote(name))") }
        for entry in changes(changeset) {
            var kinds: [String] = []
            if let object = Self.name(entry.change.object) { kinds.append("object " + object) }
            if let metadata = Self.name(entry.change.metadata) { kinds.append("metadata " + metadata) }
            say("  \(InfoCommand.quote(entry.index.collection)) \(InfoCommand.quote(entry.index.key))  " + kinds.joined(separator: ", "))
        }
        for info in info(changeset) { say("  info: " + JSONWriter(pretty: false).text(info)) }
        for name in changeset.extensionsWithChanges {
            let count = changeset.encodedExtensionChanges(named: name).count
            say("  extension \(name): \(count) change record\(count == 1 ? "" : "s")")
        }
    }
}
#endif
