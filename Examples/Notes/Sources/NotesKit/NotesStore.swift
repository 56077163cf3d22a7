import Foundation
import Larder

/// A search result: the note, and an extract of its body with the matched words in [brackets].
public struct SearchHit: Sendable {
    public let note: Note
    public let snippet: String
}

/// The app's store: a Larder database with the migrations and extensions the app needs,
/// registered once, when it opens. Every write is an undoable step.
public struct NotesStore: Sendable {
    /// The database, for anything this type does not wrap.
    public let db: Database
    /// Notes grouped by tag, newest first; a note with several tags is in each tag's group.
    let byTag: ViewHandle<Note, NoMetadata>
    /// Notes by title.
    let byTitle: SecondaryIndexHandle<Note, NoMetadata>
    /// The words of each note's title and body.
    let words: FullTextSearchHandle<Note, NoMetadata>

    /// Opens (or creates) the store at `path`.
    public init(path: String, configuration: Database.Configuration = .init()) throws {
        db = try Database(path: path, configuration: configuration)
        // Migrations first, so the extensions below read every note as the current `Note`.
        db.registerMigrations(of: Note.self)
        byTag = try db.register(AutoView<Note, NoMetadata>(collections: [Note.collection], versionTag: "1",
            groups: { _, note in note.tags },
            sorting: { _, note in TupleKey(Descending(note.modified), note.title) }), named: "byTag")
        byTitle = try db.register(SecondaryIndex<Note, NoMetadata>(collections: [Note.collection], versionTag: "1") { _, note in
            TupleKey(note.title)
        }, named: "byTitle")
        words = try db.register(FullTextSearch<Note, NoMetadata>(
            collections: [Note.collection], versionTag: "1",
            tokenizer: FullTextTokenizer(stemming: .english),
            columnNames: ["title", "body"], columnWeights: [2, 1]
        ) { _, note in [note.title, note.body] }, named: "words")
    }

    // MARK: Writes

    /// Saves a new or edited note, as an undoable step.
    public func save(_ note: Note) async throws {
        try await db.write(undoable: "Save \(note.title)") { try $0.write(note) }
    }

    /// Deletes a note, as an undoable step.
    public func delete(id: String) async throws {
        try await db.write(undoable: "Delete note") { try $0.remove(Note.self, key: id) }
    }

    /// Undoes the last step; returns its name, or `nil` when there is nothing to undo.
    @discardableResult
    public func undo() async throws -> String? {
        try await db.write { try $0.undo() }?.name
    }

    /// Redoes the last undone step; returns its name, or `nil` when there is nothing to redo.
    @discardableResult
    public func redo() async throws -> String? {
        try await db.write { try $0.redo() }?.name
    }

    // MARK: Reads

    /// A note by its identifier.
    public func note(id: String) async throws -> Note? {
        try await db.read { try $0.read(Note.self, key: id) }
    }

    /// Every tag in use, in byte order.
    public func tags() async throws -> [String] {
        try await db.read { txn in try txn[byTag].groups() }
    }

    /// The notes tagged `tag`, newest first.
    public func notes(taggedWith tag: String, limit: Int = 50) async throws -> [Note] {
        try await db.read { txn in try txn[byTag].objects(inGroup: tag, positions: 0..<limit).map(\.object) }
    }

    /// The notes titled `title` exactly, found through the title index (no scan).
    public func notes(titled title: String) async throws -> [Note] {
        try await db.read { txn in try txn[byTitle].objects(matching: .equal(TupleKey(title))).map(\.object) }
    }

    /// The best matches of `query` (`swift vapor`, `"a phrase"`, `pre*`, `OR`, `NOT`, `title:word`).
    public func search(_ query: String, limit: Int = 10) async throws -> [SearchHit] {
        try await db.read { txn in
            try txn[words].objects(matching: query, limit: limit).map { index, note in
                let snippet = try txn[words].snippet(for: index, column: "body", matching: query, before: "[", after: "]")
                return SearchHit(note: note, snippet: snippet ?? note.body)
            }
        }
    }

    /// The notes tagged `tag`, newest first: now, then again after every commit that changes them.
    public func follow(tag: String, limit: Int = 50) -> some AsyncSequence<[Note], any Error> {
        db.observe(byTag, groups: [tag], range: .first(limit)).map(\.objects)
    }

    /// Rewrites the notes stored by older versions of the app (reads migrate them anyway, lazily).
    /// - Returns: how many were rewritten.
    @discardableResult
    public func migrateAll() async throws -> Int {
        try await db.migrate(collection: Note.collection, priority: .utility).migrated
    }

    /// Closes the store, once the writes already queued have committed.
    public func close() async {
        await db.close()
    }
}
