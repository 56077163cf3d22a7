#if Extras
import ArgumentParser
import Larder

/// `larder collections`: the collections and their counts.
struct CollectionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collections",
        abstract: "List the collections that hold keys, with their counts.",
        discussion: "Text output is one collection a line: its name, a tab, its number of keys. Collections are in UTF-8 byte order.")

    @OptionGroup var store: StoreArgument
    @Flag(help: "Print a JSON array of {\"name\", \"count\"} objects (--format json).") var json = false
    @Option(help: "text (name, tab, count), json, jsonl, table or csv.") var format: OutputFormat = .text

    func run() throws {
        let db = try store.open()
        let collections = try withStoreErrors { try Self.counts(db) }
        switch json ? .json : format {
        case .text: for collection in collections { say("\(collection.name)\t\(collection.count)") }
        case .json: sayJSON(Self.json(collections))
        case let other:
            var table = RecordTable(columns: ["name", "count"])
            for collection in collections { table.append([.string(collection.name), .integer(Int64(collection.count))]) }
            table.print(other)
        }
    }

    /// Every collection with its count, in one read transaction.
    static func counts(_ db: Database) throws -> [(name: String, count: Int)] {
        try db.read { txn in try txn.collections().map { ($0, try txn.numberOfKeys(inCollection: $0)) } }
    }

    static func json(_ collections: [(name: String, count: Int)]) -> JSONValue {
        .array(collections.map { .object([JSONMember("name", .string($0.name)), JSONMember("count", .integer(Int64($0.count)))]) })
    }
}
#endif
