#if Extras
import ArgumentParser
import Foundation
import Larder

/// `larder import`: JSON Lines records (export's format) into a store, in chunked transactions.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store the records of a JSON Lines file (export's format), in chunked transactions.",
        discussion: """
            Each record replaces what is stored at its collection and key (object and metadata; a \
            record without metadata leaves none). Records are written --chunk-size at a time, one \
            transaction per chunk: a line that is not a valid record stops the import with status \
            3, after the chunks before it were committed and with nothing of its own chunk \
            written. Blank lines are skipped. With --dry-run each chunk is written in a \
            transaction that is rolled back, so every record is checked as a real import would \
            check it and the store is left unchanged. A progress bar is drawn on standard error when it is \
            a terminal.

            A record says which version of its collection's values it holds with "version" (and \
            "metadataVersion"); --version (and --metadata-version) give one to the records that \
            say none. A record that says none, imported without --version into a collection \
            whose values carry versions (in the store, or in the lines before it), is refused \
            with status 3 like a bad line: the program that reads them may declare no step from \
            version 0 (export writes "version": 0 outright for such values, so its files import).
            """)

    @OptionGroup var store: StoreArgument
    @Argument(help: ArgumentHelp("The JSON Lines file; - or nothing reads standard input.", valueName: "file")) var input: String?
    @Option(help: "Records per transaction.") var chunkSize = 1000
    @Flag(help: "Create the store if there is nothing at its path.") var create = false
    @Flag(help: "Print the summary as JSON.") var json = false
    @Flag(help: "Read and check every record, each chunk in a transaction that is rolled back: count what would be imported and write nothing.") var dryRun = false
    @Option(help: ArgumentHelp("The version of its collection's values a record that gives none is at (0: none).", valueName: "n")) var version: Int?
    @Option(name: .customLong("metadata-version"), help: ArgumentHelp("The version the metadata of a record that gives none is at (0: none).", valueName: "n")) var metadataVersion: Int?

    func validate() throws {
        if chunkSize < 1 { throw ValidationError("--chunk-size must be at least 1") }
        for (name, value) in [("--version", version), ("--metadata-version", metadataVersion)] {
            if let value, value < 0 || value > Int(UInt32.max) { throw ValidationError("\(name) must be a whole number from 0 to \(UInt32.max)") }
        }
    }

    func run() throws {
        let tally = Tally()
        do {
            try importRecords(into: tally)
        } catch {
            let failure = (error as? CommandFailure) ?? (error as? LarderError).map { CommandFailure($0) } ?? CommandFailure(.storeError, "\(error)")
            throw CommandFailure(failure.status, failure.message + " (" + (dryRun ? "dry run: nothing was written" : tally.committed) + ")")
        }
        if json {
            sayJSON(.object([
                JSONMember("records", .integer(Int64(tally.records))),
                JSONMember("collections", .integer(Int64(tally.collections.count))),
                JSONMember("transactions", .integer(Int64(tally.transactions))),
                JSONMember("dryRun", .bool(dryRun)),
            ]))
        } else {
            let (records, collections, transactions) = (tally.records, tally.collections.count, tally.transactions)
            say((dryRun ? "dry run: would import " : "imported ") + "\(records) record\(records == 1 ? "" : "s") into \(collections) collection\(collections == 1 ? "" : "s") in \(transactions) transaction\(transactions == 1 ? "" : "s")" + (dryRun ? "; nothing was written" : ""))
        }
    }

    /// What an import has committed so far.
    final class Tally {
        var records = 0
        var transactions = 0
        /// By their bytes: two collections whose names Swift calls equal are two.
        var collections = Set<ExactString>()

        /// What an import that stopped leaves in the store: the chunks committed before the
        /// failure (they stay), never a part of the failed one.
        var committed: String {
            guard records > 0 else { return "nothing was imported" }
            return "\(records) record\(records == 1 ? " was" : "s were") committed before it, in \(transactions) transaction\(transactions == 1 ? "" : "s"), and stay\(records == 1 ? "s" : "") in the store; nothing after \(records == 1 ? "it" : "them") was written"
        }
    }

    private func importRecords(into tally: Tally) throws {
        let reader = try LineReader(path: input)
        // A dry run with --create and no store at the path checks the records alone: it creates nothing.
        let creates = create && !FileManager.default.fileExists(atPath: store.path)
        let db: Database? = creates && dryRun ? nil : creates ? try StoreArgument.open(store.path, create: true) : try store.open(readOnly: false)
        let progress = ProgressBar(dryRun ? "checking" : "importing", unit: .bytes)
        defer { progress.finish() }
        var chunk: [(line: Int, record: ExchangeRecord)] = []
        func flush() throws {
            guard let first = chunk.first?.line, let last = chunk.last?.line else { return }
            if let db {
                try withStoreErrors(context: first == last ? "line \(first)" : "lines \(first)–\(last)") {
                    try db.write { txn in
                        for (line, record) in chunk {
                            do {
                                try txn.setStored(record.object, metadata: record.metadata, forKey: record.key, inCollection: record.collection)
                            } catch let error as LarderError {
                                throw CommandFailure(error, context: "line \(line)")
                            }
                        }
                        if dryRun { txn.rollback() }
                    }
                }
            }
            tally.records += chunk.count
            tally.transactions += 1
            for entry in chunk { tally.collections.insert(ExactString(entry.record.collection)) }
            chunk.removeAll(keepingCapacity: true)
            progress.update(reader.bytesRead, of: reader.size, detail: "\(tally.records) records")
        }
        let versions = VersionRule(db: db, version: version, metadataVersion: metadataVersion)
        while let (number, line) = try reader.next() {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            var record: ExchangeRecord
            do {
                record = try ExchangeRecord(line: line)
            } catch {
                throw CommandFailure(.badInput, "line \(number): \(error.message)")
            }
            try versions.apply(to: &record, line: number)
            chunk.append((number, record))
            if chunk.count >= chunkSize { try flush() }
        }
        try flush()
    }

    /// The versions of records that give none: `--version` (`--metadata-version`) when given;
    /// otherwise such a record is refused in a collection whose values (metadata) carry versions,
    /// in the store or in the records before it.
    final class VersionRule {
        let db: Database?
        let version: Int?
        let metadataVersion: Int?
        /// Whether each collection's values (`.0`) and metadata (`.1`) carry versions, by bytes.
        private var versioned: [ExactString: (object: Bool, metadata: Bool)] = [:]

        init(db: Database?, version: Int?, metadataVersion: Int?) {
            self.db = db
            self.version = version
            self.metadataVersion = metadataVersion
        }

        func apply(to record: inout ExchangeRecord, line: Int) throws {
            let name = ExactString(record.collection)
            if !record.objectVersionGiven, let version {
                record.object.version = version
                record.objectVersionGiven = true
            }
            if record.metadata != nil, !record.metadataVersionGiven, let metadataVersion {
                record.metadata?.version = metadataVersion
                record.metadataVersionGiven = true
            }
            var known = try versioned[name] ?? stored(record.collection, line: line)
            if !record.objectVersionGiven, known.object {
                throw refusal(line: line, collection: record.collection, what: "values", flag: "--version", member: "version")
            }
            if record.metadata != nil, !record.metadataVersionGiven, known.metadata {
                throw refusal(line: line, collection: record.collection, what: "metadata", flag: "--metadata-version", member: "metadataVersion")
            }
            known.object = known.object || record.object.version > 0
            known.metadata = known.metadata || (record.metadata?.version ?? 0) > 0
            versioned[name] = known
        }

        /// Whether `collection`'s values and metadata carry versions in the store.
        private func stored(_ collection: String, line: Int) throws -> (object: Bool, metadata: Bool) {
            guard let db else { return (false, false) }
            return try withStoreErrors(context: "line \(line)") { try db.read { try $0.carriesVersions(inCollection: collection) } }
        }

        private func refusal(line: Int, collection: String, what: String, flag: String, member: String) -> CommandFailure {
            CommandFailure(
                .badInput,
                "line \(line): the \(what) of \(CommandFailure.quoted(collection)) carry versions, and the record gives no \"\(member)\"; give the records that say none a version with \(flag) (\(flag) 0 imports them unversioned, which the program must be able to migrate from version 0)")
        }
    }
}
#endif
