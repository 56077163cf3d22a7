import Foundation
import Larder
import NotesKit
import Testing

/// Every feature of `NotesStore`, each test on a store of its own in a temporary directory.
struct NotesStoreTests {
    @Test func eachTagListsItsNotesNewestFirst() async throws {
        try await withStore { store in
            try await store.save(note("n1", "Groceries", tags: ["home"], minutesAgo: 60))
            try await store.save(note("n2", "Plants", tags: ["home"], minutesAgo: 1))
            try await store.save(note("n3", "Boiler", tags: ["home"], minutesAgo: 30))
            try await store.save(note("n4", "Standup", tags: ["work"], minutesAgo: 5))
            #expect(try await store.notes(taggedWith: "home").map(\.title) == ["Plants", "Boiler", "Groceries"])
            #expect(try await store.notes(taggedWith: "work").map(\.title) == ["Standup"])
        }
    }

    @Test func aNoteWithTwoTagsIsInBothGroups() async throws {
        try await withStore { store in
            try await store.save(note("n1", "Groceries", tags: ["home", "shopping"], minutesAgo: 60))
            #expect(try await store.tags() == ["home", "shopping"])
            #expect(try await store.notes(taggedWith: "home").map(\.id) == ["n1"])
            #expect(try await store.notes(taggedWith: "shopping").map(\.id) == ["n1"])
        }
    }

    @Test func theTitleIndexFindsANoteAndFollowsEdits() async throws {
        try await withStore { store in
            var plants = note("n1", "Plants", tags: ["home"], minutesAgo: 1)
            try await store.save(plants)
            try await store.save(note("n2", "Groceries", tags: ["home"], minutesAgo: 2))
            #expect(try await store.notes(titled: "Plants").map(\.id) == ["n1"])
            plants.title = "Garden"
            try await store.save(plants)
            #expect(try await store.notes(titled: "Plants").isEmpty)
            #expect(try await store.notes(titled: "Garden").map(\.id) == ["n1"])
        }
    }

    @Test func searchFindsStemsAndMarksThemInASnippet() async throws {
        try await withStore { store in
            try await store.save(note("n1", "Plants", body: "Water the fern on Monday; repot the basil.", tags: ["home"], minutesAgo: 1))
            try await store.save(note("n2", "Groceries", body: "Milk, eggs and bread.", tags: ["home"], minutesAgo: 2))
            let hits = try await store.search("watering basil")   // "watering" and "Water" have one stem
            #expect(hits.map(\.note.id) == ["n1"])
            #expect(hits.first?.snippet.contains("[basil]") == true)
            #expect(hits.first?.snippet.contains("[Water]") == true)
        }
    }

    @Test func followingATagDeliversAnUpdateAfterAWrite() async throws {
        try await withStore { store in
            try await store.save(note("n1", "Groceries", tags: ["home"], minutesAgo: 60))
            let (before, after) = try await withDeadline {
                var home = store.follow(tag: "home").makeAsyncIterator()
                let before = try await home.next()
                try await store.save(note("n2", "Plants", tags: ["home"], minutesAgo: 1))
                return (before?.map(\.title), try await home.next()?.map(\.title))
            }
            #expect(before == ["Groceries"])
            #expect(after == ["Plants", "Groceries"])
        }
    }

    @Test func undoAndRedoRestoreEditsAndDeletions() async throws {
        try await withStore { store in
            var plants = note("n1", "Plants", body: "Water the fern.", tags: ["home"], minutesAgo: 1)
            try await store.save(plants)
            plants.body = "Water the fern and the basil."
            try await store.save(plants)
            #expect(try await store.undo() == "Save Plants")
            #expect(try await store.note(id: "n1")?.body == "Water the fern.")
            #expect(try await store.redo() == "Save Plants")
            #expect(try await store.note(id: "n1")?.body == "Water the fern and the basil.")

            try await store.delete(id: "n1")
            #expect(try await store.notes(taggedWith: "home").isEmpty)
            #expect(try await store.undo() == "Delete note")
            #expect(try await store.notes(taggedWith: "home") == [plants])
        }
    }

    @Test func aStoreOfTheFirstReleaseIsReadAndMigrated() async throws {
        try await withStore(prepare: writeFirstRelease) { store in
            let versionsBefore = try store.db.storedVersions(inCollection: "notes")
            // Read lazily: the values are still version 0 on disk.
            #expect(versionsBefore == [0: 2])
            #expect(try await store.note(id: "n1")?.tags == ["ideas"])
            #expect(try await store.note(id: "n2")?.tags == [])
            #expect(try await store.notes(taggedWith: "ideas").map(\.id) == ["n1"])
            #expect(try await store.search("idea").map(\.note.id) == ["n1"])
            // Rewritten eagerly.
            #expect(try await store.migrateAll() == 2)
            #expect(try store.db.storedVersions(inCollection: "notes") == [1: 2])
            #expect(try store.db.verifyExtensions().isEmpty)
        }
    }
}

/// Writes what the app's first release wrote: `NoteV1`s (one tag each), no version declared.
func writeFirstRelease(at path: String) async throws {
    let old = try Database(path: path)
    try await old.write { txn in
        try txn.setObject(NoteV1(id: "n1", title: "Old idea", body: "From the first release.", tag: "ideas", modified: .now),
                          forKey: "n1", inCollection: "notes")
        try txn.setObject(NoteV1(id: "n2", title: "Untagged", body: "No tag.", tag: "", modified: .now),
                          forKey: "n2", inCollection: "notes")
    }
    await old.close()
}

/// A note modified `minutesAgo` minutes ago.
func note(_ id: String, _ title: String, body: String = "", tags: [String], minutesAgo: Double) -> Note {
    Note(id: id, title: title, body: body, tags: tags, modified: .now - minutesAgo * 60)
}

/// Runs `body` on a store in a new directory under the temporary directory, then closes the
/// store and removes the directory. `prepare` may write there first, as an older release would.
func withStore(prepare: (String) async throws -> Void = { _ in }, _ body: (NotesStore) async throws -> Void) async throws {
    let path = FileManager.default.temporaryDirectory.appending(path: "notes-tests-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try await prepare(path)
    let store = try NotesStore(path: path)
    do {
        try await body(store)
    } catch {
        await store.close()
        throw error
    }
    await store.close()
}

/// `body`'s result, or an error once `seconds` have passed: a test never waits forever.
func withDeadline<T: Sendable>(seconds: Int = 10, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask(operation: body)
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw DeadlinePassed()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// What `withDeadline` throws when the time is up.
struct DeadlinePassed: Error {}
