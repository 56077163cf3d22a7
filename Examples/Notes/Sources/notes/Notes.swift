import Foundation
import Larder
import LarderAdapters
import Logging
import NotesKit

/// The `notes` command. With no arguments it runs a scripted demo on a temporary store;
/// otherwise `add TITLE BODY TAG…`, `list TAG`, `search QUERY` or `undo` work on the store at
/// `$NOTES_STORE` (default `./notes-store`).
@main
struct NotesCommand {
    static func main() async throws {
        // Larder's events to swift-log (openings, closings, slow commits, failed writes) and to
        // swift-metrics (commits, rows written, map size...): bootstrap a metrics backend
        // (Prometheus, OpenTelemetry...) with `MetricsSystem.bootstrap` to collect them.
        var logger = Logger(label: "notes.store")
        logger.logLevel = .info
        var configuration = Database.Configuration()
        configuration.log(to: logger)
        configuration.recordMetrics(LarderMetrics(dimensions: [("store", "notes")]))

        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first else { return try await demo(configuration) }
        let store = try NotesStore(path: ProcessInfo.processInfo.environment["NOTES_STORE"] ?? "notes-store", configuration: configuration)
        switch (command, arguments.count) {
        case ("add", 3...):
            try await store.save(Note(title: arguments[1], body: arguments[2], tags: Array(arguments[3...])))
        case ("list", 2):
            for note in try await store.notes(taggedWith: arguments[1]) { print(note.modified.formatted(), note.title) }
        case ("search", 2):
            for hit in try await store.search(arguments[1]) { print("\(hit.note.title): \(hit.snippet)") }
        case ("undo", 1):
            print(try await store.undo().map { "undid \($0)" } ?? "nothing to undo")
        default:
            await store.close()
            print("usage: notes [add TITLE BODY TAG… | list TAG | search QUERY | undo]")
            exit(2)
        }
        await store.close()
    }

    /// Every feature in turn, on a temporary store that is removed at the end.
    static func demo(_ configuration: Database.Configuration) async throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "notes-demo-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }

        // A store left by the app's first release, whose notes had one tag.
        let old = try Database(path: path)
        try await old.write { txn in
            try txn.setObject(NoteV1(id: "n0", title: "Old idea", body: "A note from the first release.", tag: "ideas", modified: .now - 86_400),
                              forKey: "n0", inCollection: Note.collection)
        }
        await old.close()

        let store = try NotesStore(path: path, configuration: configuration)
        print("migrated:", try await store.note(id: "n0").map { "\($0.title), tags \($0.tags)" } ?? "-")
        print("rewritten:", try await store.migrateAll())

        let now = Date.now
        try await store.save(Note(id: "n1", title: "Groceries", body: "Milk, eggs and bread for the weekend.", tags: ["home", "shopping"], modified: now - 3_600))
        try await store.save(Note(id: "n2", title: "Plants", body: "Water the fern on Monday; repot the basil.", tags: ["home"], modified: now - 600))
        try await store.save(Note(id: "n3", title: "Standup", body: "Ship the search snippets, then review the migration.", tags: ["work"], modified: now - 60))
        for tag in try await store.tags() {
            print("#\(tag):", try await store.notes(taggedWith: tag).map(\.title))
        }
        print("titled Plants:", try await store.notes(titled: "Plants").map(\.id))
        for hit in try await store.search("water basil") { print("search water basil: \(hit.note.title): \(hit.snippet)") }

        var home = store.follow(tag: "home").makeAsyncIterator()
        print("following #home:", try await home.next()?.map(\.title) ?? [])
        try await store.save(Note(id: "n4", title: "Boiler", body: "Call the plumber about the boiler.", tags: ["home"]))
        print("after a save:", try await home.next()?.map(\.title) ?? [])

        print("undo:", try await store.undo() ?? "-", "->", try await store.notes(taggedWith: "home").map(\.title))
        print("redo:", try await store.redo() ?? "-", "->", try await store.notes(taggedWith: "home").map(\.title))
        await store.close()
    }
}
