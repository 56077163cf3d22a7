#if Extras
import ArgumentParser
import Foundation
import Larder

/// `larder info`: what a store is and holds.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a store's format, map size and use, entries, readers, collections and extensions.",
        discussion: "Reads the store only. Extensions are those recorded in the store by the programs that registered them.")

    @OptionGroup var store: StoreArgument
    @Flag(help: "Print one JSON object instead of text.") var json = false

    func run() throws {
        let db = try store.open()
        let (statistics, collections, extensions) = try withStoreErrors {
            (try db.statistics(), try CollectionsCommand.counts(db), try db.recordedExtensions())
        }
        let readers = ReadersCommand.otherReaders(db)
        let leftovers = CompactLeftover.find(beside: store.path)
        if json {
            sayJSON(.object([
                JSONMember("path", .string(db.path)),
                JSONMember("singleFile", .bool(statistics.isSingleFile)),
                JSONMember("formatVersion", .integer(Int64(statistics.formatVersion))),
                JSONMember("mapSize", .integer(Int64(statistics.mapSize))),
                JSONMember("usedBytes", .integer(Int64(statistics.usedBytes))),
                JSONMember("fileSize", statistics.fileSize.map { .integer(Int64($0)) } ?? .null),
                JSONMember("pageSize", .integer(Int64(statistics.pageSize))),
                JSONMember("maxKeySize", .integer(Int64(statistics.maxKeySize))),
                JSONMember("maxReaders", .integer(Int64(statistics.maxReaders))),
                JSONMember("objects", .integer(Int64(statistics.objectCount))),
                JSONMember("metadata", .integer(Int64(statistics.metadataCount))),
                JSONMember("lastCommit", .unsigned(statistics.lastCommit)),
                JSONMember("changeLogEntries", .integer(Int64(statistics.changeLogEntries))),
                JSONMember("collections", CollectionsCommand.json(collections)),
                JSONMember("readers", .array(readers.map(ReadersCommand.json))),
                JSONMember("extensions", .array(extensions.map(Self.json))),
                JSONMember("compactLeftovers", .array(leftovers.map(CompactLeftover.json))),
            ]))
            return
        }
        let used = statistics.mapSize > 0 ? statistics.usedBytes * 100 / statistics.mapSize : 0
        say("store:        \(db.path) (\(statistics.isSingleFile ? "single file" : "directory"))")
        say("format:       version \(statistics.formatVersion) (this larder reads up to \(LarderVersion.storeFormat))")
        say("map:          \(byteCount(statistics.mapSize)), \(byteCount(statistics.usedBytes)) used (\(used)%); data file \(statistics.fileSize.map(byteCount) ?? "unknown"); page size \(statistics.pageSize) bytes")
        say("entries:      \(statistics.objectCount) objects, \(statistics.metadataCount) metadata values, \(collections.count) collection\(collections.count == 1 ? "" : "s")")
        say("last commit:  \(statistics.lastCommit) (the change log holds \(statistics.changeLogEntries))")
        say("readers:      " + (readers.isEmpty ? "none" : "\(readers.count): " + readers.map(ReadersCommand.summary).joined(separator: "; ")))
        say("collections:" + (collections.isEmpty ? "  none" : ""))
        let width = collections.map { Self.quote($0.name).count }.max() ?? 0
        for collection in collections {
            let name = Self.quote(collection.name)
            say("  " + name + String(repeating: " ", count: width - name.count) + "  \(collection.count)")
        }
        say("extensions:" + (extensions.isEmpty ? "   none" : ""))
        for record in extensions {
            var line = "  \(record.name)  \(record.kind)  tag \(Self.quote(record.versionTag))"
            line += "  collections: " + (record.collections?.map(Self.quote).joined(separator: ", ") ?? "all")
            if !record.dependencies.isEmpty { line += "  built from: " + record.dependencies.joined(separator: ", ") }
            if record.isStale { line += "  (stale: rebuilt at its next registration)" }
            say(line)
        }
        for leftover in leftovers { say("compact copy: " + leftover.summary) }
    }

    /// A name in double quotes, whole (an empty collection shows as `""`).
    static func quote(_ text: String) -> String { VisibleText.quoted(text) }

    static func json(_ record: RecordedExtension) -> JSONValue {
        .object([
            JSONMember("name", .string(record.name)),
            JSONMember("kind", .string(record.kind)),
            JSONMember("versionTag", .string(record.versionTag)),
            JSONMember("collections", record.collections.map(jsonStrings) ?? .null),
            JSONMember("dependencies", jsonStrings(record.dependencies)),
            JSONMember("stale", .bool(record.isStale)),
        ])
    }
}
#endif
