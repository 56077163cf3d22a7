import Foundation
import Testing
@testable import Larder

struct Note: Codable, Sendable, Equatable {
    var title: String
    var body: String
    var tags: String
}

@Suite("Full-text search")
struct FullTextSearchTests {
    static let columns = ["title", "body", "tags"]
    /// Weights that are exact in binary, so that sums do not depend on their order.
    static let weights: [Double] = [2, 1, 0.5]

    static func notes(tag: String = "1", tokenizer: FullTextTokenizer = FullTextTokenizer(stemming: .english)) -> FullTextSearch<Note, NoMetadata> {
        FullTextSearch(collections: ["a", "b"], versionTag: tag, tokenizer: tokenizer, columnNames: columns, columnWeights: weights) { _, note in
            note.title == "skip" ? nil : [note.title, note.body, note.tags]
        }
    }

    // MARK: The brute-force model

    /// Words with a skewed frequency (the first far more common than the last), so that terms
    /// repeat and phrases recur.
    static let vocabulary = [
        "swift", "server", "store", "the", "fast", "search", "index", "value", "key", "text", "query", "connect", "connected",
        "connections", "page", "block", "term", "rank", "score", "swim", "swing", "data", "tree", "vapor", "lmdb", "phrase",
        "prefix", "word", "e-mail", "Swift",
    ]

    static func word<G: RandomNumberGenerator>(using random: inout G) -> String {
        // Zipf-like: the chance of word r is proportional to 1 / (r + 1).
        let total = (1...vocabulary.count).reduce(0.0) { $0 + 1 / Double($1) }
        var pick = Double.random(in: 0..<total, using: &random)
        for (rank, word) in vocabulary.enumerated() {
            pick -= 1 / Double(rank + 1)
            if pick < 0 { return word }
        }
        return vocabulary[0]
    }

    static func text<G: RandomNumberGenerator>(maxWords: Int, using random: inout G) -> [String] {
        (0..<Int.random(in: 0...maxWords, using: &random)).map { _ in word(using: &random) }
    }

    static func joined<G: RandomNumberGenerator>(_ words: [String], using random: inout G) -> String {
        var text = ""
        for (offset, word) in words.enumerated() {
            if offset > 0 { text += [" ", " ", " ", ", ", ". ", " - "].randomElement(using: &random)! }
            text += word
        }
        return text
    }

    /// A random query over `model`'s documents: phrases are taken from the documents' words so
    /// that they match now and then.
    static func query<G: RandomNumberGenerator>(depth: Int, inColumn: Bool, words: [[String]], using random: inout G) -> FullTextModel.Query {
        func leaf() -> FullTextModel.Query {
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<11:
                return .word(word(using: &random))
            case 11..<15:
                if let run = words.filter({ $0.count >= 2 }).randomElement(using: &random) {
                    let length = Int.random(in: 2...min(3, run.count), using: &random)
                    let start = Int.random(in: 0...(run.count - length), using: &random)
                    return .phrase(Array(run[start..<(start + length)]))
                }
                return .phrase([word(using: &random), word(using: &random)])
            default:
                let source = vocabulary.filter { $0.allSatisfy(\.isLetter) }.randomElement(using: &random)!
                return .prefix(String(source.prefix(Int.random(in: 1...3, using: &random))))
            }
        }
        if depth == 0 || Int.random(in: 0..<10, using: &random) < 3 {
            if !inColumn, Int.random(in: 0..<6, using: &random) == 0 {
                return .column(Int.random(in: 0..<columns.count, using: &random), leaf())
            }
            return leaf()
        }
        func sub() -> FullTextModel.Query { query(depth: depth - 1, inColumn: inColumn, words: words, using: &random) }
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4:
            let kept = (0..<Int.random(in: 1...3, using: &random)).map { _ in sub() }
            let excluded = Int.random(in: 0..<3, using: &random) == 0 ? [sub()] : []
            if kept.count == 1 && excluded.isEmpty { return kept[0] }
            return .and(kept, excluded: excluded)
        case 4..<7:
            return .or((0..<Int.random(in: 2...3, using: &random)).map { _ in sub() })
        case 7..<9:
            return .not(sub(), sub())
        default:
            if inColumn { return sub() }
            return .column(Int.random(in: 0..<columns.count, using: &random), query(depth: depth - 1, inColumn: true, words: words, using: &random))
        }
    }

    /// Checks that `found` is `expected`: the same length, scores within 1e-9 relative, and the
    /// same indexes in the same order, except that scores within 1e-12 of each other (equal but
    /// for the rounding of a sum taken in another order) may come in either order.
    static func check(_ found: [FullTextMatch], _ expected: [(index: YapDB.Index, score: Double)], _ context: @autoclosure () -> String) -> Bool {
        guard found.count == expected.count else {
            Issue.record("\(context()): \(found.count) results, expected \(expected.count): \(found.prefix(8)) vs \(expected.prefix(8).map { "\($0.index.collection)/\($0.index.key) (\($0.score))" })")
            return false
        }
        func close(_ a: Double, _ b: Double, _ tolerance: Double) -> Bool { abs(a - b) <= tolerance * max(abs(a), abs(b), 1e-300) }
        var start = 0
        while start < expected.count {
            var end = start + 1
            while end < expected.count, close(expected[end].score, expected[start].score, 1e-12) { end += 1 }
            for offset in start..<end where !close(found[offset].score, expected[offset].score, 1e-9) {
                Issue.record("\(context()): result \(offset) scores \(found[offset].score), expected \(expected[offset].score)")
                return false
            }
            let foundGroup = Set(found[start..<end].map(\.index))
            let expectedGroup = Set(expected[start..<end].map(\.index))
            let sameOrder = zip(found[start..<end], expected[start..<end]).allSatisfy { $0.index == $1.index }
            if foundGroup != expectedGroup || (end - start == 1 && !sameOrder) {
                Issue.record("\(context()): results \(start)..<\(end) are \(found[start..<end].map(\.description)), expected \(expected[start..<end].map { "\($0.index.collection)/\($0.index.key) (\($0.score))" })")
                return false
            }
            start = end
        }
        return true
    }

    @Test func queriesAgreeWithABruteForceModel() throws {
        try Self.checkAgainstTheModel(varyingRunLimits: false)
    }

    /// Random small transactions against a brute-force model, every query kind checked after
    /// each; with `varyingRunLimits`, the limits of the runs change at every step (the caller
    /// must be alone to change them: they are the process's).
    static func checkAgainstTheModel(varyingRunLimits: Bool) throws {
        let seed = ProcessInfo.processInfo.environment["LARDER_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix(seed: seed)
        var failed = false
        defer { if failed { print("FullTextSearchTests.queriesAgreeWithABruteForceModel seed: \(seed) (LARDER_SEED=\(seed) repeats it)") } }
        try withStore { db, _ in
            let definition = Self.notes()
            let handle = try db.register(definition, named: "notes")
            var model = FullTextModel(tokenizer: definition.tokenizer, columnNames: Self.columns, weights: Self.weights)
            var words: [YapDB.Index: [[String]]] = [:]
            let keys = (0..<40).map { "k\($0)" } + ["ключ", "a b", "é", "x/y", "\u{1F600}", "k\u{0}nul", "日本"]
            struct Rollback: Error {}
            // Postings of new documents wait in memory until the commit, a read or this many
            // bytes: sometimes none wait at all, sometimes a few, usually all.
            let byteLimit = FullTextPendingPostings.byteLimit.load(ordering: .relaxed)
            defer { FullTextPendingPostings.byteLimit.store(byteLimit, ordering: .relaxed) }
            // A flush becomes a run or goes to the blocks, and the runs fold after one, a few or
            // many (see FullTextStorage+Runs).
            let runLimits = (FullTextStorage.runByteLimit.load(ordering: .relaxed), FullTextStorage.runCountLimit.load(ordering: .relaxed))
            defer {
                if varyingRunLimits {
                    FullTextStorage.runByteLimit.store(runLimits.0, ordering: .relaxed)
                    FullTextStorage.runCountLimit.store(runLimits.1, ordering: .relaxed)
                }
            }
            for step in 0..<(80 * modelTestScale) where !failed {
                FullTextPendingPostings.byteLimit.store([0, 300, byteLimit].randomElement(using: &random)!, ordering: .relaxed)
                if varyingRunLimits {
                    FullTextStorage.runByteLimit.store([0, 400, runLimits.0].randomElement(using: &random)!, ordering: .relaxed)
                    FullTextStorage.runCountLimit.store([1, 3, runLimits.1].randomElement(using: &random)!, ordering: .relaxed)
                }
                var next = model
                var nextWords = words
                let rolledBack = Int.random(in: 0..<12, using: &random) == 0
                do {
                    try db.write { txn in
                        for _ in 0..<(step == 0 ? 40 : Int.random(in: 1...8, using: &random)) {
                            let collection = ["a", "a", "b", "c"].randomElement(using: &random)!
                            let key = keys.randomElement(using: &random)!
                            let index = YapDB.Index(collection: collection, key: key)
                            let indexed = collection != "c"
                            switch Int.random(in: 0..<200, using: &random) {
                            case 0..<120:
                                let parts = (0..<3).map { column in Self.text(maxWords: column == 1 ? 14 : 5, using: &random) }
                                let skip = Int.random(in: 0..<15, using: &random) == 0
                                let note = Note(title: skip ? "skip" : Self.joined(parts[0], using: &random), body: Self.joined(parts[1], using: &random),
                                                tags: Self.joined(parts[2], using: &random))
                                try txn.setObject(note, forKey: key, inCollection: collection)
                                if indexed {
                                    next.set(index, texts: skip ? nil : [note.title, note.body, note.tags])
                                    nextWords[index] = skip ? nil : parts
                                }
                            case 120..<135:
                                try txn.setObject("not a note", forKey: key, inCollection: collection)
                                if indexed { next.set(index, texts: nil); nextWords[index] = nil }
                            case 135..<165:
                                try txn.removeObject(forKey: key, inCollection: collection)
                                if indexed { next.set(index, texts: nil); nextWords[index] = nil }
                            case 165..<180:
                                try txn.touchObject(forKey: key, inCollection: collection)
                            case 180..<195:
                                let note = Note(title: Self.joined(Self.text(maxWords: 4, using: &random), using: &random), body: "", tags: "")
                                if try txn.replaceObject(note, forKey: key, inCollection: collection), indexed {
                                    next.set(index, texts: [note.title, "", ""])
                                    nextWords[index] = nil
                                }
                            case 195..<198:
                                try txn.removeAllObjects(inCollection: collection)
                                if indexed {
                                    next.removeCollection(collection)
                                    nextWords = nextWords.filter { $0.key.collection != collection }
                                }
                            default:
                                if Int.random(in: 0..<4, using: &random) == 0 {
                                    try txn.removeAllObjectsInAllCollections()
                                    next = FullTextModel(tokenizer: definition.tokenizer, columnNames: Self.columns, weights: Self.weights)
                                    nextWords = [:]
                                }
                            }
                        }
                        if rolledBack { throw Rollback() }
                    }
                } catch is Rollback {}
                if !rolledBack {
                    model = next
                    words = nextWords
                }

                try db.read { txn throws in
                    let reader = try txn[handle]
                    #expect(try reader.numberOfDocuments() == model.documents.count)
                    let phrases = Array(words.values.joined())
                    for number in 0..<10 {
                        let query = Self.query(depth: Int.random(in: 0...3, using: &random), inColumn: false, words: phrases, using: &random)
                        let text = model.text(of: query, using: &random)
                        let built = model.built(query)
                        let expected = model.search(query)
                        let parsed = try reader.search(text)
                        let context = "step \(step), query \(number): «\(text)»"
                        guard Self.check(parsed, expected, context), Self.check(try reader.search(built), expected, context + " (built)") else {
                            failed = true
                            return
                        }
                        let count = try reader.count(matching: text)
                        #expect(count == expected.count, "\(context): count")
                        let offset = Int.random(in: 0...max(0, expected.count), using: &random)
                        let limit = Int.random(in: 0...5, using: &random)
                        let page = try reader.search(text, limit: limit, offset: offset)
                        if page != Array(parsed.dropFirst(offset).prefix(limit)) {
                            Issue.record("\(context): limit \(limit) offset \(offset) gave \(page), expected \(Array(parsed.dropFirst(offset).prefix(limit)))")
                            failed = true
                            return
                        }
                    }
                }
                if step % 8 == 7 || step == 80 * modelTestScale - 1 {
                    let differences = try db.verifyExtensions()
                    if !differences.isEmpty {
                        Issue.record("step \(step): \(differences)")
                        failed = true
                    }
                }
            }
        }
    }
}

// MARK: - Real text, snippets, groups

extension FullTextSearchTests {
    static let articles: [(key: String, title: String, body: String, tags: String)] = [
        ("lmdb", "Why we store data in LMDB",
         "LMDB keeps the whole database in one memory-mapped file. Readers never block writers, and a crash never leaves the file half written: the copy-on-write tree commits by switching a single root page. Connections to the store are cheap, so every thread reads its own snapshot.",
         "storage databases"),
        ("search", "Full-text search without a server",
         "Searching a few thousand notes does not need a search server. An inverted index maps each term to the documents that contain it; a query intersects those lists and ranks what is left. The connected pieces fit in a single file beside the data.",
         "search ranking"),
        ("swift", "Swift on the server",
         "Swift compiles to fast native code, and its value types make concurrent code easier to reason about. Server frameworks such as Vapor and Hummingbird handle the connections; the store handles the data.",
         "swift servers"),
        ("bread", "A loaf of bread",
         "Mix flour, water, salt and a little yeast. Let the dough rest overnight, fold it twice, and bake it hot until the crust sings when you tap it.",
         "cooking bread"),
    ]

    static func fillArticles(_ db: Database) throws {
        try db.write { txn in
            for article in articles {
                try txn.setObject(Note(title: article.title, body: article.body, tags: article.tags), forKey: article.key, inCollection: "a")
            }
        }
    }

    @Test func realTextWithStemmingPhrasesPrefixesAndColumns() throws {
        try withStore { db, _ in
            let search = try db.register(Self.notes(), named: "notes")
            try Self.fillArticles(db)
            try db.read { txn throws in
                let reader = try txn[search]
                func keys(_ query: String) throws -> Set<String> { Set(try reader.indexes(matching: query).map(\.key)) }
                #expect(try keys("connections") == ["lmdb", "search", "swift"])  // connected, connections: one stem
                #expect(try keys("\"memory mapped file\"") == ["lmdb"])
                #expect(try keys("memory-mapped") == ["lmdb"])  // a word the tokenizer splits is a phrase
                #expect(try keys("\"mapped memory\"").isEmpty)
                #expect(try keys("hummi*") == ["swift"])
                #expect(try keys("SERVER") == ["search", "swift"])
                #expect(try keys("title:server") == ["search", "swift"])
                #expect(try keys("tags:server") == ["swift"])  // "servers" stems to "server"
                #expect(try keys("title:(bread OR lmdb)") == ["bread", "lmdb"])
                #expect(try keys("store -search") == ["lmdb", "swift"])
                #expect(try keys("server NOT swift") == ["search"])
                #expect(try keys("yeast OR flour dough") == ["bread"])
                #expect(try keys("(data OR bread) -\"single file\"") == ["lmdb", "swift", "bread"])
                #expect(try reader.count(matching: "the") == 4)
                // A title match weighs twice a body match.
                let ranked = try reader.search("server")
                #expect(ranked.map(\.index.key) == ["swift", "search"] || ranked.map(\.index.key) == ["search", "swift"])
                #expect(ranked.allSatisfy { $0.score > 0 })
                #expect(try reader.indexes(matching: "server", limit: 1) == [ranked[0].index])
                #expect(try reader.objects(matching: "yeast").map(\.object.title) == ["A loaf of bread"])
                #expect(try reader.numberOfDocuments() == 4)
            }
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func snippetsMarkMatchesInAWindow() throws {
        try withStore { db, _ in
            let search = try db.register(Self.notes(), named: "notes")
            try Self.fillArticles(db)
            try db.read { txn throws in
                let reader = try txn[search]
                let lmdb = YapDB.Index(collection: "a", key: "lmdb")
                #expect(try reader.snippet(for: lmdb, column: "body", matching: "crash", maxTokens: 6) == "…and a <b>crash</b> never leaves the…")
                #expect(try reader.snippet(for: lmdb, column: "body", matching: "\"memory mapped\"", maxTokens: 4) == "…one <b>memory-mapped</b> file…")
                #expect(try reader.snippet(for: lmdb, column: "title", matching: "LMDB stor*") == "Why we <b>store</b> data in <b>LMDB</b>")
                #expect(try reader.snippet(for: lmdb, column: "title", matching: "lmdb", before: "[", after: "]") == "Why we store data in [LMDB]")
                // The window goes where most of the query's words are.
                let clustered = try #require(try reader.snippet(for: lmdb, column: "body", matching: "readers writers snapshot", maxTokens: 5))
                #expect(clustered == "…<b>Readers</b> never block <b>writers</b>, and…")
                // No match in the column: the text's beginning.
                let bread = YapDB.Index(collection: "a", key: "bread")
                #expect(try reader.snippet(for: bread, column: "body", matching: "swift", maxTokens: 4) == "Mix flour, water, salt…")
                // Excluded words are not marked; a column filter elsewhere marks nothing here.
                #expect(try reader.snippet(for: bread, column: "title", matching: "loaf -bread") == "A <b>loaf</b> of bread")
                #expect(try reader.snippet(for: bread, column: "title", matching: "body:loaf") == "A loaf of bread")
                #expect(try reader.snippet(for: YapDB.Index(collection: "a", key: "none"), column: "body", matching: "x") == nil)
                let error = #expect(throws: LarderError.self) { try reader.snippet(for: bread, column: "summary", matching: "loaf") }
                #expect(error?.code == .invalidQuery)
            }
        }
    }

    @Test func theBestColumnIsQuotedWithItsName() throws {
        try withStore { db, _ in
            let search = try db.register(Self.notes(), named: "notes")
            try Self.fillArticles(db)
            try db.read { txn throws in
                let reader = try txn[search]
                let lmdb = YapDB.Index(collection: "a", key: "lmdb")
                // Only the body has "crash".
                let crash = try #require(try reader.snippet(for: lmdb, matching: "crash", maxTokens: 6))
                #expect(crash.column == "body" && crash.text == "…and a <b>crash</b> never leaves the…")
                // Title and body have "lmdb" once each: the heavier title (2 against 1).
                #expect(try reader.snippet(for: lmdb, matching: "lmdb")?.column == "title")
                // Body and tags have "database(s)" once each (one stem): the body (1 against 0.5).
                #expect(try reader.snippet(for: lmdb, matching: "databases")?.column == "body")
                // The tags alone have "storage"; the title alone has "why".
                #expect(try reader.snippet(for: lmdb, matching: "storage")?.column == "tags")
                #expect(try reader.snippet(for: lmdb, matching: "why")?.column == "title")
                // More matches of as many words win over weight: "search" once in the title,
                // twice in the body ("Searching", "search server": one stem).
                #expect(try reader.snippet(for: YapDB.Index(collection: "a", key: "search"), matching: "search")?.column == "body")
                // More distinct words beat more matches: "data" and "why" are both in the title.
                #expect(try reader.snippet(for: lmdb, matching: "why OR data OR readers")?.column == "title")
                // No column matches: the first column's beginning.
                let none = try #require(try reader.snippet(for: lmdb, matching: "yeast"))
                #expect(none.column == "title" && none.text == "Why we store data in LMDB")
                // The same choice through a parsed query, and errors as the column form.
                #expect(try reader.snippet(for: lmdb, matching: FullTextQuery.word("crash"), maxTokens: 6)?.text == crash.text)
                #expect(try reader.snippet(for: YapDB.Index(collection: "a", key: "none"), matching: "x") == nil)
                let error = #expect(throws: LarderError.self) { try reader.snippet(for: lmdb, matching: "summary:loaf") }
                #expect(error?.code == .invalidQuery)
            }
        }
    }

    @Test func equallyGoodColumnsGoToTheHeavierOne() throws {
        try withStore { db, _ in
            let search = try db.register(FullTextSearch<Note, NoMetadata>(
                collections: ["a"], versionTag: "1", columnNames: ["light", "heavy"], columnWeights: [1, 3]
            ) { _, note in [note.title, note.body] }, named: "weighted")
            try db.write { try $0.setObject(Note(title: "red apple", body: "green apple", tags: ""), forKey: "k", inCollection: "a") }
            try db.read { txn throws in
                let reader = try txn[search]
                let index = YapDB.Index(collection: "a", key: "k")
                #expect(try reader.snippet(for: index, matching: "apple")?.column == "heavy")
                #expect(try reader.snippet(for: index, matching: "red")?.column == "light")
            }
        }
    }

    struct Product: Codable, Sendable {
        var category: String
        var text: String
    }

    @Test func searchWithinAViewGroup() throws {
        try withStore { db, _ in
            let search = try db.register(FullTextSearch<Product, NoMetadata>(collections: ["p"], versionTag: "1", columnNames: ["text"]) { _, product in [product.text] },
                                         named: "products")
            let byCategory = try db.register(AutoView<Product, NoMetadata>(collections: ["p"], versionTag: "1",
                                                                           grouping: { _, product in product.category },
                                                                           sorting: { index, _ in TupleKey(index.key) }), named: "byCategory")
            let inStock = try db.register(FilteredView(parent: byCategory, versionTag: "1") { _, index, _, _ in index.key.hasSuffix("0") == false }, named: "inStock")
            var random = SplitMix(seed: 7)
            try db.write { txn in
                for number in 0..<300 {
                    let words = (0..<8).map { _ in Self.word(using: &random) } + (number % 100 == 3 ? ["rare"] : [])
                    try txn.setObject(Product(category: "c\(number % 10)", text: words.joined(separator: " ")), forKey: "p\(number)", inCollection: "p")
                }
            }
            try db.read { txn throws in
                let reader = try txn[search]
                for (query, group) in [("swift", "c3"), ("swift OR store", "c1"), ("rare", "c3"), ("rare", "c4"), ("\"the swift\"", "c0"), ("nothing", "c0")] {
                    for view in [byCategory, inStock] {
                        let items = try txn[view]
                        let members = Set(try items.indexes(inGroup: group))
                        let expected = try reader.search(query).filter { members.contains($0.index) }
                        #expect(try reader.search(query, inGroup: group, of: view) == expected, "\(query) in \(group)")
                        #expect(try reader.search(query, inGroup: group, of: view, limit: 3, offset: 1) == Array(expected.dropFirst(1).prefix(3)))
                    }
                }
                #expect(try reader.search("swift", inGroup: "nosuch", of: byCategory).isEmpty)
            }
        }
    }
}

// MARK: - Registration, persistence, rollback

extension FullTextSearchTests {
    @Test func aNewVersionTagRebuildsWithProgressAndUnregisterEmpties() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            var reports: [RegistrationProgress] = []
            try db.write { txn in
                for number in 0..<2_100 { try txn.setObject(Note(title: "note \(number)", body: "swift text", tags: ""), forKey: "n\(number)", inCollection: "a") }
            }
            let first = try db.register(Self.notes(), named: "notes") { reports.append($0) }
            #expect(reports.first?.processed == 0 && reports.last?.processed == 2_100 && reports.last?.total == 2_100)
            #expect(reports.count >= 3)
            #expect(try db.read { try $0[first].count(matching: "swift") } == 2_100)
            // The same definition again: nothing to do.
            reports = []
            _ = try db.register(Self.notes(), named: "notes") { reports.append($0) }
            #expect(reports.isEmpty)
        }
        do {  // reopened: the index is there, and the same tag rebuilds nothing
            let db = try Database(path: path)
            var reports: [RegistrationProgress] = []
            let again = try db.register(Self.notes(), named: "notes") { reports.append($0) }
            #expect(reports.isEmpty)
            #expect(try db.read { try $0[again].count(matching: "note") } == 2_100)
        }
        let db = try Database(path: path)
        var reports: [RegistrationProgress] = []
        let rebuilt = try db.register(Self.notes(tag: "2", tokenizer: FullTextTokenizer()), named: "notes") { reports.append($0) }
        #expect(reports.last?.processed == 2_100)
        #expect(try db.read { try $0[rebuilt].count(matching: "swift") } == 2_100)
        #expect(try db.verifyExtensions().isEmpty)
        #expect(try db.recordedExtensions().first { $0.name == "notes" }?.kind == "fullTextSearch")

        try db.unregisterExtension(named: "notes")
        let error = #expect(throws: LarderError.self) { try db.read { try $0[rebuilt].count(matching: "swift") } }
        #expect(error?.code == .extensionNotRegistered)
        try db.read { txn throws in
            for part in FullTextStorage.partNames {
                #expect(try txn.lmdb.count(txn.lmdb.openDatabase("x.notes.\(part)", create: false)) == 0)
            }
        }
    }

    @Test func aRolledBackWriteLeavesTheIndexAsItWas() throws {
        try withStore { db, _ in
            let search = try db.register(Self.notes(), named: "notes")
            try Self.fillArticles(db)
            let before = try db.read { try $0[search].search("the OR swift") }
            struct Failure: Error {}
            #expect(throws: Failure.self) {
                try db.write { txn in
                    try txn.setObject(Note(title: "swift swift", body: "the the", tags: ""), forKey: "new", inCollection: "a")
                    try txn.removeObject(forKey: "lmdb", inCollection: "a")
                    #expect(try txn[search].count(matching: "the OR swift") == 4)  // the write sees its own changes
                    throw Failure()
                }
            }
            try db.write { txn in
                try txn.removeAllObjects(inCollection: "a")
                txn.rollback()
            }
            #expect(try db.read { try $0[search].search("the OR swift") } == before)
            #expect(try db.verifyExtensions().isEmpty)
        }
    }
}

extension FullTextSearchTests {
    @Test func aFailingCallerOfAGroupCommitTakesItsPostingsWithIt() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let search = try db.register(Self.notes(), named: "notes")
        struct Failure: Error {}
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<24 {
                group.addTask {
                    do {
                        try await db.write { txn in
                            try txn.setObject(Note(title: "shared word\(i)", body: "text \(i)", tags: ""), forKey: "k\(i)", inCollection: "a")
                            if i % 4 == 0 { throw Failure() }
                        }
                    } catch is Failure {}
                }
            }
            try await group.waitForAll()
        }
        let keys = try await db.read { try $0[search].indexes(matching: "shared").map(\.key) }
        #expect(Set(keys) == Set((0..<24).filter { $0 % 4 != 0 }.map { "k\($0)" }))
        #expect(try await db.read { try $0[search].numberOfDocuments() } == 18)
        #expect(try db.verifyExtensions().isEmpty)
    }

    @Test func aWriteReadsWhatItWrote() throws {
        try withStore { db, _ in
            let search = try db.register(Self.notes(), named: "notes")
            try db.write { txn in
                for number in 0..<50 { try txn.setObject(Note(title: "first", body: "word\(number)", tags: ""), forKey: "k\(number)", inCollection: "a") }
                #expect(try txn[search].count(matching: "first") == 50)
                // Documents added in this transaction, changed and removed in it.
                for number in 0..<10 { try txn.setObject(Note(title: "second", body: "word\(number)", tags: ""), forKey: "k\(number)", inCollection: "a") }
                for number in 10..<20 { try txn.removeObject(forKey: "k\(number)", inCollection: "a") }
                for number in 50..<60 { try txn.setObject(Note(title: "first", body: "", tags: ""), forKey: "k\(number)", inCollection: "a") }
                #expect(try txn[search].count(matching: "first") == 40)
                #expect(try txn[search].count(matching: "second") == 10)
                #expect(try txn[search].numberOfDocuments() == 50)
            }
            #expect(try db.read { try $0[search].count(matching: "first") } == 40)
            #expect(try db.verifyExtensions().isEmpty)
        }
    }
}

// MARK: - Blocks

extension FullTextSearchTests {
    /// The blocks of `term`: first id and number of documents and bytes of each.
    static func blocks(of term: String, in txn: ReadTransaction, search name: String) throws -> [(first: UInt64, documents: Int, bytes: Int)] {
        let runtime = try txn.extensionRuntime(named: name, as: FullTextSearchRuntime<Note, NoMetadata>.self)
        var found: [(UInt64, Int, Int)] = []
        // The term's blocks, then its blocks in each live run.
        let ranges = FullTextStorage.postingRanges(from: Array(term.utf8) + [0], to: Array(term.utf8) + [1], runs: try runtime.storage.runs(in: txn.lmdb))
        for range in ranges {
            try txn.lmdb.forEachEntry(in: runtime.storage.postings, from: range.lower, to: range.upper) { key, value in
                var reader = FullTextByteReader(value, what: "a postings block")
                found.append((FullTextVarint.bigEndian(in: key, at: key.count - 8), try reader.int(upTo: value.count), value.count))
                return true
            }
        }
        return found
    }

    @Test func blocksSplitShrinkAndMove() throws {
        try withStore { db, _ in
            let definition = Self.notes(tokenizer: FullTextTokenizer())
            let search = try db.register(definition, named: "notes")
            var model = FullTextModel(tokenizer: definition.tokenizer, columnNames: Self.columns, weights: Self.weights)
            var random = SplitMix(seed: 11)
            func put(_ txn: ReadWriteTransaction, _ number: Int, common: Bool) throws {
                // Long postings (many occurrences), so that "common" fills several blocks.
                let repeats = common ? Array(repeating: "common", count: Int.random(in: 10...30, using: &random)) : []
                let body = repeats + (0..<Int.random(in: 0...4, using: &random)).map { _ in Self.word(using: &random) }
                let note = Note(title: "n\(number)", body: body.joined(separator: " "), tags: "")
                try txn.setObject(note, forKey: "k\(number)", inCollection: "a")
                model.set(YapDB.Index(collection: "a", key: "k\(number)"), texts: [note.title, note.body, note.tags])
            }
            try db.write { txn in for number in 0..<700 { try put(txn, number, common: true) } }
            let grown = try db.read { try Self.blocks(of: "common", in: $0, search: "notes") }
            #expect(grown.count >= 4)
            #expect(grown.allSatisfy { $0.documents <= FullTextPostingsEditor.maximumBlockDocuments && ($0.bytes <= FullTextPostingsEditor.maximumBlockBytes || $0.documents == 1) })
            #expect(grown.reduce(0) { $0 + $1.documents } == 700)

            // Take "common" out of many documents (blocks shrink, some to nothing, some lose their
            // first document), then put it back in (inserts into the middle of full blocks).
            try db.write { txn in for number in stride(from: 0, to: 700, by: 3) { try put(txn, number, common: false) } }
            try db.write { txn in for number in 0..<400 where number % 7 != 0 { try put(txn, number, common: false) } }
            try db.write { txn in for number in 0..<700 where number % 2 == 0 { try put(txn, number, common: true) } }
            try db.write { txn in for number in 100..<300 { try txn.removeObject(forKey: "k\(number)", inCollection: "a"); model.set(YapDB.Index(collection: "a", key: "k\(number)"), texts: nil) } }
            #expect(try db.verifyExtensions().isEmpty)
            let blocks = try db.read { try Self.blocks(of: "common", in: $0, search: "notes") }
            #expect(blocks.allSatisfy { $0.documents >= 1 && ($0.bytes <= FullTextPostingsEditor.maximumBlockBytes || $0.documents == 1) })
            try db.read { txn throws in
                for query in ["common", "common swift", "\"common common\"", "\"common swift\"", "\"the common\"", "n1*", "common -store"] {
                    #expect(Self.check(try txn[search].search(query), model.search(try Self.modelQuery(query)), query))
                }
            }
        }
    }

    /// The few queries of `blocksSplitShrinkAndMove` as model queries.
    static func modelQuery(_ text: String) throws -> FullTextModel.Query {
        switch text {
        case "common": .word("common")
        case "common swift": .and([.word("common"), .word("swift")], excluded: [])
        case "\"common common\"": .phrase(["common", "common"])
        case "\"common swift\"": .phrase(["common", "swift"])
        case "\"the common\"": .phrase(["the", "common"])
        case "n1*": .prefix("n1")
        default: .and([.word("common")], excluded: [.word("store")])
        }
    }
}

// MARK: - Bad input and malformed queries

extension FullTextSearchTests {
    @Test func badInputIsIndexedOrLeftOutNeverACrash() throws {
        try withStore { db, _ in
            let search = try db.register(FullTextSearch<Note, NoMetadata>(versionTag: "1", columnNames: ["title", "body", "tags"]) { _, note in
                [note.title, note.body, note.tags]
            }, named: "all")
            let huge = (0..<60_000).map { ["swift", "the", "store", "page\($0 % 100)"][$0 % 4] }.joined(separator: " ")
            let long = String(repeating: "x", count: 1_000)
            let longAccented = String(repeating: "é", count: 300)
            let oddCollection = "ünï cødé / \u{1F600}"
            let longKey = String(repeating: "k", count: 511 - 1 - oddCollection.utf8.count)
            try db.write { txn in
                try txn.setObject(Note(title: "huge", body: huge, tags: ""), forKey: "huge", inCollection: "c")
                try txn.setObject(Note(title: "", body: "", tags: ""), forKey: "empty", inCollection: "c")
                try txn.setObject(Note(title: "!!! ... ---", body: "«»", tags: "   "), forKey: "punctuation", inCollection: "c")
                try txn.setObject(Note(title: long, body: longAccented, tags: "short"), forKey: "long", inCollection: "c")
                try txn.setObject(Note(title: "odd", body: "swift", tags: ""), forKey: longKey, inCollection: oddCollection)
                try txn.setObject(Note(title: "nul", body: "swift", tags: ""), forKey: "a\u{0}b", inCollection: oddCollection)
                try txn.setObject(42, forKey: "number", inCollection: "c")  // not a Note: not indexed
            }
            try db.read { txn throws in
                let reader = try txn[search]
                #expect(try reader.numberOfDocuments() == 6)
                #expect(try reader.count(matching: "page7") == 1)
                #expect(try reader.search("page7").first?.index.key == "huge")
                #expect(try reader.count(matching: "\"store page3\"") == 1)
                #expect(try reader.indexes(matching: long).map(\.key) == ["long"])
                #expect(try reader.indexes(matching: long + "yyy").map(\.key) == ["long"])  // cut to the same 255 bytes
                #expect(try reader.indexes(matching: longAccented).map(\.key) == ["long"])
                #expect(try reader.indexes(matching: "xxx*").map(\.key) == ["long"])
                #expect(Set(try reader.indexes(matching: "swift").map(\.collection)) == ["c", oddCollection])
                #expect(try reader.count(matching: "swift") == 3)
                let snippet = try #require(try reader.snippet(for: YapDB.Index(collection: "c", key: "huge"), column: "body", matching: "page99"))
                #expect(snippet.contains("<b>page99</b>") && snippet.hasPrefix("…") && snippet.hasSuffix("…"))
                #expect(try reader.snippet(for: YapDB.Index(collection: "c", key: "empty"), column: "body", matching: "x") == "")
                #expect(try reader.snippet(for: YapDB.Index(collection: "c", key: "punctuation"), column: "title", matching: "x") == "!!! ... ---")
                #expect(try reader.snippet(for: YapDB.Index(collection: "c", key: "number"), column: "title", matching: "x") == nil)
            }
            #expect(try db.verifyExtensions().isEmpty)
            try db.write { txn in
                try txn.setObject(Note(title: "huge", body: "now small", tags: ""), forKey: "huge", inCollection: "c")
                try txn.removeObject(forKey: longKey, inCollection: oddCollection)
                try txn.removeAllObjects(inCollection: oddCollection)
            }
            #expect(try db.read { try $0[search].count(matching: "swift OR page7") } == 0)
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func aTextsClosureThatMiscountsFailsTheWrite() throws {
        try withStore { db, _ in
            let search = try db.register(FullTextSearch<Note, NoMetadata>(versionTag: "1", columnNames: ["title", "body"]) { _, note in
                note.title == "bad" ? [note.title] : [note.title, note.body]
            }, named: "notes")
            try db.write { try $0.setObject(Note(title: "good", body: "text", tags: ""), forKey: "g", inCollection: "c") }
            let error = #expect(throws: LarderError.self) {
                try db.write { try $0.setObject(Note(title: "bad", body: "text", tags: ""), forKey: "b", inCollection: "c") }
            }
            #expect(error?.code == .invalidConfiguration && error?.extensionName == "notes")
            #expect(try db.read { try $0.hasObject(forKey: "b", inCollection: "c") } == false)
            #expect(try db.read { try $0[search].count(matching: "text") } == 1)
        }
    }

    @Test func definitionsThatCannotWorkAreRefused() throws {
        try withStore { db, _ in
            let bad: [FullTextSearch<Note, NoMetadata>] = [
                FullTextSearch(versionTag: "1", columnNames: []) { _, _ in [] },
                FullTextSearch(versionTag: "1", columnNames: ["a", "a"]) { _, _ in ["", ""] },
                FullTextSearch(versionTag: "1", columnNames: ["two words"]) { _, _ in [""] },
                FullTextSearch(versionTag: "1", columnNames: ["9lives"]) { _, _ in [""] },
                FullTextSearch(versionTag: "1", columnNames: ["a", "b"], columnWeights: [1]) { _, _ in ["", ""] },
                FullTextSearch(versionTag: "1", columnNames: ["a"], columnWeights: [-1]) { _, _ in [""] },
                FullTextSearch(versionTag: "1", columnNames: ["a"], columnWeights: [.nan]) { _, _ in [""] },
            ]
            for definition in bad {
                let error = #expect(throws: LarderError.self) { try db.register(definition, named: "bad") }
                #expect(error?.code == .invalidConfiguration)
            }
            #expect(db.registeredExtensions.isEmpty)
        }
    }

    @Test func malformedQueriesThrowInvalidQuery() throws {
        try withStore { db, _ in
            let search = try db.register(Self.notes(), named: "notes")
            try Self.fillArticles(db)
            let malformed = [
                "", "   ", "\"unclosed", "(swift", "swift)", "swift OR", "OR swift", "swift AND", "AND swift", "NOT swift", "-swift", "swift NOT",
                "()", "*", "title:", "title: swift", "summary:swift", "-a -b", "swift OR -b", "title:(body:swift)", "\"full text\"*", "swi* cd*x e-m*",
                "swift NOT -b", "!!!", "swift OR OR data", "title:-swift", "(-swift)",
            ]
            try db.read { txn throws in
                for query in malformed {
                    let error = #expect(throws: LarderError.self, "\(query)") { try txn[search].search(query) }
                    #expect(error?.code == .invalidQuery, "\(query): \(String(describing: error))")
                    #expect(error.map { !$0.message.isEmpty } ?? false)
                }
                // What is valid though odd: punctuation words are left out, a lone "-" is one.
                #expect(try txn[search].count(matching: "swift - !!!") == 1)
                #expect(try txn[search].count(matching: "swift AND (data OR \"\")") == 1)
            }
        }
    }

    @Test func theQueryLanguageParsesByPrecedence() throws {
        func parsed(_ text: String) throws -> FullTextQuery.Node { try FullTextQuery(parsing: text).node }
        #expect(try parsed("a b OR c NOT d") == .or([.and([.word("a"), .word("b")]), .not(.word("c"), excluding: .word("d"))]))
        #expect(try parsed("a AND b") == .and([.word("a"), .word("b")]))
        #expect(try parsed("a -b c") == .not(.and([.word("a"), .word("c")]), excluding: .word("b")))
        #expect(try parsed("a NOT b NOT c") == .not(.not(.word("a"), excluding: .word("b")), excluding: .word("c")))
        #expect(try parsed("title:\"full text\" swi*") == .and([.column("title", .phrase("full text")), .prefix("swi")]))
        #expect(try parsed("title:(a OR b)") == .column("title", .or([.word("a"), .word("b")])))
        #expect(try parsed("e-mail 10:30 and or") == .and([.word("e-mail"), .word("10:30"), .word("and"), .word("or")]))
        #expect(try parsed("-(a OR b) c") == .not(.word("c"), excluding: .or([.word("a"), .word("b")])))
        // Rendering and parsing again gives the same query.
        for text in ["a b OR c NOT d", "title:(a OR b) -\"x y\" z*", "(a OR b) (c OR d)", "a NOT (b c)", "\"AND\" x"] {
            let query = try FullTextQuery(parsing: text)
            #expect(try FullTextQuery(parsing: query.description) == query, "\(text) → \(query)")
        }
        let built = FullTextQuery.and([.column("title", .word("swift")), .or([.word("server"), .word("vapor")])]).excluding(.phrase("objective c"))
        #expect(built.description == "(title:swift (server OR vapor)) NOT \"objective c\"")
    }
}
