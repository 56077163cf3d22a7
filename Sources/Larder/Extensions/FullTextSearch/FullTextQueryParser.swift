/// Reads the query language of ``FullTextQuery`` (see there): a lexer into tokens, then a
/// descent by precedence, OR below AND below NOT, that keeps its open groups on a stack of its
/// own rather than on the thread's: a query is outside input, and no nesting of it may exhaust
/// the stack. Groups nest at most ``FullTextQuery/maximumDepth`` deep, and so do the operators
/// and column filters of the tree it builds.
struct FullTextQueryParser {
    enum Token: Equatable {
        case word(String)
        case phrase(String)
        case prefix(String)
        case column(String)
        case open
        case close
        case and
        case or
        case not
        case minus

        /// The token as the message of an error shows it.
        var shown: String {
            switch self {
            case .word(let word): FullTextQuery.shortened(word)
            case .phrase(let words): "\"\(FullTextQuery.shortened(words))\""
            case .prefix(let start): FullTextQuery.shortened(start) + "*"
            case .column(let name): FullTextQuery.shortened(name) + ":"
            case .open: "("
            case .close: ")"
            case .and: "AND"
            case .or: "OR"
            case .not: "NOT"
            case .minus: "-"
            }
        }

        /// Whether the token can begin an operand of AND (a word, a group, an exclusion…).
        var beginsOperand: Bool {
            switch self {
            case .word, .phrase, .prefix, .column, .open, .minus: true
            case .close, .and, .or, .not: false
            }
        }
    }

    private let text: String
    /// The tokens of the text, and the position of the parser in them.
    var tokens: [Token] = []
    var position = 0

    init(_ text: String) {
        self.text = text
    }

    /// The error of the text, which `problem` makes invalid.
    func invalid(_ problem: String) -> LarderError {
        FullTextQuery.invalid(FullTextQuery.quoted(text), problem)
    }

    /// The query the text states.
    /// - Throws: ``LarderError/Code/invalidQuery`` when it is empty, malformed or nests deeper
    ///   than ``FullTextQuery/maximumDepth``.
    mutating func parse() throws -> FullTextQuery {
        tokens = try lex()
        guard !tokens.isEmpty else { throw invalid("it is empty") }
        return FullTextQuery(try parseTokens().node)
    }

    // MARK: Lexing

    private static func isIdentifier(_ name: Substring) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" else { return false }
        return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }

    private static func endsWord(_ character: Character) -> Bool {
        character.isWhitespace || character == "(" || character == ")" || character == "\""
    }

    private func lex() throws -> [Token] {
        var found: [Token] = []
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character.isWhitespace {
                index = text.index(after: index)
            } else if character == "(" {
                found.append(.open)
                index = text.index(after: index)
            } else if character == ")" {
                found.append(.close)
                index = text.index(after: index)
            } else if character == "\"" {
                let start = text.index(after: index)
                guard let end = text[start...].firstIndex(of: "\"") else { throw invalid("a \" opens a phrase that no \" closes") }
                found.append(.phrase(String(text[start..<end])))
                index = text.index(after: end)
            } else if character == "-", let next = text[text.index(after: index)...].first, !next.isWhitespace, next != ")" {
                found.append(.minus)
                index = text.index(after: index)
            } else {
                var end = index
                while end < text.endIndex, !Self.endsWord(text[end]) { end = text.index(after: end) }
                try lexWord(text[index..<end], followedBy: end < text.endIndex ? text[end] : nil, into: &found)
                index = end
            }
        }
        return found
    }

    /// One run of characters between spaces, parentheses and quotes: an operator, a column
    /// filter and what follows it, a prefix or a word.
    private func lexWord(_ run: Substring, followedBy next: Character?, into found: inout [Token]) throws {
        if run == "AND" { return found.append(.and) }
        if run == "OR" { return found.append(.or) }
        if run == "NOT" { return found.append(.not) }
        var rest = run
        if let colon = run.firstIndex(of: ":"), Self.isIdentifier(run[..<colon]) {
            found.append(.column(String(run[..<colon])))
            rest = run[run.index(after: colon)...]
            if rest.isEmpty {
                guard next == "(" || next == "\"" else { throw invalid("\(FullTextQuery.shortened(run)) is followed by no word, phrase or group to search that column for") }
                return
            }
            guard rest.first != "-" else { throw invalid("\(FullTextQuery.shortened(run)): a column filter applies to a word, a phrase, a prefix or a group, not to an exclusion") }
        }
        if rest.hasSuffix("*") {
            let start = rest.dropLast()
            guard !start.isEmpty else { throw invalid("a * stands after the start of a word (swi*), not alone") }
            found.append(.prefix(String(start)))
        } else {
            found.append(.word(String(rest)))
        }
    }
}
