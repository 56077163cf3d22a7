#if Extras
import ArgumentParser
import Foundation
import Larder

/// `larder scan`: the values of a collection as a table, one row per key, one column per field.
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Print the values of a collection as a table: a row per key, a column per field.",
        discussion: """
            The columns are the key and the fields named by --fields (a,b,c), or, without it, every \
            field the values have, in the order they are first met. A value that is not a map has \
            its whole value in a column named value; a missing field is an empty cell. Bounds \
            combine as in keys. A collection with no keys is reported as not found (status 2).
            """)

    @OptionGroup var store: StoreArgument
    @Argument(help: "The collection.") var collection: String
    @Option(help: "The fields to show, comma-separated (default: all).") var fields: String?
    @Option(help: "Only keys that start with this prefix.") var prefix: String?
    @Option(help: "Only keys greater than or equal to this one.") var from: String?
    @Option(help: "At most this many rows.") var limit: Int?
    @Option(help: "table (the default), csv, json or jsonl.") var format: OutputFormat = .table

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
        if let fields, fields.split(separator: ",").isEmpty { throw ValidationError("--fields names no field") }
    }

    func run() throws {
        let db = try store.open()
        let range = KeyRange(from: from, prefix: prefix, limit: limit)
        let rows = try withStoreErrors {
            try db.read { txn -> [(key: String, value: JSONValue)]? in
                guard try txn.numberOfKeys(inCollection: collection) > 0 else { return nil }
                // One walk of the collection: each stored value as it is, shown as JSON.
                var rows: [(key: String, value: JSONValue)] = []
                try txn.enumerateObjects(inCollection: collection, archiver: StoredValueArchiver(format: .raw), range: range) { key, stored, _ in
                    rows.append((key, try ValueDisplay.json(format: stored.format, payload: stored.payload, what: "object")))
                }
                return rows
            }
        }
        guard let rows else {
            throw CommandFailure(.notFound, "no collection \(CommandFailure.quoted(collection)) (it has no keys)" + Suggestion.collection(collection, in: db))
        }
        var columns: [String]
        if let fields {
            columns = fields.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        } else {
            // Field names are told apart by their bytes, as the store tells names apart: two that
            // Swift's `==` calls equal (composed and decomposed accents) are two columns.
            columns = []
            var seen = Set<ExactString>()
            for row in rows {
                let names = row.value.members?.map(\.key) ?? ["value"]
                for name in names where seen.insert(ExactString(name)).inserted { columns.append(name) }
            }
        }
        var table = RecordTable(columns: ["key"] + columns)
        for row in rows {
            let members = row.value.members
            table.append([.string(row.key)] + columns.map { column in
                guard let members else { return column == "value" ? row.value : .null }
                return members.last(where: { ExactString.bytesEqual($0.key, column) })?.value ?? .null
            })
        }
        table.print(format == .text ? .table : format)
    }
}
#endif
