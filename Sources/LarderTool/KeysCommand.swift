#if Extras
import ArgumentParser
import Larder

/// `larder keys`: the keys of a collection, in order, within a range.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List the keys of a collection, in UTF-8 byte order.",
        discussion: "Bounds combine: --prefix user/ --from user/5 lists the keys that start with user/ and are not less than user/5. A collection with no keys is reported as not found (status 2); a range that matches nothing prints nothing.")

    @OptionGroup var store: StoreArgument
    @Argument(help: "The collection.") var collection: String
    @Option(help: "Only keys that start with this prefix.") var prefix: String?
    @Option(help: "Only keys greater than or equal to this one.") var from: String?
    @Option(help: "Only keys less than this one.") var to: String?
    @Option(help: "At most this many keys.") var limit: Int?
    @Flag(help: "From the greatest key down.") var reverse = false
    @Flag(help: "Print a JSON array of strings instead of one key a line (--format json).") var json = false
    @Option(help: "text (one key a line), json, jsonl, table or csv.") var format: OutputFormat = .text

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    func run() throws {
        let db = try store.open()
        let range = KeyRange(from: from, to: to, prefix: prefix, reversed: reverse, limit: limit)
        let keys = try withStoreErrors {
            try db.read { txn -> [String]? in
                guard try txn.numberOfKeys(inCollection: collection) > 0 else { return nil }
                return try txn.keys(inCollection: collection, range: range)
            }
        }
        guard let keys else { throw CommandFailure(.notFound, "no collection \(CommandFailure.quoted(collection)) (it has no keys)" + Suggestion.collection(collection, in: db)) }
        switch json ? .json : format {
        case .text: for key in keys { say(key) }
        case .json: sayJSON(jsonStrings(keys))
        case let other:
            var table = RecordTable(columns: ["key"])
            for key in keys { table.append([.string(key)]) }
            table.print(other)
        }
    }
}
#endif
