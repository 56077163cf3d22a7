#if Extras
import ArgumentParser
import Larder

/// `larder export`: the store's objects and metadata as JSON Lines.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write objects and metadata as JSON Lines, one record a line, from one snapshot.",
        discussion: """
            Each line is {"collection", "key", "format", "object", "metadataFormat", "metadata"}, \
            with "version" and "metadataVersion" where values carry versions of their collection's \
            values (in such a collection an unversioned value says 0); values JSON cannot carry exactly are written as {"$bytes": "<base64>"}, so that import \
            restores every stored byte. The whole export reads one snapshot, while writers go on. \
            Extension state, the change log and the undo history are not exported. A progress bar \
            is drawn on standard error when it is a terminal.
            """)

    @OptionGroup var store: StoreArgument
    @Argument(help: "The collections to export (all when none are given).") var collections: [String] = []
    @Option(name: [.short, .long], help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file")) var output: String?

    func run() throws {
        let db = try store.open()
        let progress = ProgressBar("exporting")
        let out = try Output.file(output)
        do {
            try export(from: db, to: out, progress: progress)
        } catch {
            out.discard()
            progress.finish()
            throw error
        }
        progress.finish()
        try out.finish()
    }

    private func export(from db: Database, to out: Output, progress: ProgressBar) throws {
        try withStoreErrors {
            try db.read { txn in
                let chosen = collections.isEmpty ? try txn.collections() : collections
                var total = 0
                for collection in chosen {
                    let count = try txn.numberOfKeys(inCollection: collection)
                    if count == 0 && !collections.isEmpty {
                        throw CommandFailure(.notFound, "no collection \(CommandFailure.quoted(collection)) (it has no keys)"
                                             + Suggestion.didYouMean(collection, among: try txn.collections()))
                    }
                    total += count
                }
                var done = 0
                for collection in chosen {
                    // Where values carry versions, an unversioned one says 0 outright.
                    let versioned = try txn.carriesVersions(inCollection: collection)
                    var rows: [(String, StoredValue)] = []
                    try txn.enumerateObjects(inCollection: collection, archiver: StoredValueArchiver(format: .raw)) { key, object, _ in
                        rows.append((key, object))
                        if rows.count == 1000 {
                            try write(rows, of: collection, versioned: versioned, from: txn, to: out)
                            done += rows.count
                            rows.removeAll(keepingCapacity: true)
                            progress.update(done, of: total)
                        }
                    }
                    try write(rows, of: collection, versioned: versioned, from: txn, to: out)
                    done += rows.count
                    progress.update(done, of: total)
                }
            }
        }
    }

    /// Writes the records of `rows`, reading each one's metadata.
    private func write(_ rows: [(String, StoredValue)], of collection: String, versioned: (object: Bool, metadata: Bool), from txn: ReadTransaction, to out: Output) throws {
        for (key, read) in rows {
            var object = read
            object.version = try txn.storedVersion(forKey: key, inCollection: collection) ?? 0
            let metadata = try txn.storedValue(metadata: true, forKey: key, inCollection: collection).map {
                StoredValue(format: $0.format, payload: $0.bytes, version: $0.version)
            }
            let record = ExchangeRecord(collection: collection, key: key, object: object, metadata: metadata,
                                        objectVersionGiven: versioned.object, metadataVersionGiven: versioned.metadata)
            out.write(record.line() + [0x0A])
        }
        try out.checkWrites()
    }
}
#endif
