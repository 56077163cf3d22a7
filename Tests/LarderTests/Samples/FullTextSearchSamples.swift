import Testing
import Larder

/// Documentation/FullTextSearch.md.
@Suite("Samples: Full-text search")
struct FullTextSearchSamples: SampleSuite {
    let environment = SampleEnvironment()

    @Test func theGuide() throws {
        let db = try sampleStore()

        struct Article: Codable, Sendable, Persistable {
            static let collection = "articles"
            var id: String
            var section: String
            var title: String
            var body: String
        }

        let articleSearch = try db.register(FullTextSearch<Article, NoMetadata>(
            collections: ["articles"], versionTag: "1",
            tokenizer: FullTextTokenizer(stemming: .english),
            columnNames: ["title", "body"], columnWeights: [2, 1]
        ) { _, article in [article.title, article.body] }, named: "articleSearch")

        try db.write { txn in
            try txn.write([Article(id: "a1", section: "servers", title: "Swift on the server", body: "Vapor and Hummingbird handle the connections."),
                           Article(id: "a2", section: "storage", title: "Why LMDB", body: "Readers never block writers; connected threads share one map.")])
        }
        let (best, count) = try db.read { txn in
            (try txn[articleSearch].search("connection swift*", limit: 10),   // [FullTextMatch]: index and score
             try txn[articleSearch].count(matching: "connection"))            // 2: "connections" and "connected" stem alike
        }
        #expect(best.map(\.index.key) == ["a1"])
        #expect(count == 2)

        let query = FullTextQuery.and([.column("title", .word("swift")), .prefix("connect")])
            .excluding(.phrase("objective c"))
        let matches = try db.read { try $0[articleSearch].search(query, limit: 20) }
        #expect(matches.map(\.index.key) == ["a1"])

        let extract = try db.read { txn in
            try txn[articleSearch].snippet(for: YapDB.Index(collection: "articles", key: "a2"), column: "body",
                                           matching: "readers writers", maxTokens: 6)
        }
        // "<b>Readers</b> never block <b>writers</b>; connected threads…"
        #expect(extract == "<b>Readers</b> never block <b>writers</b>; connected threads…")

        let line = try db.read { txn in
            try txn[articleSearch].snippet(for: YapDB.Index(collection: "articles", key: "a1"), matching: "vapor")
        }
        // (column: "body", text: "<b>Vapor</b> and Hummingbird handle the connections.")
        #expect(line?.column == "body" && line?.text == "<b>Vapor</b> and Hummingbird handle the connections.")

        let bySection = try db.register(AutoView<Article, NoMetadata>(collections: ["articles"], versionTag: "1",
            grouping: { _, article in article.section },
            sorting: { _, article in TupleKey(article.title) }), named: "bySection")
        let inStorage = try db.read { txn in
            try txn[articleSearch].search("connection", inGroup: "storage", of: bySection, limit: 10)
        }
        #expect(inStorage.map(\.index.key) == ["a2"])
        #expect(try db.verifyExtensions().isEmpty)
    }

    @Test func searchResultsThatFollowTheData() async throws {
        let db = try sampleStore()
        struct Note: Codable, Sendable, Persistable {
            static let collection = "notes"
            var id: String
            var text: String
        }
        let noteSearch = try db.register(FullTextSearch<Note, NoMetadata>(
            collections: ["notes"], versionTag: "1", tokenizer: FullTextTokenizer(), columnNames: ["text"]
        ) { _, note in [note.text] }, named: "noteSearch")
        func show(_ matches: [FullTextMatch]) { print(matches.map(\.index.key)) }

        let results = Task {
            for try await matches in db.observe({ txn in try txn[noteSearch].search("lmdb", limit: 20) }) {
                show(matches)   // now, then after each commit that changes what the search read
            }
        }
        try await eventually { environment.printed.contains("[]") }
        try await db.write(Note(id: "n1", text: "LMDB maps the file"))
        try await eventually { environment.printed.contains(#"["n1"]"#) }
        try await db.write(Note(id: "n2", text: "nothing to find here"))   // n1's score moves (BM25 counts every note)
        try await db.write(Note(id: "n3", text: "lmdb readers never block"))
        try await eventually { environment.printed.contains { $0.contains("n3") } }
        results.cancel()
        #expect(environment.printed.last.map { $0.contains("n1") && $0.contains("n3") } == true)
    }
}
