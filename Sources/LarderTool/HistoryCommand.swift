#if Extras
import ArgumentParser
import Larder

/// `larder history`: what the change log remembers of one object (or its metadata).
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show the history of one object (or its metadata) as the change log remembers it, newest last.",
        discussion: """
            One line per commit that inserted, updated or removed the value, or cleared its \
            collection: the commit, its time, the event and, when the writer kept values \
            (Configuration.keepsValueHistory), the value it left, as get prints it. The history \
            reaches back as far as the change log (Configuration.changeLogLimit). A key with no \
            history prints nothing.
            """)

    @OptionGroup var store: StoreArgument
    @Argument(help: "The collection.") var collection: String
    @Argument(help: "The key.") var key: String
    @Flag(help: "The history of the metadata instead of the object.") var metadata = false
    @Option(help: "text, json, jsonl, table or csv.") var format: OutputFormat = .text

    static let columns = ["commit", "time", "event", "valueKnown", "value"]

    func run() throws {
        let db = try store.open()
        let index = YapDB.Index(collection: collection, key: key)
        let entries = try withStoreErrors {
            try db.read { txn in try metadata ? txn.history(ofMetadataAt: index) : txn.history(ofObjectAt: index) }
        }
        var table = RecordTable(columns: Self.columns)
        for entry in entries.reversed() {
            table.append([.unsigned(entry.commit), LogPrinter.time(entry.time).map(JSONValue.string) ?? .null, .string(Self.name(entry.event)), .bool(entry.isValueKnown), try value(entry)])
        }
        guard format == .text else {
            table.print(format)
            return
        }
        for row in table.rows {
            let value = row[3] == .bool(false) ? "  (value not recorded)" : row[4] == .null ? "" : "  " + RecordTable.cell(row[4])
            say([RecordTable.cell(row[0]), RecordTable.cell(row[1]), RecordTable.cell(row[2])].filter { !$0.isEmpty }.joined(separator: "  ") + value)
        }
    }

    static func name(_ event: HistoryEntry.Event) -> String {
        switch event {
        case .inserted: "inserted"
        case .updated: "updated"
        case .removed: "removed"
        case .cleared: "cleared"
        case .removedEverything: "removed everything"
        }
    }

    /// The value the commit left, as JSON: `null` when there is none or it was not recorded.
    private func value(_ entry: HistoryEntry) throws -> JSONValue {
        guard let stored = entry.stored else { return .null }
        return try ValueDisplay.json(format: stored.format, payload: stored.bytes, what: "value of commit \(entry.commit)")
    }
}
#endif
