#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FullTextSearcher {
    /// BM25's term-frequency saturation.
    static let k1 = 1.2
    /// BM25's length normalization.
    static let b = 0.75

    /// The score one leaf adds to a document: BM25 of its (weighted) frequency `frequency` in a
    /// document of `length` tokens, with inverse document frequency `idf`.
    @inline(__always)
    static func bm25(idf: Double, frequency: Double, length: Double, averageLength: Double) -> Double {
        idf * (frequency * (k1 + 1)) / (frequency + k1 * (1 - b + b * length / averageLength))
    }

    /// The inverse document frequency of a leaf matched by `matching` of `documents` documents.
    static func idf(documents: Double, matching: Double) -> Double {
        log(1 + (documents - matching + 0.5) / (matching + 0.5))
    }

    /// The BM25 score of each document of `ids` (sorted): the sum, over the positive leaves of
    /// `plan` in order, of each leaf's score in the documents it matches.
    func scores(of ids: [UInt64], plan: FullTextPlan, lists: inout [FullTextPostingList?]) throws -> [Double] {
        var scores = [Double](repeating: 0, count: ids.count)
        guard !ids.isEmpty else { return scores }
        let documents = Double(max(statistics.documentCount, 1))
        let averageLength = statistics.totalLength > 0 ? Double(statistics.totalLength) / documents : 1
        for (number, leaf) in plan.leaves.enumerated() where leaf.positive {
            let list = try postings(ofLeaf: number, in: plan, lists: &lists)
            guard list.count > 0 else { continue }
            let idf = Self.idf(documents: documents, matching: Double(list.count))
            var i = 0
            var j = 0
            while i < ids.count, j < list.count {
                if ids[i] < list.ids[j] {
                    i += 1
                } else if ids[i] > list.ids[j] {
                    j += 1
                } else {
                    scores[i] += Self.bm25(idf: idf, frequency: list.frequencies[j], length: Double(list.lengths[j]), averageLength: averageLength)
                    i += 1
                    j += 1
                }
            }
        }
        return scores
    }

    /// The matches of `ids` with `scores`, best first (ties by collection, then key, byte-wise),
    /// from `offset`, at most `limit`: only the best `offset + limit` are turned into indexes
    /// and sorted, found with a heap.
    func ranked(_ ids: [UInt64], scores: [Double], limit: Int?, offset: Int) throws -> [FullTextMatch] {
        let offset = max(0, offset)
        let wanted = limit.map { offset.addingReportingOverflow(max(0, $0)).overflow ? Int.max : offset + max(0, $0) }
        guard wanted.map({ $0 > offset }) ?? true, offset < ids.count else { return [] }
        var threshold = -Double.infinity
        if let wanted, wanted < ids.count {
            var top = FullTextTopScores(capacity: wanted)
            for score in scores { top.insert(score) }
            threshold = top.threshold
        }
        var candidates: [FullTextMatch] = []
        for (offset, id) in ids.enumerated() where scores[offset] >= threshold {
            candidates.append(FullTextMatch(index: try index(ofDocument: id), score: scores[offset]))
        }
        candidates.sort(by: Self.ranksBefore)
        let end = wanted.map { min($0, candidates.count) } ?? candidates.count
        return offset < end ? Array(candidates[offset..<end]) : []
    }

    /// Whether `a` comes before `b` in results: higher score, then collection and key byte-wise.
    static func ranksBefore(_ a: FullTextMatch, _ b: FullTextMatch) -> Bool {
        if a.score != b.score { return a.score > b.score }
        if a.index.collection != b.index.collection { return a.index.collection.utf8.lexicographicallyPrecedes(b.index.collection.utf8) }
        return a.index.key.utf8.lexicographicallyPrecedes(b.index.key.utf8)
    }

    /// The index of document `id`.
    /// - Throws: ``LarderError/Code/corruptValue`` when `documents` does not hold it (a posting
    ///   names a document that is not there) or its record is damaged.
    func index(ofDocument id: UInt64) throws -> YapDB.Index {
        guard let index = try withUnsafeBytes(of: id.bigEndian, { key in
            try lmdb.get(storage.documents, key: key).map { try FullTextDocumentRecord.index(decoding: $0) }
        }) else {
            throw LarderError(.corruptValue, "a posting of a full-text search names document \(id), which its documents do not hold; register it with a new versionTag to rebuild it", operation: "fullTextSearch", extensionName: storage.name)
        }
        return index
    }
}
