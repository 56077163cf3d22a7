/// One word of a text as the full-text index sees it.
public struct FullTextToken: Sendable, Hashable {
    /// The indexed form: folded (case, and diacritics unless the tokenizer keeps them) and, when
    /// the tokenizer stems, stemmed.
    public let term: String
    /// The word's ordinal in the text, from 0.
    public let position: Int
    /// Where the word is in the text it was read from.
    public let range: Range<String.Index>

    /// A token of `term` at word `position`, found at `range`.
    public init(term: String, position: Int, range: Range<String.Index>) {
        self.term = term
        self.position = position
        self.range = range
    }
}
