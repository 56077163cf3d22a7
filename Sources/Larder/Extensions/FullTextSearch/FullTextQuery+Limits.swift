/// What a query may hold, and the messages that quote it. A search box is outside input: these
/// bounds keep a hostile query from exhausting the stack or the memory of the process that
/// runs it, and keep the error that refuses it short.
extension FullTextQuery {
    /// How deep a query may nest: at most this many groups `( … )` open at once, and at most
    /// this many operators (AND, OR, NOT) and column filters one inside another. A chain
    /// `a NOT b NOT c …` puts each NOT inside the next, so it holds at most this many NOTs
    /// (write `a NOT (b OR c …)` instead). SQLite's FTS5 caps its expression tree at the same
    /// depth. A deeper query throws ``LarderError/Code/invalidQuery`` when it is parsed, or,
    /// built in code, when it is searched for.
    public static let maximumDepth = 256

    /// How many words a phrase may have, as the search's tokenizer reads them (a word it splits,
    /// such as `e-mail`, is a phrase of its parts). Each word of a phrase is walked with a cursor
    /// of its own. A longer phrase throws ``LarderError/Code/invalidQuery`` when it is searched
    /// for.
    public static let maximumPhraseWords = 512

    /// How many terms a query may have: each word, each word of a phrase and each prefix counts
    /// one, as the search's tokenizer reads them (words without letters or digits count none).
    /// Each term's postings are read, so a query with more throws
    /// ``LarderError/Code/invalidQuery`` when it is searched for.
    public static let maximumTerms = 4_096

    /// How many postings blocks the prefixes of one query may read together. A prefix reads
    /// every block of every term it matches, so its cost grows with the vocabulary, not with the
    /// query's length: `a*` over a large index, or thousands of prefixes that each match
    /// thousands of terms, could otherwise keep a search box's query running for seconds within
    /// every other limit. A query whose prefixes would read more throws
    /// ``LarderError/Code/invalidQuery`` (use longer prefixes); its results are never cut short.
    /// A prefix written twice is read once. At about 65 ns a block (release build), the cap
    /// bounds the prefixes' reading to well under a second.
    public static let maximumPrefixBlocks = 1_000_000

    /// How many characters of a query an error message quotes; the rest is cut at an ellipsis.
    static let quotedCharacters = 200

    /// How many characters of one word, column name or phrase an error message quotes.
    static let quotedWordCharacters = 40

    /// `text` in «», cut after ``quotedCharacters`` characters with an ellipsis and the length of
    /// the whole.
    static func quoted(_ text: some StringProtocol) -> String {
        var kept = 0
        var end = text.startIndex
        while end < text.endIndex, kept < quotedCharacters {
            end = text.index(after: end)
            kept += 1
        }
        guard end < text.endIndex else { return "«\(text)»" }
        return "«\(text[..<end])…» (the first \(quotedCharacters) of its \(text.count) characters)"
    }

    /// A word, column name or phrase of a query for a message: cut after
    /// ``quotedWordCharacters`` characters with an ellipsis.
    static func shortened(_ text: some StringProtocol) -> String {
        text.count > quotedWordCharacters ? "\(text.prefix(quotedWordCharacters))…" : String(text)
    }

    /// The query in the query language for a message: rendered no further than needed for
    /// ``quoted(_:)``, so that a huge query costs no more than a short one.
    var quoted: String {
        let rendered = Self.render(node, stoppingAfter: Self.quotedCharacters + 1)
        guard rendered.count > Self.quotedCharacters else { return "«\(rendered)»" }
        return "«\(rendered.prefix(Self.quotedCharacters))…» (its first \(Self.quotedCharacters) characters)"
    }

    /// The error of a query that `problem` makes invalid.
    static func invalid(_ quotedQuery: String, _ problem: String) -> LarderError {
        LarderError(.invalidQuery, "the full-text query \(quotedQuery) is not valid: \(problem)", operation: "fullTextSearch")
    }

    /// Why a query nests too deep, and what to do.
    static let tooDeep = "its operators and column filters nest more than \(maximumDepth) levels deep (each AND, OR, NOT or column filter inside another is one level, and each NOT of a chain a NOT b NOT c … one more); a query may nest \(maximumDepth) levels (FullTextQuery.maximumDepth): write a NOT (b OR c …) rather than a chain, or split the query"

    /// Throws when the query nests deeper than ``maximumDepth``; walks the tree with a stack of
    /// its own, so a query built in code as deep as memory allows is refused, not a crash.
    /// - Throws: ``LarderError/Code/invalidQuery`` when the query nests too deep.
    /// - Complexity: O(n) for the n nodes of the query, stopping at the first too deep.
    func checkDepth() throws {
        // Each pending node with the number of operators and column filters above it.
        var pending: [(node: Node, depth: Int)] = [(node, 0)]
        while let (node, depth) = pending.popLast() {
            let children: [Node]
            switch node {
            case .word, .phrase, .prefix: continue
            case .column(_, let inner): children = [inner]
            case .and(let nodes), .or(let nodes): children = nodes
            case .not(let kept, let excluded): children = [kept, excluded]
            }
            guard depth < Self.maximumDepth else { throw Self.invalid(quoted, Self.tooDeep) }
            for child in children { pending.append((child, depth + 1)) }
        }
    }
}
