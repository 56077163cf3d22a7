#if Extras
import ArgumentParser
import Larder

/// `larder check`: the store's structure, and what the tool can say about its extensions.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a store's structure; the status is 4 when problems are found.",
        discussion: """
            First verifies the data file's pages without LMDB (both meta pages, the file's length, \
            every page of every tree: page numbers, flags, node offsets and sizes, key order, \
            counts); a damaged store is reported from that alone, status 4, even when it cannot \
            be opened. Then checks every key, format byte and MessagePack value, the collection \
            counts, metadata without objects, the change log, the extension records and the undo \
            history, in one read transaction. The state of extensions is not verified: that needs them registered, \
            and only the program that defines an extension has its closures. Call \
            db.verifyExtensions() there.
            """)

    @OptionGroup var store: StoreArgument
    @Flag(help: "Print the report as JSON.") var json = false

    func run() throws {
        // The pages first, without LMDB: a store LMDB refuses to open (a damaged meta page) or
        // would assert on is reported here, and nothing else is read from it.
        if let pages = try? Database.verifyPages(path: store.path), !pages.isConsistent {
            return try report(pages, extensions: [])
        }
        let db = try StoreArgument.open(store.path, readOnly: true, verifying: false)
        let (report, extensions) = try withStoreErrors { (try db.checkStructure(), try db.recordedExtensions()) }
        try self.report(report, extensions: extensions)
    }

    private func report(_ report: StructureReport, extensions: [RecordedExtension]) throws {
        let reason = "not registered: the command-line tool cannot register extensions (their closures live in the program that defines them); call verifyExtensions() there"
        if json {
            sayJSON(.object([
                JSONMember("consistent", .bool(report.isConsistent)),
                JSONMember("problemCount", .integer(Int64(report.problemCount))),
                JSONMember("problems", .array(report.problems.map(Self.json))),
                JSONMember("checked", .object([
                    JSONMember("objects", .integer(Int64(report.objectsChecked))),
                    JSONMember("metadata", .integer(Int64(report.metadataChecked))),
                    JSONMember("collections", .integer(Int64(report.collectionsChecked))),
                    JSONMember("changeLogEntries", .integer(Int64(report.changeLogEntriesChecked))),
                    JSONMember("extensionRecords", .integer(Int64(report.extensionRecordsChecked))),
                    JSONMember("pages", .integer(Int64(report.pagesChecked))),
                ])),
                JSONMember("extensions", .array(extensions.map {
                    .object([JSONMember("name", .string($0.name)), JSONMember("verified", .bool(false)), JSONMember("reason", .string(reason))])
                })),
                JSONMember("compactLeftovers", .array(CompactLeftover.find(beside: store.path).map(CompactLeftover.json))),
            ]))
        } else {
            say("verified \(count(report.pagesChecked, "page")) of the data file")
            if report.problems.contains(where: { $0.kind == .page || $0.kind == .metaPage }) {
                say("the pages are damaged: nothing else was read (LMDB cannot walk damaged pages safely)")
            } else {
                say("checked \(count(report.objectsChecked, "object")), \(count(report.metadataChecked, "metadata value")), the counts of \(count(report.collectionsChecked, "collection")), \(count(report.changeLogEntriesChecked, "change log entry", "change log entries")), \(count(report.extensionRecordsChecked, "extension record"))")
            }
            for problem in report.problems { say("problem: \(problem)") }
            if report.problemCount > report.problems.count { say("… and \(report.problemCount - report.problems.count) more problems") }
            for record in extensions { say("extension \(record.name) (\(record.kind)) not verified: \(reason)") }
            for leftover in CompactLeftover.find(beside: store.path) { say("compact copy: " + leftover.summary) }
            say(report.isConsistent ? "structure: consistent" : "structure: \(report.problemCount) problem\(report.problemCount == 1 ? "" : "s")")
        }
        if !report.isConsistent { throw CommandFailure(.checkFailed, "the check found \(report.problemCount) problem\(report.problemCount == 1 ? "" : "s")") }
    }

    /// `3 objects`, `1 object`.
    private func count(_ number: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(number) " + (number == 1 ? singular : plural ?? singular + "s")
    }

    static func json(_ problem: StructureProblem) -> JSONValue {
        var members = [JSONMember("kind", .string(problem.kind.rawValue)), JSONMember("detail", .string(problem.detail))]
        if let index = problem.index {
            members.append(JSONMember("collection", .string(index.collection)))
            if !index.key.isEmpty { members.append(JSONMember("key", .string(index.key))) }
        }
        return .object(members)
    }
}
#endif
