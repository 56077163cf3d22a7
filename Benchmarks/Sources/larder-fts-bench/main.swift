import Foundation
import Larder
import LarderBenchKit

// larder-fts-bench: Larder's full-text search beside SQLite FTS5 (through GRDB) on the same
// corpus of short documents (see FullTextCorpus): building the index, inserting and updating
// documents, queries of single terms (common, middling, rare), AND of two terms, phrases and
// prefixes, and the bytes of each index. Every measure is taken in rounds that alternate the two
// sides; the table gives medians and Larder's time (or size) as a ratio of FTS5's.
//
//     swift run -c release larder-fts-bench                 # 100 000 documents
//     swift run -c release larder-fts-bench --smoke         # 2 000 documents, one round (CI)
//     swift run -c release larder-fts-bench --corpus /usr/share/doc/python3.11/html/_sources
//
// Targets (issue 20): queries at most 0.5× FTS5's time (2× faster), index at most 1.5× its size,
// insert cost at most 2× its cost.
//
// `--corpus DIR` measures on real text instead (see RealTextCorpus and measureRealCorpus below):
// the paragraphs of the files under DIR, written in transactions of 1, 250 and 10 000 documents.
// Its targets: build and inserts in transactions of 250 at most 1.5× FTS5's cost, index
// at most 1.2× its size, Larder's index at most 15% larger after 5% of the documents are
// rewritten, queries at most 0.5× FTS5's time. `--rounds N` (default 3) and `--documents N` (the
// first N paragraphs only) shorten it.

struct Doc: Codable, Sendable {
    var title: String
    var body: String
}

let arguments = CommandLine.arguments
let smoke = arguments.contains("--smoke")
let count = smoke ? 2_000 : 100_000
let rounds = smoke ? 1 : 5
let batch = smoke ? 200 : 1_000
let queriesPerKind = smoke ? 20 : 200

/// The value that follows `name` on the command line, if any.
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let definition = FullTextSearch<Doc, NoMetadata>(collections: ["docs"], versionTag: "1", columnNames: ["title", "body"]) { _, doc in [doc.title, doc.body] }

/// Larder's side: a store with the index registered.
final class LarderSide {
    let scratch: Scratch
    let db: Database
    let handle: FullTextSearchHandle<Doc, NoMetadata>

    init() throws {
        scratch = try Scratch("fts")
        db = try Database(path: scratch.file("store"))
        handle = try db.register(definition, named: "search")
    }

    func insert(_ documents: ArraySlice<FullTextCorpus.Document>) throws {
        try db.write { txn in
            for document in documents { try txn.setObject(Doc(title: document.title, body: document.body), forKey: document.key, inCollection: "docs") }
        }
    }

    func search(_ query: String) throws -> [String] {
        try db.read { txn in try txn[handle].indexes(matching: query, limit: 10).map(\.key) }
    }

    func count(_ query: String) throws -> Int {
        try db.read { txn in try txn[handle].count(matching: query) }
    }

    /// The bytes of the index's databases (`x.search.*`): their pages times the page size.
    func indexBytes() throws -> Int {
        try indexBytesByDatabase().reduce(0) { $0 + $1.bytes }
    }

    /// The bytes of each of the index's databases.
    func indexBytesByDatabase() throws -> [(name: String, bytes: Int)] {
        let pageSize = try db.statistics().pageSize
        return try db.databaseStatistics().compactMap { database in
            guard let name = database.name, name.hasPrefix("x.search.") else { return nil }
            return (name, (database.branchPages + database.leafPages + database.overflowPages) * pageSize)
        }
    }
}

/// FTS5's side.
final class SQLiteSide {
    let scratch: Scratch
    let store: FTS5Store

    init() throws {
        scratch = try Scratch("fts5")
        store = try FTS5Store(path: scratch.file("search.sqlite"))
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

struct Row {
    var name: String
    var larder: Double
    var sqlite: Double
    var unit: String
    /// The most Larder's value may be as a ratio of FTS5's.
    var target: Double?
    /// The most Larder's value may be, in its unit (the ratio is then not judged, nor shown).
    var larderAtMost: Double? = nil
    var ratio: Double { larder / sqlite }

    var verdict: String {
        if let limit = larderAtMost { return larder <= limit ? "Larder ≤ \(limit) \(unit): met" : "Larder ≤ \(limit) \(unit): **missed**" }
        return target.map { ratio <= $0 ? "≤ \($0): met" : "≤ \($0): **missed**" } ?? ""
    }
}

func printTable(_ rows: [Row]) {
    print("")
    print("| measure | Larder | FTS5 (GRDB) | ratio | target |")
    print("|---|---|---|---|---|")
    for row in rows {
        let ratio = row.larderAtMost == nil ? String(format: "%.2f", row.ratio) : "–"
        print("| \(row.name) | \(String(format: "%.2f", row.larder)) | \(String(format: "%.2f", row.sqlite)) | \(ratio) | \(row.verdict) |")
    }
    print("")
}

var rows: [Row] = []
@MainActor func add(_ name: String, _ larder: [Double], _ sqlite: [Double], unit: String, target: Double?) {
    rows.append(Row(name: name, larder: median(larder), sqlite: median(sqlite), unit: unit, target: target))
}

if let directory = option("--corpus") {
    try measureRealCorpus(directory)
    exit(0)
}

print("corpus: \(count) documents, vocabulary 30 000 words (Zipf–Mandelbrot), title 3–6 words, body 8–20")
let corpus = FullTextCorpus(count: count)

// Build: every document inserted in one transaction, the index kept by the write; then inserts
// and updates in batches into the built index. Each round builds both sides afresh.
var build: ([Double], [Double]) = ([], [])
var insert: ([Double], [Double]) = ([], [])
var update: ([Double], [Double]) = ([], [])
var sizes: (Int, Int) = (0, 0)
var larder: LarderSide!
var sqlite: SQLiteSide!
let extra = (0..<batch).map { corpus.document(key: "new\($0)", seed: UInt64($0) &+ 99) }
let changed = (0..<batch).map { corpus.document(key: "d\($0 * (count / batch))", seed: UInt64($0) &+ 7_000) }
for round in 0..<rounds {
    let first = round % 2 == 0
    for side in first ? [0, 1] : [1, 0] {
        if side == 0 {
            let fresh = try LarderSide()
            build.0.append(seconds(try timed { try fresh.insert(corpus.documents[...]) }) / Double(count) * 1e6)
            insert.0.append(seconds(try timed { try fresh.insert(extra[...]) }) / Double(batch) * 1e6)
            update.0.append(seconds(try timed {
                try fresh.db.write { txn in for document in changed { try txn.setObject(Doc(title: document.title, body: document.body), forKey: document.key, inCollection: "docs") } }
            }) / Double(batch) * 1e6)
            larder = fresh
        } else {
            let fresh = try SQLiteSide()
            build.1.append(seconds(try timed { try fresh.store.insert(corpus.documents[...]) }) / Double(count) * 1e6)
            insert.1.append(seconds(try timed { try fresh.store.insert(extra[...]) }) / Double(batch) * 1e6)
            update.1.append(seconds(try timed { try fresh.store.update(changed) }) / Double(batch) * 1e6)
            sqlite = fresh
        }
    }
}
sizes = (try larder.indexBytes(), try sqlite.store.indexBytes())
add("build, per document (µs)", build.0, build.1, unit: "µs", target: 2)
add("insert into the index, per document (µs)", insert.0, insert.1, unit: "µs", target: 2)
add("update, per document (µs)", update.0, update.1, unit: "µs", target: 2)

// Queries: the same queries on both sides, top 10 by BM25, each in its own read transaction.
let kinds: [(String, [String])] = [
    ("query: common term", corpus.terms(queriesPerKind, ranks: 100...300, seed: 1)),
    ("query: middling term", corpus.terms(queriesPerKind, ranks: 1_000...3_000, seed: 2)),
    ("query: rare term", corpus.terms(queriesPerKind, ranks: 10_000...20_000, seed: 3)),
    ("query: AND of two terms", zip(corpus.terms(queriesPerKind, ranks: 100...1_000, seed: 4), corpus.terms(queriesPerKind, ranks: 100...1_000, seed: 5)).map { "\($0) AND \($1)" }),
    ("query: phrase of two words", corpus.phrases(queriesPerKind, seed: 6)),
    ("query: prefix", corpus.prefixes(queriesPerKind, seed: 7)),
]
var disagreements = 0
for (name, queries) in kinds {
    for query in queries where try larder.count(query) != sqlite.store.count(query) {
        disagreements += 1
        if disagreements <= 5 { print("  counts differ for \(query): Larder \(try larder.count(query)), FTS5 \(try sqlite.store.count(query))") }
    }
    var times: ([Double], [Double]) = ([], [])
    for round in 0..<max(rounds, 3) {
        let order = round % 2 == 0 ? [0, 1] : [1, 0]
        for side in order {
            let elapsed = try timed {
                for query in queries { consume(side == 0 ? try larder.search(query) : try sqlite.store.search(query)) }
            }
            (side == 0 ? { times.0.append(seconds(elapsed) / Double(queries.count) * 1e6) } : { times.1.append(seconds(elapsed) / Double(queries.count) * 1e6) })()
        }
    }
    add(name + " (µs)", times.0, times.1, unit: "µs", target: 0.5)
}
rows.append(Row(name: "index size (MB)", larder: Double(sizes.0) / 1e6, sqlite: Double(sizes.1) / 1e6, unit: "MB", target: 1.5))

printTable(rows)
print("queries whose match counts differ between the two: \(disagreements) (tokenizers and query parsers differ at the edges)")

// MARK: - A real corpus (`--corpus DIR`)

/// What one side measures in one round of the real corpus: the cost per document of each write,
/// in µs, and the index's bytes.
struct CorpusRound {
    var build = 0.0
    var insertOne = 0.0
    var insertSmall = 0.0
    var insertLarge = 0.0
    var update = 0.0
    var bytes = 0
    var bytesAfterUpdate = 0
    var growth: Double { Double(bytesAfterUpdate) / Double(bytes) - 1 }
}

/// Larder's full-text search beside FTS5 on the paragraphs of the files under `directory` (see
/// RealTextCorpus).
///
/// A set of documents is held out; the rest is built in transactions of 10 000, then the held-out
/// documents are inserted into the built index in 200 transactions of 1, 8 of 250 and one of
/// 10 000. Then 5% of all the documents get the body of another paragraph, in transactions of
/// 250, and the index's growth is its size after over its size before. Each round builds both
/// sides afresh, in alternating order; the table gives medians.
///
/// Durability, the same on both sides: Larder's side is a `Database` with the default
/// configuration, durability `.full` (each commit flushes its data pages, then its meta page,
/// before the write returns); FTS5's side is GRDB's `DatabaseQueue` with SQLite's defaults, a
/// rollback journal (`journal_mode = DELETE`) with `synchronous = FULL` (the journal, then the
/// database, flushed at each commit). Neither loses an acknowledged commit to a power cut. Both
/// sides write the same documents in transactions of the same sizes.
@MainActor func measureRealCorpus(_ directory: String) throws {
    let rounds = option("--rounds").flatMap { Int($0) } ?? 3
    let queriesPerKind = 200
    var corpus: RealTextCorpus!
    let loading = try timed { corpus = try RealTextCorpus(directory: directory, limit: option("--documents").flatMap { Int($0) }) }
    let documents = corpus.documents
    print("corpus: \(directory): \(corpus.files) files, \(documents.count) documents (paragraphs of prose), "
        + "\(corpus.words) words in their bodies (\(corpus.words / max(documents.count, 1)) a document), \(corpus.distinctTerms) distinct terms "
        + "(read in \(String(format: "%.1f", seconds(loading))) s)")
    print("  \(corpus.joinedWords) words (\(String(format: "%.1f", Double(corpus.joinedWords) / Double(corpus.words) * 100))%) that Larder's "
        + "tokenizer keeps whole and FTS5's unicode61 splits (os.path, don't, e.g) lost their inner punctuation on both sides, so both read the same tokens")

    // The held-out documents, drawn at random (deterministically) from the whole corpus; the
    // documents of each step are written in key order.
    let singles = 200, small = 250, smallTransactions = 8, large = 10_000
    let heldOut = singles + small * smallTransactions + large
    guard documents.count >= heldOut + 1_000 else {
        print("the corpus needs at least \(heldOut + 1_000) documents (\(documents.count))")
        exit(1)
    }
    var random = SplitMix64(seed: 0x5EED_35)
    let shuffled = documents.indices.shuffled(using: &random)
    func pick(_ positions: Range<Int>) -> [FullTextCorpus.Document] { shuffled[positions].sorted().map { documents[$0] } }
    let built = pick(heldOut..<documents.count)
    let insertedOne = pick(0..<singles)
    let insertedSmall = pick(singles..<(singles + small * smallTransactions))
    let insertedLarge = pick((singles + small * smallTransactions)..<heldOut)
    // 5% of all the documents, each with the body of another one.
    let updated = documents.indices.shuffled(using: &random).prefix(documents.count / 20).sorted().map { position in
        let other = documents[(position + Int.random(in: 1..<documents.count, using: &random)) % documents.count]
        return FullTextCorpus.Document(key: documents[position].key, title: documents[position].title, body: other.body)
    }
    print("  built in transactions of 10 000: \(built.count); inserted into the built index: \(singles) in transactions of 1, "
        + "\(small * smallTransactions) in transactions of \(small), \(large) in one; updated: \(updated.count) in transactions of \(small)")

    /// Writes `documents` in transactions of `size` through `write`; returns µs per document.
    func perDocument(_ documents: [FullTextCorpus.Document], size: Int, _ write: (ArraySlice<FullTextCorpus.Document>) throws -> Void) throws -> Double {
        let elapsed = try timed {
            for start in stride(from: 0, to: documents.count, by: size) { try write(documents[start..<min(start + size, documents.count)]) }
        }
        return seconds(elapsed) / Double(documents.count) * 1e6
    }
    /// One round on one side.
    func round(insert: (ArraySlice<FullTextCorpus.Document>) throws -> Void, update: (ArraySlice<FullTextCorpus.Document>) throws -> Void,
               indexBytes: () throws -> Int) throws -> CorpusRound {
        var measured = CorpusRound()
        measured.build = try perDocument(built, size: 10_000, insert)
        measured.insertOne = try perDocument(insertedOne, size: 1, insert)
        measured.insertSmall = try perDocument(insertedSmall, size: small, insert)
        measured.insertLarge = try perDocument(insertedLarge, size: large, insert)
        measured.bytes = try indexBytes()
        measured.update = try perDocument(updated, size: small, update)
        measured.bytesAfterUpdate = try indexBytes()
        return measured
    }

    var measured: ([CorpusRound], [CorpusRound]) = ([], [])
    var larder: LarderSide!
    var sqlite: SQLiteSide!
    for number in 0..<rounds {
        for side in number % 2 == 0 ? [0, 1] : [1, 0] {
            if side == 0 {
                let fresh = try LarderSide()
                measured.0.append(try round(insert: fresh.insert, update: fresh.insert, indexBytes: fresh.indexBytes))
                larder = fresh
            } else {
                let fresh = try SQLiteSide()
                if number == 0 {
                    print("  FTS5: SQLite \(try GRDBStore.sqliteVersion()), journal_mode = \(try fresh.store.setting("journal_mode")), "
                        + "synchronous = \(try fresh.store.setting("synchronous")) (2 is FULL); Larder: durability .full (the default)")
                }
                measured.1.append(try round(insert: fresh.store.insert, update: { try fresh.store.update(Array($0)) }, indexBytes: fresh.store.indexBytes))
                sqlite = fresh
            }
        }
        let (l, s) = (measured.0[number], measured.1[number])
        print(String(format: "  round %d: build %.1f / %.1f µs, insert (1) %.0f / %.0f, insert (250) %.1f / %.1f, insert (10 000) %.1f / %.1f, update %.1f / %.1f, size %.1f / %.1f MB, growth %.1f%% / %.1f%%",
                     number + 1, l.build, s.build, l.insertOne, s.insertOne, l.insertSmall, s.insertSmall, l.insertLarge, s.insertLarge,
                     l.update, s.update, Double(l.bytes) / 1e6, Double(s.bytes) / 1e6, l.growth * 100, s.growth * 100))
    }

    func megabytes(_ parts: [(name: String, bytes: Int)]) -> String {
        parts.map { "\($0.name) \(String(format: "%.2f", Double($0.bytes) / 1e6))" }.joined(separator: ", ")
    }
    print("  index by database after the updates (MB): Larder \(megabytes(try larder.indexBytesByDatabase())); FTS5 \(megabytes(try sqlite.store.indexBytesByTable()))")

    var rows: [Row] = []
    func add(_ name: String, _ value: (CorpusRound) -> Double, unit: String, target: Double? = nil, larderAtMost: Double? = nil) {
        rows.append(Row(name: name, larder: median(measured.0.map(value)), sqlite: median(measured.1.map(value)), unit: unit, target: target, larderAtMost: larderAtMost))
    }
    add("build, transactions of 10 000, per document (µs)", \.build, unit: "µs", target: 1.5)
    add("insert, transactions of 1, per document (µs)", \.insertOne, unit: "µs")
    add("insert, transactions of 250, per document (µs)", \.insertSmall, unit: "µs", target: 1.5)
    add("insert, transactions of 10 000, per document (µs)", \.insertLarge, unit: "µs")
    add("update 5%, transactions of 250, per document (µs)", \.update, unit: "µs")
    add("index size after build and inserts (MB)", { Double($0.bytes) / 1e6 }, unit: "MB", target: 1.2)
    add("growth after updating 5% of the documents (%)", { $0.growth * 100 }, unit: "%", larderAtMost: 15)

    // Queries: the same queries on both sides, top 10 by BM25, each in its own read transaction,
    // against the stores of the last round.
    let rare = 3...10
    print("  query terms: common ranks 100–300 (\(corpus.vocabulary[100].occurrences)–\(corpus.vocabulary[300].occurrences) occurrences), "
        + "middling 1 000–3 000 (\(corpus.vocabulary[1_000].occurrences)–\(corpus.vocabulary[3_000].occurrences)), "
        + "rare \(rare.lowerBound)–\(rare.upperBound) occurrences (ranks \(corpus.ranks(occurrences: rare).map { "\($0.lowerBound)–\($0.upperBound)" } ?? "none")), "
        + "of \(corpus.vocabulary.count) terms of ASCII letters")
    let kinds: [(String, [String])] = [
        ("query: common term", corpus.terms(queriesPerKind, ranks: 100...300, seed: 1)),
        ("query: middling term", corpus.terms(queriesPerKind, ranks: 1_000...3_000, seed: 2)),
        ("query: rare term", corpus.terms(queriesPerKind, occurrences: rare, seed: 3)),
        ("query: AND of two terms", zip(corpus.terms(queriesPerKind, ranks: 100...1_000, seed: 4), corpus.terms(queriesPerKind, ranks: 100...1_000, seed: 5)).map { "\($0) AND \($1)" }),
        ("query: phrase of two words", corpus.phrases(queriesPerKind, seed: 6)),
        ("query: prefix", corpus.prefixes(queriesPerKind, ranks: 1_000...3_000, seed: 7)),
    ]
    var disagreements: [String] = []
    for (name, queries) in kinds {
        var differing = 0
        for query in queries {
            let counts = (try larder.count(query), try sqlite.store.count(query))
            if counts.0 != counts.1 {
                differing += 1
                if differing <= 3 { print("  counts differ for \(query): Larder \(counts.0), FTS5 \(counts.1)") }
            }
        }
        disagreements.append("\(name.dropFirst("query: ".count)) \(differing)")
        var times: ([Double], [Double]) = ([], [])
        for number in 0..<max(rounds, 3) {
            for side in number % 2 == 0 ? [0, 1] : [1, 0] {
                let elapsed = try timed {
                    for query in queries { consume(side == 0 ? try larder.search(query) : try sqlite.store.search(query)) }
                }
                if side == 0 { times.0.append(seconds(elapsed) / Double(queries.count) * 1e6) } else { times.1.append(seconds(elapsed) / Double(queries.count) * 1e6) }
            }
        }
        rows.append(Row(name: name + " (µs)", larder: median(times.0), sqlite: median(times.1), unit: "µs", target: 0.5))
    }

    printTable(rows)
    print("queries whose match counts differ between the two, of \(queriesPerKind) a kind: \(disagreements.joined(separator: ", "))")
}
