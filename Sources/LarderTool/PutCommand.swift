import ArgumentParser
import Foundation
import Larder

/// `larder put`: store a JSON value as MessagePack.
struct PutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Store a JSON value as MessagePack at a collection and key.",
        discussion: """
            The value is read from the argument, or from standard input when the argument is \
            omitted or is -. Integers stay integers and numbers with a fraction or an exponent \
            become doubles, so values read back into Codable types. Like the library's setObject, \
            put replaces the object and removes its metadata unless --metadata or --keep-metadata \
            says otherwise. Put a value that starts with - after --.
            """)

    @OptionGroup var store: StoreArgument
    @Argument(help: "The collection.") var collection: String
    @Argument(help: "The key.") var key: String
    @Argument(help: ArgumentHelp("The value as JSON; - or nothing reads standard input.", valueName: "json")) var value: String?
    @Option(name: .customLong("metadata"), help: ArgumentHelp("Store this JSON as the metadata too.", valueName: "json")) var metadataText: String?
    @Flag(help: "Keep the metadata already stored (by default put removes it).") var keepMetadata = false

    func validate() throws {
        if keepMetadata && metadataText != nil { throw ValidationError("--metadata and --keep-metadata cannot be combined") }
    }

    func run() throws {
        let text: [UInt8]
        if let value, value != "-" {
            text = Array(value.utf8)
        } else {
            text = Array(FileHandle.standardInput.readDataToEndOfFile())
        }
        let object = StoredValue(format: .messagePack, payload: try Self.parse(text, what: "value").messagePackBytes)
        let metadata = try metadataText.map { StoredValue(format: .messagePack, payload: try Self.parse(Array($0.utf8), what: "metadata").messagePackBytes) }
        let db = try store.open(readOnly: false)
        try withStoreErrors {
            try db.write { txn in
                if keepMetadata, try txn.replaceObject(object, forKey: key, inCollection: collection, archiver: StoredValueArchiver(format: object.format)) {
                    return
                }
                try txn.setStored(object, metadata: metadata, forKey: key, inCollection: collection)
            }
        }
    }

    static func parse(_ text: [UInt8], what: String) throws -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            throw CommandFailure(.badInput, "the \(what) is not JSON: \(error)")
        }
    }
}
