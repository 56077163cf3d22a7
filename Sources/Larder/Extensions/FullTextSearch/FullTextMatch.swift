/// One result of a full-text search: the object's index and its BM25 score (higher is better).
public struct FullTextMatch: Sendable, Hashable, CustomStringConvertible {
    /// Where the matching object is.
    public let index: YapDB.Index
    /// The object's BM25 score for the query (see ``FullTextSearchReader``): positive, higher
    /// for a better match; comparable between the results of one query only.
    public let score: Double

    /// A match of the object at `index` with `score`.
    public init(index: YapDB.Index, score: Double) {
        self.index = index
        self.score = score
    }

    /// `collection/key (score)`.
    public var description: String { "\(index.collection)/\(index.key) (\(score))" }
}
