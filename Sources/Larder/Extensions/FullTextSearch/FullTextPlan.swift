/// A ``FullTextQuery`` resolved against one full-text search: its words read by the search's
/// tokenizer into the bytes of indexed terms, its column filters into column numbers, and its
/// leaves (terms, phrases, prefixes) numbered in the order they appear, which is the order
/// their scores are added in.
struct FullTextPlan {
    /// What one leaf matches.
    enum Match: Hashable {
        /// One term.
        case term([UInt8])
        /// Terms at consecutive positions of one column.
        case phrase([[UInt8]])
        /// Every term that starts with these bytes.
        case prefix([UInt8])
        /// Nothing: a term that cannot be indexed (a NUL in it).
        case nothing
    }

    /// A term, phrase or prefix of the query.
    struct Leaf: Equatable {
        var match: Match
        /// The column it is restricted to, `nil` for all.
        var column: Int?
        /// Whether it adds to scores: it is not on the excluded side of a NOT.
        var positive: Bool
    }

    /// What a leaf reads: its match in its column.
    private struct ReadKey: Hashable {
        var match: Match
        var column: Int?
    }

    /// The query's shape over its leaves.
    indirect enum Node {
        case leaf(Int)
        case and([Node])
        case or([Node])
        case not(Node, excluding: Node)
    }

    private(set) var leaves: [Leaf] = []
    private(set) var root: Node = .and([])
    /// For each leaf, the first leaf that reads the same postings (the same match in the same
    /// column; the polarity does not change what is read): a term or prefix written many times
    /// is read once, and each of its leaves still scores as written.
    private(set) var source: [Int] = []

    /// `query` resolved with `tokenizer` over `columnNames`.
    /// - Throws: ``LarderError/Code/invalidQuery`` for a query that nests deeper than
    ///   ``FullTextQuery/maximumDepth``, a column filter that names no column, a column filter
    ///   inside another, a prefix that is not one word, a phrase of more than
    ///   ``FullTextQuery/maximumPhraseWords`` words, more than ``FullTextQuery/maximumTerms``
    ///   terms, or a query with no word to search for once words without letters or digits are
    ///   left out.
    /// - Complexity: O(n) for the n characters of the query's words, walked with a stack of its
    ///   own (no recursion).
    init(_ query: FullTextQuery, tokenizer: FullTextTokenizer, columnNames: [String]) throws {
        try query.checkDepth()
        guard let root = try resolve(query, tokenizer: tokenizer, columnNames: columnNames) else {
            throw FullTextQuery.invalid(query.quoted, "it has no word to search for (words without letters or digits are left out)")
        }
        self.root = root
    }

    /// What is left to do for one node of the query: resolve it, or combine what its children
    /// resolved to (the last `count` results).
    private enum Work {
        case resolve(FullTextQuery.Node, column: Int?, positive: Bool)
        case and(count: Int)
        case or(count: Int)
        case not
    }

    /// `query` resolved, `nil` when nothing is left of it (words without letters or digits).
    /// Children are resolved first to last, so leaves are numbered in the order they appear.
    private mutating func resolve(_ query: FullTextQuery, tokenizer: FullTextTokenizer, columnNames: [String]) throws -> Node? {
        var termCount = 0
        var firstLeaf: [ReadKey: Int] = [:]
        func invalid(_ node: FullTextQuery.Node, _ problem: String) -> LarderError {
            FullTextQuery.invalid(FullTextQuery(node).quoted, problem)
        }
        func add(_ match: Match, column: Int?, positive: Bool) throws -> Node {
            switch match {
            case .term, .prefix, .nothing: termCount += 1
            case .phrase(let words): termCount += words.count
            }
            guard termCount <= FullTextQuery.maximumTerms else {
                throw FullTextQuery.invalid(query.quoted, "it has more than \(FullTextQuery.maximumTerms) terms (each word, each word of a phrase and each prefix counts one); a query may have \(FullTextQuery.maximumTerms) (FullTextQuery.maximumTerms): search for fewer words, or split the query into several searches")
            }
            leaves.append(Leaf(match: match, column: column, positive: positive))
            let key = ReadKey(match: match, column: column)
            source.append(firstLeaf[key, default: leaves.count - 1])
            if firstLeaf[key] == nil { firstLeaf[key] = leaves.count - 1 }
            return .leaf(leaves.count - 1)
        }
        func phrase(_ found: [[UInt8]?], of node: FullTextQuery.Node) throws -> [[UInt8]?] {
            guard found.count <= FullTextQuery.maximumPhraseWords else {
                throw invalid(node, "a phrase has \(found.count) words; a phrase may have \(FullTextQuery.maximumPhraseWords) (FullTextQuery.maximumPhraseWords): search for a shorter part of it")
            }
            return found
        }
        func terms(of text: String) -> [[UInt8]?] {
            tokenizer.tokens(in: text).map { FullTextTerm.bytes(of: $0.term) }
        }
        var work = [Work.resolve(query.node, column: nil, positive: true)]
        var results: [Node?] = []
        while let next = work.popLast() {
            switch next {
            case .resolve(let node, let column, let positive):
                switch node {
                case .word(let word):
                    let found = try phrase(terms(of: word), of: node)
                    if found.count == 1 {
                        results.append(try add((tokenizer.term(for: word).flatMap(FullTextTerm.bytes(of:))).map(Match.term) ?? .nothing, column: column, positive: positive))
                    } else {
                        results.append(found.isEmpty ? nil : try add(found.contains(nil) ? .nothing : .phrase(found.map { $0! }), column: column, positive: positive))
                    }
                case .phrase(let words):
                    let found = try phrase(terms(of: words), of: node)
                    if found.contains(nil) {
                        results.append(found.isEmpty ? nil : try add(.nothing, column: column, positive: positive))
                    } else {
                        results.append(found.isEmpty ? nil : try add(found.count == 1 ? .term(found[0]!) : .phrase(found.map { $0! }), column: column, positive: positive))
                    }
                case .prefix(let start):
                    let tokens = tokenizer.tokens(in: start)
                    guard tokens.count == 1 else {
                        let shown = FullTextQuery.shortened(start)
                        throw invalid(node, tokens.isEmpty ? "the prefix \(shown)* has no letter or digit" : "the prefix \(shown)* is not one word")
                    }
                    let bytes = FullTextTerm.prefixBytes(of: tokenizer.fold(String(start[tokens[0].range])))
                    results.append(try add(bytes.map(Match.prefix) ?? .nothing, column: column, positive: positive))
                case .column(let name, let inner):
                    let shown = FullTextQuery.shortened(name)
                    guard column == nil else { throw invalid(node, "a column filter (\(shown):) stands inside another") }
                    guard let number = columnNames.firstIndex(of: name) else {
                        throw invalid(node, "the search has no column \(shown) (its columns: \(columnNames.joined(separator: ", ")))")
                    }
                    work.append(.resolve(inner, column: number, positive: positive))
                case .and(let nodes), .or(let nodes):
                    if case .and = node { work.append(.and(count: nodes.count)) } else { work.append(.or(count: nodes.count)) }
                    for child in nodes.reversed() { work.append(.resolve(child, column: column, positive: positive)) }
                case .not(let kept, let excluded):
                    work.append(.not)
                    work.append(.resolve(excluded, column: column, positive: false))
                    work.append(.resolve(kept, column: column, positive: positive))
                }
            case .and(let count), .or(let count):
                let kept = results.suffix(count).compactMap { $0 }
                results.removeLast(count)
                if kept.count <= 1 {
                    results.append(kept.first)
                } else if case .and = next {
                    results.append(.and(kept))
                } else {
                    results.append(.or(kept))
                }
            case .not:
                let right = results.removeLast()
                let left = results.removeLast()
                results.append(left.map { left in right.map { .not(left, excluding: $0) } ?? left })
            }
        }
        return results.last ?? nil
    }
}
