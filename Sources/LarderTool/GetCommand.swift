#if Extras
import ArgumentParser
import Larder

/// `larder get`: one value, as JSON.
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print the object (or, with --metadata, the metadata) stored at a collection and key.",
        discussion: """
            MessagePack and JSON values are printed as JSON (see the guide for how MessagePack \
            types map to JSON); raw bytes and custom formats as hexadecimal digits. With --json the \
            output is one object holding the format, the object and the metadata.
            """)

    @OptionGroup var store: StoreArgument
    @Argument(help: "The collection.") var collection: String
    @Argument(help: "The key.") var key: String
    @Flag(help: "Print the metadata instead of the object.") var metadata = false
    @Flag(help: "Print the stored bytes (after the format byte) as hexadecimal digits, whatever the format.") var hex = false
    @Flag(help: "Print {\"collection\", \"key\", \"format\", \"object\", \"metadataFormat\", \"metadata\"}.") var json = false
    @Flag(help: "Indent the JSON.") var pretty = false
    @Flag(help: "Write the stored payload (the bytes after the format byte) to standard output unchanged, with no newline.") var raw = false
    @Option(help: "text (the value alone), json (as --json), jsonl (the same on one line), table or csv (one row: collection, key, format, object, metadataFormat, metadata).") var format: OutputFormat = .text

    func validate() throws {
        if raw && (json || hex || format != .text) { throw ValidationError("--raw writes the bytes alone: it cannot be combined with --json, --hex or --format") }
    }

    func run() throws {
        let db = try store.open()
        let (object, stored) = try withStoreErrors {
            try db.read { txn in
                (try txn.storedObject(forKey: key, inCollection: collection), try txn.storedMetadata(forKey: key, inCollection: collection))
            }
        }
        let where_ = "collection \(CommandFailure.quoted(collection)), key \(CommandFailure.quoted(key))"
        guard let object else {
            // A mistyped collection is the likelier mistake when the collection is empty.
            let empty = (try? db.read { try $0.numberOfKeys(inCollection: collection) }) == 0
            throw CommandFailure(.notFound, "no object at \(where_)" + (empty ? Suggestion.collection(collection, in: db) : ""))
        }
        let objectValue = StoredValue(format: object.format, payload: object.bytes)
        let metadataValue = stored.map { StoredValue(format: $0.format, payload: $0.bytes) }
        if raw {
            let value = metadata ? metadataValue : objectValue
            guard let value else { throw CommandFailure(.notFound, "no metadata at \(where_) (the object has none)") }
            Output.standard.write(value.payload)
            return
        }
        if format == .table {
            // For people: one row per field of the value (and of its metadata), as a record view.
            var table = RecordTable(columns: ["field", "value"])
            func rows(_ value: JSONValue, prefix: String, whole: String) {
                guard case .object(let members) = value else {
                    table.append([.string(whole), value])
                    return
                }
                for member in members { table.append([.string(prefix + member.key), member.value]) }
            }
            rows(try shown(objectValue, what: "object"), prefix: "", whole: "object")
            if let metadataValue { rows(try shown(metadataValue, what: "metadata"), prefix: "metadata.", whole: "metadata") }
            table.print(format)
            return
        }
        if format == .csv {
            var table = RecordTable(columns: ["collection", "key", "format", "object", "metadataFormat", "metadata"])
            table.append([
                .string(collection), .string(key), ValueDisplay.formatJSON(objectValue.format), try shown(objectValue, what: "object"),
                metadataValue.map { ValueDisplay.formatJSON($0.format) } ?? .null, try metadataValue.map { try shown($0, what: "metadata") } ?? .null,
            ])
            table.print(format)
            return
        }
        if json || format == .json || format == .jsonl {
            var members = [
                JSONMember("collection", .string(collection)), JSONMember("key", .string(key)),
                JSONMember("format", ValueDisplay.formatJSON(objectValue.format)),
                JSONMember("object", try shown(objectValue, what: "object")),
            ]
            if let metadataValue {
                members.append(JSONMember("metadataFormat", ValueDisplay.formatJSON(metadataValue.format)))
                members.append(JSONMember("metadata", try shown(metadataValue, what: "metadata")))
            }
            sayJSON(.object(members), pretty: pretty && format != .jsonl)
            return
        }
        let value: StoredValue
        if metadata {
            guard let metadataValue else { throw CommandFailure(.notFound, "no metadata at \(where_) (the object has none)") }
            value = metadataValue
        } else {
            value = objectValue
        }
        let shownValue = try shown(value, what: metadata ? "metadata" : "object")
        if case .string(let digits) = shownValue, hex || ![.messagePack, .json].contains(value.format) {
            say(digits)
        } else {
            sayJSON(shownValue, pretty: pretty)
        }
    }

    private func shown(_ value: StoredValue, what: String) throws -> JSONValue {
        hex ? .string(ValueDisplay.hex(value.payload)) : try ValueDisplay.json(format: value.format, payload: value.payload, what: what)
    }
}
#endif
