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
//
// Targets (issue 20): queries at most 0.5× FTS5's time (2× faster), index at most 1.5× its size,
// insert cost at most 2× its cost.

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

print("corpus: \(count) documents, vocabulary 30 000 words (Zipf–Mandelbrot), title 3–6 words, body 8–20")
let corpus = FullTextCorpus(count: count)

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
        let pageSize = try db.statistics().pageSize
        return try db.databaseStatistics().filter { $0.name?.hasPrefix("x.search.") == true }
            .reduce(0) { $0 + ($1.branchPages + $1.leafPages + $1.overflowPages) * pageSize }
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
    var target: Double?
    var ratio: Double { larder / sqlite }
}

var rows: [Row] = []
@MainActor func add(_ name: String, _ larder: [Double], _ sqlite: [Double], unit: String, target: Double?) {
    rows.append(Row(name: name, larder: median(larder), sqlite: median(sqlite), unit: unit, target: target))
}

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

print("")
print("| measure | Larder | FTS5 (GRDB) | ratio | target |")
print("|---|---|---|---|---|")
for row in rows {
    let verdict = row.target.map { row.ratio <= $0 ? "≤ \($0): met" : "≤ \($0): **missed**" } ?? ""
    print("| \(row.name) | \(String(format: "%.2f", row.larder)) | \(String(format: "%.2f", row.sqlite)) | \(String(format: "%.2f", row.ratio)) | \(verdict) |")
}
print("")
print("queries whose match counts differ between the two: \(disagreements) (tokenizers and query parsers differ at the edges)")
