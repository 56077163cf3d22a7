/// Reads the query language of ``FullTextQuery`` (see there): a lexer into tokens, then a
/// recursive descent by precedence, OR below AND below NOT.
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
            case .word(let word): word
            case .phrase(let words): "\"\(words)\""
            case .prefix(let start): start + "*"
            case .column(let name): name + ":"
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
    private var tokens: [Token] = []
    private var position = 0

    init(_ text: String) {
        self.text = text
    }

    private func invalid(_ problem: String) -> LarderError {
        LarderError(.invalidQuery, "the full-text query \(Self.quoted(text)) is not valid: \(problem)", operation: "fullTextSearch")
    }

    private static func quoted(_ text: String) -> String {
        text.count > 80 ? "«\(text.prefix(80))…»" : "«\(text)»"
    }

    /// The query the text states.
    /// - Throws: ``LarderError/Code/invalidQuery`` when it is empty or malformed.
    mutating func parse() throws -> FullTextQuery {
        tokens = try lex()
        guard !tokens.isEmpty else { throw invalid("it is empty") }
        let node = try parseOr()
        if position < tokens.count {
            throw tokens[position] == .close ? invalid("a ) closes no (") : invalid("\(tokens[position].shown) was not expected there")
        }
        return FullTextQuery(node)
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
                guard next == "(" || next == "\"" else { throw invalid("\(run) is followed by no word, phrase or group to search that column for") }
                return
            }
            guard rest.first != "-" else { throw invalid("\(run): a column filter applies to a word, a phrase, a prefix or a group, not to an exclusion") }
        }
        if rest.hasSuffix("*") {
            let start = rest.dropLast()
            guard !start.isEmpty else { throw invalid("a * stands after the start of a word (swi*), not alone") }
            found.append(.prefix(String(start)))
        } else {
            found.append(.word(String(rest)))
        }
    }

    // MARK: Parsing

    private var next: Token? { position < tokens.count ? tokens[position] : nil }

    private mutating func parseOr() throws -> FullTextQuery.Node {
        var alternatives = [try parseAnd()]
        while next == .or {
            position += 1
            guard next?.beginsOperand == true else { throw invalid(next.map { "OR is followed by \($0.shown)" } ?? "OR ends the query") }
            alternatives.append(try parseAnd())
        }
        return alternatives.count == 1 ? alternatives[0] : .or(alternatives)
    }

    private mutating func parseAnd() throws -> FullTextQuery.Node {
        var included: [FullTextQuery.Node] = []
        var excluded: [FullTextQuery.Node] = []
        var first = true
        while let token = next {
            if token == .and {
                guard !first else { throw invalid("AND has nothing on its left") }
                position += 1
                guard next?.beginsOperand == true else { throw invalid(next.map { "AND is followed by \($0.shown)" } ?? "AND ends the query") }
                continue
            }
            guard token.beginsOperand else {
                if first {
                    switch token {
                    case .or, .not: throw invalid("\(token.shown) has nothing on its left")
                    default: throw invalid(token == .close ? "a ) closes no (, or a group is empty" : "\(token.shown) was not expected there")
                    }
                }
                break
            }
            if token == .minus {
                position += 1
                guard next?.beginsOperand == true, next != .minus else { throw invalid("a - stands before a word, a phrase or a group to exclude") }
                excluded.append(try parseNot())
            } else {
                included.append(try parseNot())
            }
            first = false
        }
        guard !included.isEmpty else {
            throw invalid("a query or group made only of exclusions (-word) matches nothing to exclude from; add a word to search for")
        }
        let kept = included.count == 1 ? included[0] : .and(included)
        guard !excluded.isEmpty else { return kept }
        return .not(kept, excluding: excluded.count == 1 ? excluded[0] : .or(excluded))
    }

    private mutating func parseNot() throws -> FullTextQuery.Node {
        var node = try parseUnary()
        while next == .not {
            position += 1
            guard next != nil else { throw invalid("NOT ends the query") }
            node = .not(node, excluding: try parseUnary())
        }
        return node
    }

    private mutating func parseUnary() throws -> FullTextQuery.Node {
        guard let token = next else { throw invalid("it ends where a word was expected") }
        position += 1
        switch token {
        case .word(let word): return .word(word)
        case .phrase(let words): return .phrase(words)
        case .prefix(let start): return .prefix(start)
        case .column(let name):
            guard let operand = next, [.open].contains(operand) || operand.isLeaf else {
                throw invalid("\(name): is followed by \(next?.shown ?? "nothing"), not by a word, a phrase, a prefix or a group")
            }
            return .column(name, try parseUnary())
        case .open:
            guard next != .close else { throw invalid("a group () is empty") }
            let inner = try parseOr()
            guard next == .close else { throw invalid("a ( is not closed by a )") }
            position += 1
            return inner
        case .minus:
            throw invalid("a - stands before a word among others (a -b), not after NOT or a column filter")
        case .close:
            throw invalid("a ) closes no (")
        case .and, .or, .not:
            throw invalid("\(token.shown) is followed by \(token.shown) or has nothing on its side")
        }
    }
}

private extension FullTextQueryParser.Token {
    var isLeaf: Bool {
        switch self {
        case .word, .phrase, .prefix: true
        default: false
        }
    }
}
