/// A ``FullTextQuery`` resolved against one full-text search: its words read by the search's
/// tokenizer into the bytes of indexed terms, its column filters into column numbers, and its
/// leaves (terms, phrases, prefixes) numbered in the order they appear, which is the order
/// their scores are added in.
struct FullTextPlan {
    /// What one leaf matches.
    enum Match: Equatable {
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

    /// The query's shape over its leaves.
    indirect enum Node {
        case leaf(Int)
        case and([Node])
        case or([Node])
        case not(Node, excluding: Node)
    }

    private(set) var leaves: [Leaf] = []
    private(set) var root: Node = .and([])

    /// `query` resolved with `tokenizer` over `columnNames`.
    /// - Throws: ``LarderError/Code/invalidQuery`` for a column filter that names no column, a
    ///   column filter inside another, a prefix that is not one word, or a query with no word to
    ///   search for once words without letters or digits are left out.
    init(_ query: FullTextQuery, tokenizer: FullTextTokenizer, columnNames: [String]) throws {
        guard let root = try resolve(query.node, column: nil, positive: true, tokenizer: tokenizer, columnNames: columnNames) else {
            throw Self.invalid(query, "it has no word to search for (words without letters or digits are left out)")
        }
        self.root = root
    }

    private static func invalid(_ query: FullTextQuery, _ problem: String) -> LarderError {
        LarderError(.invalidQuery, "the full-text query «\(query)» is not valid: \(problem)", operation: "fullTextSearch")
    }

    /// `node` resolved, `nil` when nothing is left of it (words without letters or digits).
    private mutating func resolve(_ node: FullTextQuery.Node, column: Int?, positive: Bool, tokenizer: FullTextTokenizer, columnNames: [String]) throws -> Node? {
        func add(_ match: Match) -> Node {
            leaves.append(Leaf(match: match, column: column, positive: positive))
            return .leaf(leaves.count - 1)
        }
        func terms(of text: String) -> [[UInt8]?] {
            tokenizer.tokens(in: text).map { FullTextTerm.bytes(of: $0.term) }
        }
        switch node {
        case .word(let word):
            let found = terms(of: word)
            if found.count == 1 {
                return add((tokenizer.term(for: word).flatMap(FullTextTerm.bytes(of:))).map(Match.term) ?? .nothing)
            }
            return found.isEmpty ? nil : add(found.contains(nil) ? .nothing : .phrase(found.map { $0! }))
        case .phrase(let words):
            let found = terms(of: words)
            if found.contains(nil) { return found.isEmpty ? nil : add(.nothing) }
            return found.isEmpty ? nil : add(found.count == 1 ? .term(found[0]!) : .phrase(found.map { $0! }))
        case .prefix(let start):
            let tokens = tokenizer.tokens(in: start)
            guard tokens.count == 1 else {
                throw Self.invalid(FullTextQuery(node), tokens.isEmpty ? "the prefix \(start)* has no letter or digit" : "the prefix \(start)* is not one word")
            }
            return add(FullTextTerm.prefixBytes(of: tokenizer.fold(String(start[tokens[0].range]))).map(Match.prefix) ?? .nothing)
        case .column(let name, let inner):
            guard column == nil else { throw Self.invalid(FullTextQuery(node), "a column filter (\(name):) stands inside another") }
            guard let number = columnNames.firstIndex(of: name) else {
                throw Self.invalid(FullTextQuery(node), "the search has no column \(name) (its columns: \(columnNames.joined(separator: ", ")))")
            }
            return try resolve(inner, column: number, positive: positive, tokenizer: tokenizer, columnNames: columnNames)
        case .and(let nodes), .or(let nodes):
            var resolved: [Node] = []
            for child in nodes {
                if let kept = try resolve(child, column: column, positive: positive, tokenizer: tokenizer, columnNames: columnNames) { resolved.append(kept) }
            }
            if resolved.count <= 1 { return resolved.first }
            if case .and = node { return .and(resolved) }
            return .or(resolved)
        case .not(let kept, let excluded):
            let left = try resolve(kept, column: column, positive: positive, tokenizer: tokenizer, columnNames: columnNames)
            let right = try resolve(excluded, column: column, positive: false, tokenizer: tokenizer, columnNames: columnNames)
            guard let left else { return nil }
            return right.map { .not(left, excluding: $0) } ?? left
        }
    }
}
