/// Marks what a query matches in one text and cuts the window of tokens around the best
/// cluster of matches (see ``FullTextSearchReader/snippet(for:column:matching:before:after:ellipsis:maxTokens:)-(_,_,FullTextQuery,_,_,_,_)``).
struct FullTextSnippet {
    /// A match: tokens `first...last` (by offset in the text's tokens), of leaf `leaf`.
    struct Span {
        var first: Int
        var last: Int
        var leaf: Int
    }

    let text: String
    let tokens: [FullTextToken]
    /// The matches, by first token.
    private(set) var spans: [Span] = []

    init(text: String, column: Int, plan: FullTextPlan, tokenizer: FullTextTokenizer) {
        self.text = text
        tokens = tokenizer.tokens(in: text)
        let terms = tokens.map { FullTextTerm.bytes(of: $0.term) }
        for (number, leaf) in plan.leaves.enumerated() where leaf.positive && (leaf.column ?? column) == column {
            switch leaf.match {
            case .term(let term):
                for offset in terms.indices where terms[offset] == term { spans.append(Span(first: offset, last: offset, leaf: number)) }
            case .prefix(let start):
                for offset in terms.indices where terms[offset]?.starts(with: start) == true { spans.append(Span(first: offset, last: offset, leaf: number)) }
            case .phrase(let words):
                guard words.count <= terms.count else { continue }
                for offset in 0...(terms.count - words.count) {
                    let matches = words.indices.allSatisfy { step in
                        terms[offset + step] == words[step] && tokens[offset + step].position == tokens[offset].position + step
                    }
                    if matches { spans.append(Span(first: offset, last: offset + words.count - 1, leaf: number)) }
                }
            case .nothing:
                break
            }
        }
        spans.sort { ($0.first, $0.last) < ($1.first, $1.last) }
    }

    /// How well the text matches, for choosing a column to quote: the distinct leaves matched,
    /// then the matches.
    var strength: (leaves: Int, matches: Int) {
        (Set(spans.map(\.leaf)).count, spans.count)
    }

    /// The first token of the window of `size` tokens that holds the most distinct leaves, then
    /// the most matches, the matches centred in it.
    func windowStart(size: Int) -> Int {
        guard tokens.count > size, !spans.isEmpty else { return 0 }
        var best = (leaves: -1, matches: -1, start: 0, end: 0)
        var counts: [Int: Int] = [:]
        var distinct = 0
        var next = 0
        // Each window starts at a match; `next` is the first match that does not fit in it.
        for (offset, span) in spans.enumerated() {
            while next < spans.count, spans[next].last < span.first + size {
                counts[spans[next].leaf, default: 0] += 1
                if counts[spans[next].leaf] == 1 { distinct += 1 }
                next += 1
            }
            let inside = next - offset
            if inside > 0, (distinct, inside) > (best.leaves, best.matches) {
                let end = spans[offset..<next].map(\.last).max() ?? span.last
                best = (distinct, inside, span.first, end)
            }
            if next > offset {
                counts[span.leaf, default: 0] -= 1
                if counts[span.leaf] == 0 { distinct -= 1 }
            } else {
                next = offset + 1
            }
        }
        guard best.leaves >= 0 else { return 0 }
        let slack = size - (best.end - best.start + 1)
        return max(0, min(best.start - max(0, slack) / 2, tokens.count - size))
    }

    /// The window's text with the matches in it marked.
    func render(before: String, after: String, ellipsis: String, maxTokens: Int) -> String {
        guard !tokens.isEmpty else { return text }
        let size = max(1, maxTokens)
        let start = windowStart(size: size)
        let end = min(tokens.count, start + size)  // exclusive
        var cursor = start == 0 ? text.startIndex : tokens[start].range.lowerBound
        let last = end == tokens.count ? text.endIndex : tokens[end - 1].range.upperBound
        var result = start > 0 ? ellipsis : ""
        // The matches in the window, clipped to it, overlapping ones merged.
        var marked: [(first: Int, last: Int)] = []
        for span in spans where span.last >= start && span.first < end {
            let clipped = (first: max(span.first, start), last: min(span.last, end - 1))
            if let previous = marked.last, clipped.first <= previous.last {
                marked[marked.count - 1].last = max(previous.last, clipped.last)
            } else {
                marked.append(clipped)
            }
        }
        for span in marked {
            let lower = tokens[span.first].range.lowerBound
            let upper = tokens[span.last].range.upperBound
            // Ranges out of order would only come from a tokenizer that breaks its contract.
            guard cursor <= lower, lower <= upper, upper <= last else { continue }
            result += text[cursor..<lower]
            result += before
            result += text[lower..<upper]
            result += after
            cursor = upper
        }
        if cursor < last { result += text[cursor..<last] }
        if end < tokens.count { result += ellipsis }
        return result
    }
}
