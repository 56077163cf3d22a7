#if Extras
import ArgumentParser
import Foundation
import Larder

/// `larder migrate`: the versions of a collection's values, and a step of field changes applied
/// to every value one version behind, in chunked transactions.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Show the versions of a collection's values, or rewrite them one version up with field changes.",
        discussion: """
            Without --to, prints how many values of the collection are at each version (values \
            written before any version was declared are at version 0). With --to N, every value \
            at version N-1 is rewritten at version N with the field changes given (renames, then \
            additions, then removals; the value must be a MessagePack map, as a Codable struct \
            is), --chunk-size values per transaction; values already at N are left alone. Before \
            anything is written the collection is checked: a value older than N-1 or newer than \
            N stops the command with status 3 and nothing written. A migration that stops (a \
            failure, a killed process) keeps the chunks it committed; run the same command again \
            to finish it. Steps written in Swift (closures, conversions between types) run in the \
            program with Database.migrate(collection:).
            """)

    @OptionGroup var store: StoreArgument
    @Argument(help: "The collection.") var collection: String
    @Flag(help: "Work on the collection's metadata instead of its objects.") var metadata = false
    @Option(help: ArgumentHelp("The version to migrate values to (from the version before it).", valueName: "N")) var to: Int?
    @Option(help: ArgumentHelp("Rename a field (repeatable).", valueName: "old=new")) var rename: [String] = []
    @Option(help: ArgumentHelp("Add a field with a JSON value, where it is missing (repeatable).", valueName: "name=JSON")) var add: [String] = []
    @Option(help: ArgumentHelp("Remove a field (repeatable).", valueName: "name")) var remove: [String] = []
    @Option(help: "Values per transaction.") var chunkSize = 1000
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws {
        if chunkSize < 1 { throw ValidationError("--chunk-size must be at least 1") }
        if let to, to < 1 || to > Int(UInt32.max) { throw ValidationError("--to must be from 1 to \(UInt32.max)") }
        if to == nil && !(rename.isEmpty && add.isEmpty && remove.isEmpty) {
            throw ValidationError("--rename, --add and --remove need --to (the version they migrate to)")
        }
    }

    func run() throws {
        let db = try store.open(readOnly: to == nil)
        let before = try withStoreErrors { try db.storedVersions(inCollection: collection, metadata: metadata) }
        guard let to else { return report(versions: before) }
        let changes = try fieldChanges()
        if let stray = before.keys.filter({ $0 < to - 1 || $0 > to }).min() {
            throw CommandFailure(.badInput, "\(before[stray] ?? 0) value\(before[stray] == 1 ? " is" : "s are") at version \(stray) of \(CommandFailure.quoted(collection)); this command migrates version \(to - 1) to \(to): \(stray < to - 1 ? "migrate the older values first" : "they are newer than the version asked for") (nothing was written)")
        }
        db.register(ValueMigrations(collection: collection, metadata: metadata, currentVersion: to, steps: [MigrationStep(from: to - 1, changes: changes)]))
        let progress = ProgressBar("migrate", unit: .records)
        var transactions = 0
        let result = try withStoreErrors {
            try db.migrate(collection: collection, metadata: metadata, chunkSize: chunkSize) { step in
                transactions += 1
                progress.update(step.scanned, of: step.total)
            }
        }
        progress.finish()
        if json {
            sayJSON(.object([
                JSONMember("collection", .string(collection)),
                JSONMember("version", .integer(Int64(to))),
                JSONMember("scanned", .integer(Int64(result.scanned))),
                JSONMember("migrated", .integer(Int64(result.migrated))),
                JSONMember("transactions", .integer(Int64(transactions))),
            ]))
        } else {
            say("migrated \(result.migrated) of \(result.scanned) value\(result.scanned == 1 ? "" : "s") of \(CommandFailure.quoted(collection)) to version \(to) in \(transactions) transaction\(transactions == 1 ? "" : "s")")
        }
    }

    /// Prints how many values are at each version.
    private func report(versions: [Int: Int]) {
        let sorted = versions.sorted { $0.key < $1.key }
        if json {
            sayJSON(.object([
                JSONMember("collection", .string(collection)),
                JSONMember("versions", .object(sorted.map { JSONMember(String($0.key), .integer(Int64($0.value))) })),
            ]))
        } else if sorted.isEmpty {
            say("\(CommandFailure.quoted(collection)) has no \(metadata ? "metadata" : "values")")
        } else {
            for (version, count) in sorted { say("version \(version): \(count) value\(count == 1 ? "" : "s")") }
        }
    }

    /// The field changes the options give, in the order the step makes them.
    private func fieldChanges() throws -> [FieldChange] {
        var changes: [FieldChange] = []
        for pair in rename {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw CommandFailure(.badInput, "--rename takes old=new, not \(CommandFailure.quoted(pair))")
            }
            changes.append(.rename(String(parts[0]), to: String(parts[1])))
        }
        for pair in add {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw CommandFailure(.badInput, "--add takes name=JSON, not \(CommandFailure.quoted(pair))")
            }
            let value: JSONValue
            do {
                value = try JSONParser.parse(Array(parts[1].utf8))
            } catch {
                throw CommandFailure(.badInput, "the value of --add \(CommandFailure.quoted(String(parts[0]))) is not JSON: \(error)")
            }
            changes.append(.add(String(parts[0]), value: value.messagePack))
        }
        for name in remove {
            guard !name.isEmpty else { throw CommandFailure(.badInput, "--remove takes a field name") }
            changes.append(.remove(name))
        }
        return changes
    }
}
#endif
