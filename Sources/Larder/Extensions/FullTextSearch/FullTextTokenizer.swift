/// How text becomes terms, for the full-text index and for the queries run against it.
///
/// PLACEHOLDER IMPLEMENTATION (ASCII letters and digits, lowercased): being replaced by the
/// Unicode tokenizer (word boundaries, case and diacritic folding, English stemming). The
/// interface below is fixed.
public struct FullTextTokenizer: Sendable, Hashable {
    /// Whether terms are reduced to their stems.
    public enum Stemming: Sendable, Hashable {
        /// Terms are the folded words.
        case none
        /// Terms are stemmed with the Porter algorithm for English ("connections" -> "connect").
        case english
    }

    /// Whether terms are stemmed.
    public var stemming: Stemming
    /// Whether accents and other diacritics are removed ("café" -> "cafe").
    public var foldsDiacritics: Bool

    /// A tokenizer that folds case and, unless told otherwise, diacritics, and stems when asked.
    public init(stemming: Stemming = .none, foldsDiacritics: Bool = true) {
        self.stemming = stemming
        self.foldsDiacritics = foldsDiacritics
    }

    /// The tokens of `text`, in order.
    public func tokens(in text: String) -> [FullTextToken] {
        var tokens: [FullTextToken] = []
        forEachToken(in: text) { tokens.append($0) }
        return tokens
    }

    /// Calls `body` with each token of `text`, in order.
    public func forEachToken(in text: String, _ body: (FullTextToken) -> Void) {
        var position = 0
        var start: String.Index?
        var index = text.startIndex
        func flush(_ end: String.Index) {
            guard let begun = start else { return }
            let word = text[begun..<end]
            body(FullTextToken(term: word.lowercased(), position: position, range: begun..<end))
            position += 1
            start = nil
        }
        while index < text.endIndex {
            let character = text[index]
            if character.isASCII && (character.isLetter || character.isNumber) {
                if start == nil { start = index }
            } else {
                flush(index)
            }
            index = text.index(after: index)
        }
        flush(text.endIndex)
    }

    /// The term one query word stands for: folded and, when the tokenizer stems, stemmed; `nil`
    /// when the word holds no letter or digit.
    public func term(for word: String) -> String? {
        tokens(in: word).first?.term
    }

    /// `word` folded as terms are, but not stemmed: what a prefix query (`swi*`) matches terms
    /// against.
    public func fold(_ word: String) -> String {
        word.lowercased()
    }
}
