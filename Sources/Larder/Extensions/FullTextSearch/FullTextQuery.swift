/// What a ``FullTextSearch`` is asked: words, phrases and prefixes combined with AND, OR and NOT,
/// optionally restricted to a column. Parse one from what a user typed, or build one in code.
///
/// ```swift
/// let typed = try FullTextQuery(parsing: "title:swift (server OR vapor) -\"objective c\"")
/// let built = FullTextQuery.and([.column("title", .word("swift")), .or([.word("server"), .word("vapor")])])
///     .excluding(.phrase("objective c"))
/// ```
///
/// The query language (``init(parsing:)``):
///
/// | syntax | matches |
/// |---|---|
/// | `swift vapor`, `swift AND vapor` | documents with both (a space is an AND) |
/// | `swift OR vapor` | documents with either |
/// | `swift NOT objc`, `swift -objc` | documents with the first and without the second |
/// | `"full text search"` | the words in this order, one after the other, in one column |
/// | `swi*` | any term that starts with `swi` (folded as terms are, not stemmed) |
/// | `title:swift`, `title:"a phrase"`, `title:(a OR b)` | only in column `title` |
/// | `( … )` | grouping |
///
/// NOT binds tightest, then AND, then OR: `a b OR c NOT d` is `(a AND b) OR (c NOT d)`. `AND`,
/// `OR` and `NOT` are operators only in capitals. A word is read by the search's tokenizer as
/// a text is: case and diacritics fold, and with stemming on `connections` finds `connected`; a
/// word the tokenizer splits (`e-mail`) is a phrase of its parts; a word with no letter or digit
/// is left out.
///
/// A query is checked against the search's columns when it runs: a column filter naming another
/// column throws ``LarderError/Code/invalidQuery`` then.
///
/// **Limits.** A query is outside input, so it is bounded: it nests at most ``maximumDepth``
/// (256) levels, a phrase has at most ``maximumPhraseWords`` (512) words, and a query at most
/// ``maximumTerms`` (4,096) terms. Beyond them a query throws ``LarderError/Code/invalidQuery``
/// (the depth when it is parsed; a query built in code, and the other two, when it is searched
/// for), never exhausts the stack. Error messages quote at most 200 characters of a query.
public struct FullTextQuery: Sendable, Hashable, CustomStringConvertible {
    /// A query as a tree.
    indirect enum Node: Sendable, Hashable {
        /// A word as typed, read by the tokenizer (several tokens make a phrase).
        case word(String)
        /// Words that must follow each other in one column.
        case phrase(String)
        /// Any term that starts with the folded text.
        case prefix(String)
        /// The query, within one column only.
        case column(String, Node)
        /// Documents that match every query.
        case and([Node])
        /// Documents that match any query.
        case or([Node])
        /// Documents that match the first query and not the second.
        case not(Node, excluding: Node)
    }

    let node: Node

    init(_ node: Node) {
        self.node = node
    }

    /// The query `text` states in the query language (see ``FullTextQuery``).
    ///
    /// ```swift
    /// let query = try FullTextQuery(parsing: "\"full text\" swi* -objc")
    /// ```
    /// - Throws: ``LarderError/Code/invalidQuery`` when `text` is empty or malformed: an
    ///   unbalanced quote or parenthesis, empty parentheses, `AND`, `OR` or `NOT` with nothing on
    ///   one side, a `*` with no word before it, a column filter followed by nothing it can apply
    ///   to, or a group made only of exclusions (`-a`, `NOT a`), which would match everything
    ///   but a few documents; or when it nests deeper than ``maximumDepth`` (groups open at
    ///   once, or operators one inside another). The message says what and where, quoting at
    ///   most the first 200 characters of `text`.
    /// - Complexity: O(n) for the n characters of `text`, whatever its nesting: the parser
    ///   keeps its open groups on a stack of its own.
    public init(parsing text: String) throws {
        var parser = FullTextQueryParser(text)
        self = try parser.parse()
    }

    /// Documents where `word` occurs (read by the search's tokenizer: a word it splits into
    /// several tokens is a phrase of them).
    public static func word(_ word: String) -> FullTextQuery { FullTextQuery(.word(word)) }

    /// Documents where the words of `words` occur one after the other, in one column.
    public static func phrase(_ words: String) -> FullTextQuery { FullTextQuery(.phrase(words)) }

    /// Documents with a term that starts with `start`, folded by the search's tokenizer but not
    /// stemmed (`prefix("Connect")` matches `connect`, `connected`, `connection`).
    public static func prefix(_ start: String) -> FullTextQuery { FullTextQuery(.prefix(start)) }

    /// `query` within the column `name` only.
    public static func column(_ name: String, _ query: FullTextQuery) -> FullTextQuery { FullTextQuery(.column(name, query.node)) }

    /// Documents that match every query of `queries`.
    public static func and(_ queries: [FullTextQuery]) -> FullTextQuery { FullTextQuery(.and(queries.map(\.node))) }

    /// Documents that match at least one query of `queries`.
    public static func or(_ queries: [FullTextQuery]) -> FullTextQuery { FullTextQuery(.or(queries.map(\.node))) }

    /// Documents that match this query and not `other` (`other` adds nothing to scores).
    public func excluding(_ other: FullTextQuery) -> FullTextQuery { FullTextQuery(.not(node, excluding: other.node)) }

    /// The query in the query language; parsing it gives the same query back, up to grouping
    /// and the characters the language reserves (quotes are dropped from words and phrases).
    public var description: String { Self.render(node, stoppingAfter: nil) }

    /// A part of a query's text still to write: a query, or text around one.
    private enum Piece {
        case node(Node)
        case text(String)
    }

    /// `node` in the query language, written with a stack of pieces still to write rather than
    /// by recursion, so any depth renders; with `limit`, it stops once it holds more than `limit`
    /// characters (a few more may follow the limit).
    static func render(_ node: Node, stoppingAfter limit: Int?) -> String {
        var text = ""
        var written = 0
        func write(_ part: String) {
            text += part
            written += part.count
        }
        var pending = [Piece.node(node)]
        while let piece = pending.popLast() {
            if let limit, written > limit { break }
            switch piece {
            case .text(let part):
                write(part)
            case .node(let node):
                // The pieces go on the stack last first.
                switch node {
                case .word(let word):
                    write(wordText(word))
                case .phrase(let words):
                    write("\"\(words.filter { $0 != "\"" })\"")
                case .prefix(let start):
                    write(String(start.map { $0.isWhitespace || "()\":*".contains($0) ? " " : $0 }).trimmingSpaces() + "*")
                case .column(let name, let query):
                    pending += grouped(query).reversed()
                    pending.append(.text(name + ":"))
                case .and(let queries):
                    guard !queries.isEmpty else {
                        write("()")
                        continue
                    }
                    for (offset, query) in queries.enumerated().reversed() {
                        pending += grouped(query).reversed()
                        if offset > 0 { pending.append(.text(" ")) }
                    }
                case .or(let queries):
                    guard !queries.isEmpty else {
                        write("()")
                        continue
                    }
                    for (offset, query) in queries.enumerated().reversed() {
                        if case .or = query {
                            pending += [.text(")"), .node(query), .text("(")]
                        } else {
                            pending.append(.node(query))
                        }
                        if offset > 0 { pending.append(.text(" OR ")) }
                    }
                case .not(let query, let excluded):
                    pending += grouped(excluded).reversed()
                    pending.append(.text(" NOT "))
                    pending += grouped(query).reversed()
                }
            }
        }
        return text
    }

    /// A word in the query language: in quotes when it would otherwise read as something else.
    private static func wordText(_ word: String) -> String {
        let plain = word.filter { $0 != "\"" }
        let special = plain.isEmpty || ["AND", "OR", "NOT"].contains(plain) || plain.hasPrefix("-") || plain.hasSuffix("*")
            || plain.contains { $0.isWhitespace || "():".contains($0) }
        return special ? "\"\(plain)\"" : plain
    }

    /// `node`'s pieces in order, in parentheses unless it is a word, phrase, prefix or column
    /// filter.
    private static func grouped(_ node: Node) -> [Piece] {
        switch node {
        case .word, .phrase, .prefix, .column: [.node(node)]
        default: [.text("("), .node(node), .text(")")]
        }
    }
}

private extension String {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
