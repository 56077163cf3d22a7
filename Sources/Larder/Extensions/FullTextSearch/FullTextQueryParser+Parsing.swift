/// The parsing half of ``FullTextQueryParser``: the tokens into a query, by precedence (OR
/// below AND below NOT), each group in parentheses kept on a stack of the parser's own while it
/// is read, so that no nesting of the text can exhaust the thread's stack.
extension FullTextQueryParser {
    /// A query parsed so far, with how many operators and column filters nest in it.
    struct Built {
        var node: FullTextQuery.Node
        var depth: Int
    }

    /// Where the operand being read goes once read.
    private enum Role {
        /// It starts a chain `a NOT b NOT c` (perhaps of one operand).
        case chainStart
        /// It is what the last NOT of the chain excludes.
        case excludedByNot
    }

    /// One group being read (the whole query, or one in parentheses): the alternatives of its
    /// OR, the operands of its current AND, and the chain of NOTs in progress.
    private struct Group {
        var alternatives: [Built] = []
        var included: [Built] = []
        var excluded: [Built] = []
        /// No operand of the current AND is read yet.
        var first = true
        /// The chain of NOTs in progress, and whether a - stands before it.
        var chain: Built?
        var chainExcluded = false
        /// What the operand being read is, and the column filter before it: while a group in
        /// parentheses is read, those of the group.
        var role = Role.chainStart
        var column: String?
    }

    /// What the parser does next.
    private enum Step {
        /// Reads the next operand of an AND, or ends the AND.
        case andOperand
        /// Reads one operand: a word, phrase, prefix, column filter or group.
        case operand
        /// Reads the NOTs that follow an operand, or ends its chain.
        case afterOperand
        /// Ends the current AND, then the OR or the group.
        case endOfAnd
    }

    private var next: Token? { position < tokens.count ? tokens[position] : nil }

    /// `node` with the depth it nests to.
    /// - Throws: ``LarderError/Code/invalidQuery`` when that is deeper than
    ///   ``FullTextQuery/maximumDepth``.
    private func built(_ node: FullTextQuery.Node, over parts: [Built]) throws -> Built {
        let depth = 1 + (parts.map(\.depth).max() ?? 0)
        guard depth <= FullTextQuery.maximumDepth else { throw invalid(FullTextQuery.tooDeep) }
        return Built(node: node, depth: depth)
    }

    /// The tokens as one query: OR of ANDs of NOT chains of operands, by precedence, with each
    /// group in parentheses on `groups` while it is read.
    mutating func parseTokens() throws -> Built {
        var groups = [Group()]
        var step = Step.andOperand
        while true {
            switch step {
            case .andOperand:
                let first = groups[groups.count - 1].first
                guard let token = next else {
                    step = .endOfAnd
                    continue
                }
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
                    step = .endOfAnd
                    continue
                }
                groups[groups.count - 1].chainExcluded = token == .minus
                if token == .minus {
                    position += 1
                    guard next?.beginsOperand == true, next != .minus else { throw invalid("a - stands before a word, a phrase or a group to exclude") }
                }
                groups[groups.count - 1].role = .chainStart
                step = .operand

            case .operand:
                guard let token = next else { throw invalid("it ends where a word was expected") }
                position += 1
                var operand: Built
                switch token {
                case .word(let word): operand = Built(node: .word(word), depth: 0)
                case .phrase(let words): operand = Built(node: .phrase(words), depth: 0)
                case .prefix(let start): operand = Built(node: .prefix(start), depth: 0)
                case .column(let name):
                    guard let following = next, following == .open || following.isLeaf else {
                        throw invalid("\(FullTextQuery.shortened(name)): is followed by \(next?.shown ?? "nothing"), not by a word, a phrase, a prefix or a group")
                    }
                    groups[groups.count - 1].column = name
                    continue
                case .open:
                    guard next != .close else { throw invalid("a group () is empty") }
                    guard groups.count <= FullTextQuery.maximumDepth else {
                        throw invalid("more than \(FullTextQuery.maximumDepth) groups ( … ) are open at once; a query may nest \(FullTextQuery.maximumDepth) levels (FullTextQuery.maximumDepth): remove the parentheses that group a single query")
                    }
                    groups.append(Group())
                    step = .andOperand
                    continue
                case .minus:
                    throw invalid("a - stands before a word among others (a -b), not after NOT or a column filter")
                case .close:
                    throw invalid("a ) closes no (")
                case .and, .or, .not:
                    throw invalid("\(token.shown) is followed by \(token.shown) or has nothing on its side")
                }
                try place(&operand, in: &groups[groups.count - 1])
                step = .afterOperand

            case .afterOperand:
                if next == .not {
                    position += 1
                    guard next != nil else { throw invalid("NOT ends the query") }
                    groups[groups.count - 1].role = .excludedByNot
                    step = .operand
                    continue
                }
                var group = groups.removeLast()
                if let chain = group.chain {
                    if group.chainExcluded { group.excluded.append(chain) } else { group.included.append(chain) }
                }
                group.chain = nil
                group.first = false
                groups.append(group)
                step = .andOperand

            case .endOfAnd:
                var group = groups.removeLast()
                guard !group.included.isEmpty else {
                    throw invalid("a query or group made only of exclusions (-word) matches nothing to exclude from; add a word to search for")
                }
                var kept = group.included.count == 1 ? group.included[0] : try built(.and(group.included.map(\.node)), over: group.included)
                if !group.excluded.isEmpty {
                    let excluded = group.excluded.count == 1 ? group.excluded[0] : try built(.or(group.excluded.map(\.node)), over: group.excluded)
                    kept = try built(.not(kept.node, excluding: excluded.node), over: [kept, excluded])
                }
                group.alternatives.append(kept)
                group.included = []
                group.excluded = []
                group.first = true
                if next == .or {
                    position += 1
                    guard next?.beginsOperand == true else { throw invalid(next.map { "OR is followed by \($0.shown)" } ?? "OR ends the query") }
                    groups.append(group)
                    step = .andOperand
                    continue
                }
                var whole = group.alternatives.count == 1 ? group.alternatives[0] : try built(.or(group.alternatives.map(\.node)), over: group.alternatives)
                guard !groups.isEmpty else {
                    if position < tokens.count {
                        throw tokens[position] == .close ? invalid("a ) closes no (") : invalid("\(tokens[position].shown) was not expected there")
                    }
                    return whole
                }
                guard next == .close else { throw invalid("a ( is not closed by a )") }
                position += 1
                try place(&whole, in: &groups[groups.count - 1])
                step = .afterOperand
            }
        }
    }

    /// Puts an operand just read where `group` expects it: under the column filter before it,
    /// then at the start of a chain or on the excluded side of its last NOT.
    private func place(_ operand: inout Built, in group: inout Group) throws {
        if let name = group.column {
            operand = try built(.column(name, operand.node), over: [operand])
            group.column = nil
        }
        switch group.role {
        case .chainStart:
            group.chain = operand
        case .excludedByNot:
            guard let chain = group.chain else { return }
            group.chain = try built(.not(chain.node, excluding: operand.node), over: [chain, operand])
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
