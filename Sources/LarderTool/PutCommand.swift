#if Extras
import ArgumentParser
import Foundation
import Larder
import LarderMessagePack

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
            says otherwise. Put a value that starts with - after --. With --format messagepack or raw \
            the value's bytes (best given on standard input) are stored unchanged, so that \
            get --raw and put --format round-trip a value. In a collection whose values carry \
            versions (see Evolving values), say which version the value is written at with \
            --version (and --metadata-version): without it put refuses, because a program that \
            declares versions may have no step from version 0. --version 0 writes an \
            unversioned value on purpose.
            """)

    @OptionGroup var store: StoreArgument
    @Argument(help: "The collection.") var collection: String
    @Argument(help: "The key.") var key: String
    @Argument(help: ArgumentHelp("The value as JSON; - or nothing reads standard input.", valueName: "json")) var value: String?
    @Option(name: .customLong("metadata"), help: ArgumentHelp("Store this JSON as the metadata too.", valueName: "json")) var metadataText: String?
    @Flag(help: "Keep the metadata already stored (by default put removes it).") var keepMetadata = false
    @Option(help: ArgumentHelp("How the value is given: json (stored as MessagePack), messagepack (MessagePack bytes, checked and stored as they are) or raw (bytes stored unchanged in the raw format).", valueName: "format")) var format: InputFormat = .json
    @Option(help: ArgumentHelp("The version of its collection's values the value is written at (0: none).", valueName: "n")) var version: Int?
    @Option(name: .customLong("metadata-version"), help: ArgumentHelp("The version the metadata is written at (0: none).", valueName: "n")) var metadataVersion: Int?

    /// The forms `put --format` reads a value in.
    enum InputFormat: String, ExpressibleByArgument, CaseIterable {
        case json, messagepack, raw
    }

    func validate() throws {
        if keepMetadata && metadataText != nil { throw ValidationError("--metadata and --keep-metadata cannot be combined") }
        if metadataVersion != nil && metadataText == nil { throw ValidationError("--metadata-version needs --metadata") }
        for (name, value) in [("--version", version), ("--metadata-version", metadataVersion)] {
            if let value, !(0...Int(UInt32.max)).contains(value) { throw ValidationError("\(name) must be from 0 to \(UInt32.max)") }
        }
    }

    func run() throws {
        let text: [UInt8]
        if let value, value != "-" {
            text = Array(value.utf8)
        } else {
            text = Array(FileHandle.standardInput.readDataToEndOfFile())
        }
        var object: StoredValue
        switch format {
        case .json:
            object = StoredValue(format: .messagePack, payload: try Self.parse(text, what: "value").messagePackBytes)
        case .messagepack:
            do {
                _ = try MessagePackValue(reading: text)
            } catch {
                throw CommandFailure(.badInput, "the value is not one MessagePack value: \(error)")
            }
            object = StoredValue(format: .messagePack, payload: text)
        case .raw:
            object = StoredValue(format: .raw, payload: text)
        }
        object.version = version ?? 0
        let metadata = try metadataText.map { StoredValue(format: .messagePack, payload: try Self.parse(Array($0.utf8), what: "metadata").messagePackBytes, version: metadataVersion ?? 0) }
        let db = try store.open(readOnly: false)
        try Self.refuseUnversioned(in: db, collection: collection, object: version == nil, metadata: metadata != nil && metadataVersion == nil)
        try withStoreErrors {
            try db.write { txn in
                if keepMetadata, try txn.replaceObject(object, forKey: key, inCollection: collection, archiver: StoredValueArchiver(format: object.format)) {
                    return
                }
                try txn.setStored(object, metadata: metadata, forKey: key, inCollection: collection)
            }
        }
    }

    /// Refuses to write a value without a version (`object`, `metadata`: the ones given without
    /// one) into a collection whose values (or metadata) carry versions: the program that reads
    /// them may declare no step from version 0, and would fail on this one.
    static func refuseUnversioned(in db: Database, collection: String, object: Bool, metadata: Bool) throws {
        for (isMetadata, flag, what) in [(false, "--version", "values"), (true, "--metadata-version", "metadata")] where isMetadata ? metadata : object {
            let versions = try withStoreErrors { try db.storedVersions(inCollection: collection, metadata: isMetadata) }
            guard let newest = versions.keys.max(), newest > 0 else { continue }
            let counts = versions.sorted { $0.key < $1.key }.map { "version \($0.key): \($0.value)" }.joined(separator: ", ")
            throw CommandFailure(
                .badInput,
                "the \(what) of \(CommandFailure.quoted(collection)) carry versions (\(counts)); say which version this one is with \(flag) (\(flag) \(newest) for the newest; \(flag) 0 writes an unversioned value, which the program must be able to migrate from version 0)")
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
#endif
