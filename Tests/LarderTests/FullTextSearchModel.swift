import Foundation
@testable import Larder

/// The brute-force model the full-text search is checked against: documents kept as token
/// lists, queries as trees of its own, matching by scanning every document and scoring with the
/// BM25 formula written out here. It shares the tokenizer with the index (what a word means is
/// the tokenizer's business) and nothing of how the index evaluates queries.
struct FullTextModel {
    /// A query as the model evaluates it (and renders it in the query language).
    indirect enum Query {
        case word(String)
        case phrase([String])
        case prefix(String)
        case column(Int, Query)
        /// Every query of the first list, and none of the second.
        case and([Query], excluded: [Query])
        case or([Query])
        case not(Query, Query)
    }

    /// What one leaf matches, as plain strings.
    enum Leaf {
        case term(String)
        case phrase([String])
        case prefix(String)
    }

    struct Document {
        /// Per column, the tokens' terms and positions.
        var columns: [[(term: String, position: Int)]]
        var length: Int { columns.reduce(0) { $0 + $1.count } }
    }

    let tokenizer: FullTextTokenizer
    let columnNames: [String]
    let weights: [Double]
    var documents: [YapDB.Index: Document] = [:]

    init(tokenizer: FullTextTokenizer, columnNames: [String], weights: [Double]) {
        self.tokenizer = tokenizer
        self.columnNames = columnNames
        self.weights = weights
    }

    mutating func set(_ index: YapDB.Index, texts: [String]?) {
        documents[index] = texts.map { texts in
            Document(columns: texts.map { text in tokenizer.tokens(in: text).map { ($0.term, $0.position) } })
        }
    }

    mutating func removeCollection(_ collection: String) {
        documents = documents.filter { $0.key.collection != collection }
    }

    // MARK: Leaves

    func leaf(ofWord word: String) -> Leaf? {
        let tokens = tokenizer.tokens(in: word)
        if tokens.count == 1 { return .term(tokenizer.term(for: word)!) }
        return tokens.isEmpty ? nil : .phrase(tokens.map(\.term))
    }

    func occurrences(of leaf: Leaf, in tokens: [(term: String, position: Int)]) -> Int {
        switch leaf {
        case .term(let term):
            return tokens.filter { $0.term == term }.count
        case .prefix(let start):
            return tokens.filter { Array($0.term.utf8).starts(with: Array(start.utf8)) }.count
        case .phrase(let terms):
            guard terms.count <= tokens.count else { return 0 }
            var count = 0
            for first in 0...(tokens.count - terms.count) {
                let found = terms.indices.allSatisfy { step in
                    tokens[first + step].term == terms[step] && tokens[first + step].position == tokens[first].position + step
                }
                if found { count += 1 }
            }
            return count
        }
    }

    /// Whether `document` holds `leaf` (in `column`, or any), and its weighted frequency there.
    func frequency(of leaf: Leaf, in document: Document, column: Int?) -> (matched: Bool, frequency: Double) {
        var matched = false
        var frequency = 0.0
        for (number, tokens) in document.columns.enumerated() where column == nil || column == number {
            let count = occurrences(of: leaf, in: tokens)
            if count > 0 {
                matched = true
                frequency += weights[number] * Double(count)
            }
        }
        return (matched, frequency)
    }

    func resolved(_ query: Query) -> (leaf: Leaf, column: Int?)? {
        switch query {
        case .word(let word): return leaf(ofWord: word).map { ($0, nil) }
        case .phrase(let words):
            let tokens = tokenizer.tokens(in: words.joined(separator: " "))
            if tokens.count == 1 { return (.term(tokens[0].term), nil) }
            return (.phrase(tokens.map(\.term)), nil)
        case .prefix(let start): return (.prefix(tokenizer.fold(start)), nil)
        default: return nil
        }
    }

    // MARK: Evaluation

    func matches(_ document: Document, _ query: Query, column: Int? = nil) -> Bool {
        switch query {
        case .word, .phrase, .prefix:
            guard let (leaf, _) = resolved(query) else { return false }
            return frequency(of: leaf, in: document, column: column).matched
        case .column(let number, let inner):
            return matches(document, inner, column: number)
        case .and(let kept, let excluded):
            return kept.allSatisfy { matches(document, $0, column: column) } && !excluded.contains { matches(document, $0, column: column) }
        case .or(let alternatives):
            return alternatives.contains { matches(document, $0, column: column) }
        case .not(let kept, let excluded):
            return matches(document, kept, column: column) && !matches(document, excluded, column: column)
        }
    }

    /// The leaves that add to scores, in the order they appear.
    func positiveLeaves(_ query: Query, column: Int? = nil) -> [(leaf: Leaf, column: Int?)] {
        switch query {
        case .word, .phrase, .prefix: return resolved(query).map { [($0.leaf, column)] } ?? []
        case .column(let number, let inner): return positiveLeaves(inner, column: number)
        case .and(let kept, _): return kept.flatMap { positiveLeaves($0, column: column) }
        case .or(let alternatives): return alternatives.flatMap { positiveLeaves($0, column: column) }
        case .not(let kept, _): return positiveLeaves(kept, column: column)
        }
    }

    /// The expected results, best first, ties by collection and key byte-wise.
    func search(_ query: Query) -> [(index: YapDB.Index, score: Double)] {
        let k1 = 1.2
        let b = 0.75
        let count = Double(documents.count)
        let total = documents.values.reduce(0) { $0 + $1.length }
        let average = Double(total) / count
        let leaves = positiveLeaves(query).map { leaf -> (Leaf, Int?, Double) in
            let n = Double(documents.values.filter { frequency(of: leaf.leaf, in: $0, column: leaf.column).matched }.count)
            return (leaf.leaf, leaf.column, log(1 + (count - n + 0.5) / (n + 0.5)))
        }
        var results: [(index: YapDB.Index, score: Double)] = []
        for (index, document) in documents where matches(document, query) {
            var score = 0.0
            for (leaf, column, idf) in leaves {
                let (matched, tf) = frequency(of: leaf, in: document, column: column)
                if matched { score += idf * (tf * (k1 + 1)) / (tf + k1 * (1 - b + b * Double(document.length) / average)) }
            }
            results.append((index, score))
        }
        return results.sorted { a, b in
            if a.score != b.score { return a.score > b.score }
            if a.index.collection != b.index.collection { return a.index.collection.utf8.lexicographicallyPrecedes(b.index.collection.utf8) }
            return a.index.key.utf8.lexicographicallyPrecedes(b.index.key.utf8)
        }
    }

    // MARK: Rendering

    /// `query` in the query language, with some of its freedoms taken at random (AND written or
    /// not, exclusions as `-x` placed anywhere among the words).
    func text<G: RandomNumberGenerator>(of query: Query, using random: inout G) -> String {
        func grouped(_ query: Query) -> String {
            switch query {
            case .word, .phrase, .prefix, .column: text(of: query, using: &random)
            default: "(" + text(of: query, using: &random) + ")"
            }
        }
        switch query {
        case .word(let word): return word
        case .phrase(let words): return "\"" + words.joined(separator: " ") + "\""
        case .prefix(let start): return start + "*"
        case .column(let number, let inner): return columnNames[number] + ":" + grouped(inner)
        case .and(let kept, let excluded):
            var parts = kept.map { member -> String in
                if case .not = member { return text(of: member, using: &random) }
                return grouped(member)
            }
            for member in excluded { parts.insert("-" + grouped(member), at: Int.random(in: 0...parts.count, using: &random)) }
            // An exclusion first is fine; "AND" may not follow nothing or precede a "-" oddly.
            var joined = parts[0]
            for part in parts.dropFirst() { joined += Bool.random(using: &random) && !part.hasPrefix("-") ? " AND " + part : " " + part }
            return joined
        case .or(let alternatives):
            return alternatives.map { member -> String in
                if case .or = member { return grouped(member) }
                return text(of: member, using: &random)
            }.joined(separator: " OR ")
        case .not(let kept, let excluded):
            return grouped(kept) + " NOT " + grouped(excluded)
        }
    }

    /// `query` built in code.
    func built(_ query: Query) -> FullTextQuery {
        switch query {
        case .word(let word): .word(word)
        case .phrase(let words): .phrase(words.joined(separator: " "))
        case .prefix(let start): .prefix(start)
        case .column(let number, let inner): .column(columnNames[number], built(inner))
        case .and(let kept, let excluded):
            excluded.isEmpty ? .and(kept.map(built)) : FullTextQuery.and(kept.map(built)).excluding(.or(excluded.map(built)))
        case .or(let alternatives): .or(alternatives.map(built))
        case .not(let kept, let excluded): built(kept).excluding(built(excluded))
        }
    }
}
