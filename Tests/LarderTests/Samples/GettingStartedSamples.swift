import Testing
import Larder

/// Documentation/GettingStarted.md and the DocC catalog's landing page and Getting started article.
@Suite("Samples: Getting started")
struct GettingStartedSamples: OpensStoresByPath {
    let environment = SampleEnvironment()

    /// The guide's `main.swift`, then the two samples after it, which use its `db` and `Note`.
    @Test func theGuidesProgram() throws {
        struct Note: Codable, Persistable {
            static let collection = "notes"
            var id: String
            var text: String
        }

        let db = try Database(path: "notes-store")

        try db.write { txn in
            try txn.write(Note(id: "n1", text: "Buy nails"))
            try txn.write(Note(id: "n2", text: "Fix the shelf"))
        }

        let notes = try db.read { try $0.readAll(Note.self) }
        for note in notes {
            print("\(note.id): \(note.text)")
        }

        // The output the guide shows.
        #expect(environment.printed == ["n1: Buy nails", "n2: Fix the shelf"])
        #expect(db.path.hasPrefix(environment.directory))

        try db.write { try $0.setObject(42, forKey: "answer", inCollection: "settings") }
        let answer = try db.read { try $0.object(forKey: "answer", inCollection: "settings", as: Int.self) }
        #expect(answer == 42)
    }

    /// The guide's sample of the same calls from `async` code.
    @Test func theAsyncCalls() async throws {
        struct Note: Codable, Persistable {
            static let collection = "notes"
            var id: String
            var text: String
        }
        let db = try Database(path: "notes-store")

        try await db.write { txn in
            try txn.write(Note(id: "n3", text: "Call the plumber"))
        }
        let count = try await db.read { try $0.numberOfKeys(inCollection: "notes") }

        #expect(count == 1)
    }

    /// Running the program again finds the notes it stored the first time.
    @Test func theProgramAgainReadsTheSameNotes() throws {
        struct Note: Codable, Persistable {
            static let collection = "notes"
            var id: String
            var text: String
        }
        for _ in 0..<2 {
            let db = try Database(path: "notes-store")
            try db.write { txn in
                try txn.write(Note(id: "n1", text: "Buy nails"))
                try txn.write(Note(id: "n2", text: "Fix the shelf"))
            }
            #expect(try db.read { try $0.readAll(Note.self) }.map(\.text) == ["Buy nails", "Fix the shelf"])
        }
    }

    /// Sources/Larder/Larder.docc/Larder.md.
    @Test func theCatalogsLandingPage() throws {
        struct Note: Codable, Persistable {
            static let collection = "notes"
            var id: String
            var text: String
        }

        let db = try Database(path: "/tmp/notes")
        try db.write { txn in
            try txn.write(Note(id: "n1", text: "Buy nails"))
        }
        let note = try db.read { try $0.read(Note.self, key: "n1") }

        #expect(note?.text == "Buy nails")
    }

    /// Sources/Larder/Larder.docc/GettingStarted.md.
    @Test func theCatalogsGettingStarted() throws {
        let db = try Database(path: "/tmp/notes")

        struct Note: Codable, Persistable {
            static let collection = "notes"
            var id: String
            var text: String
        }

        try db.write { txn in
            try txn.write(Note(id: "n1", text: "Buy nails"))
        }
        let note = try db.read { try $0.read(Note.self, key: "n1") }

        #expect(note?.text == "Buy nails")
    }
}

/// Documentation/GettingStarted.md, "Writing tests": a test as the guide writes it.
@Suite("Samples: Getting started, writing tests")
struct GettingStartedTestSamples {
    struct Note: Codable, Persistable {
        static let collection = "notes"
        var id: String
        var text: String
    }

    @Test func aNoteIsSaved() throws {
        let db = try Database.temporary()
        defer { db.close() }   // the files are gone
        try db.write { txn in try txn.write(Note(id: "n1", text: "Buy milk")) }
        #expect(try db.read { try $0.read(Note.self, key: "n1") }?.text == "Buy milk")
    }
}
