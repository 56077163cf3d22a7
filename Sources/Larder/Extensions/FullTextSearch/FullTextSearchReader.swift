extension ReadTransaction {
    /// Reads the full-text search `handle` in this transaction.
    /// - Throws: ``LarderError/Code/extensionNotRegistered`` when it is not registered in this
    ///   process with these types.
    public subscript<Object, Metadata>(handle: FullTextSearchHandle<Object, Metadata>) -> FullTextSearchReader<Object, Metadata> {
        get throws {
            FullTextSearchReader(transaction: self, runtime: try extensionRuntime(named: handle.name, as: FullTextSearchRuntime<Object, Metadata>.self))
        }
    }
}

/// Queries of a full-text search inside one transaction (see ``FullTextSearch`` and
/// ``FullTextQuery``).
///
/// ```swift
/// let top = try db.read { txn in try txn[search].search("swift server*", limit: 10) }
/// for match in top { print(match.index.key, match.score) }
/// ```
///
/// **Ranking** is BM25 (k1 = 1.2, b = 0.75) over whole documents: a document's length is the
/// number of tokens of all its columns, and each column's term frequency is multiplied by the
/// column's weight. Each term, phrase and prefix of the query that is not excluded by a NOT
/// adds idf × tf × (k1 + 1) / (tf + k1 × (1 − b + b × length / average length)) to the score of
/// each result it occurs in, with idf = ln(1 + (N − n + 0.5) / (n + 0.5)) for N documents, n of
/// which it occurs in (a prefix counts as one leaf: its frequency sums its terms'). Results come
/// best first; equal scores by collection, then key, byte-wise.
///
/// **Cost.** A query reads the postings of each of its terms once, block by block (a prefix:
/// of every term it covers), decoding them in place: O(p) for the p postings of its terms,
/// plus, for a phrase, the positions of the documents that hold all its words. The matching
/// documents are combined as sorted lists; only the best `offset + limit` (kept with a heap)
/// are turned into indexes, one lookup each.
public struct FullTextSearchReader<Object: Codable & Sendable, Metadata: Codable & Sendable> {
    let transaction: ReadTransaction
    let runtime: FullTextSearchRuntime<Object, Metadata>

    /// A searcher of the index as it is now: call it after ``plan(_:)``, which settles the
    /// transaction's pending writes.
    func searcher() throws -> FullTextSearcher {
        try FullTextSearcher(storage: runtime.storage, lmdb: transaction.lmdb, weights: runtime.definition.columnWeights)
    }

    /// `query` resolved for this search; in a write transaction, what it wrote to the search is
    /// settled first, so that the query sees it.
    func plan(_ query: FullTextQuery) throws -> FullTextPlan {
        transaction.checkActive()
        let plan = try FullTextPlan(query, tokenizer: runtime.definition.tokenizer, columnNames: runtime.definition.columnNames)
        try runtime.storage.settle(transaction)
        return plan
    }

    /// The documents `plan` matches, with the postings read, and their scores.
    func scoredMatches(_ plan: FullTextPlan, by searcher: FullTextSearcher) throws -> (ids: [UInt64], scores: [Double]) {
        var lists: [FullTextPostingList?] = []
        let ids = try searcher.matches(plan, lists: &lists)
        return (ids, try searcher.scores(of: ids, plan: plan, lists: &lists))
    }

    // MARK: Searching

    /// The objects that match `query`, best first, from `offset`, at most `limit` (`nil`: all).
    ///
    /// ```swift
    /// let page = try txn[search].search(.and([.word("swift"), .prefix("serv")]), limit: 20, offset: 20)
    /// ```
    /// - Throws: ``LarderError/Code/invalidQuery`` when a column filter names no column of the
    ///   search, a prefix is not one word, nothing is left to search for, or the query is
    ///   beyond the limits of ``FullTextQuery/maximumDepth``,
    ///   ``FullTextQuery/maximumPhraseWords`` or ``FullTextQuery/maximumTerms``;
    ///   ``LarderError/Code/corruptValue`` when the stored index is damaged; LMDB failures.
    /// - Complexity: O(p + m log k) for the p postings of the query's terms, m matching
    ///   documents and k = `offset + limit`, plus one lookup per result.
    public func search(_ query: FullTextQuery, limit: Int? = nil, offset: Int = 0) throws -> [FullTextMatch] {
        let plan = try plan(query)
        let searcher = try searcher()
        let (ids, scores) = try scoredMatches(plan, by: searcher)
        return try searcher.ranked(ids, scores: scores, limit: limit, offset: offset)
    }

    /// The objects that match the query `text` (see ``FullTextQuery/init(parsing:)``), best
    /// first, from `offset`, at most `limit` (`nil`: all).
    ///
    /// ```swift
    /// let top = try txn[search].search("title:swift \"full text\" -objc", limit: 10)
    /// ```
    /// - Throws: ``LarderError/Code/invalidQuery`` when `text` is malformed (see
    ///   ``FullTextQuery/init(parsing:)``) or does not fit the search; otherwise as
    ///   ``search(_:limit:offset:)-(FullTextQuery,_,_)``.
    /// - Complexity: O(p + m log k) for the p postings of the query's terms, m matching
    ///   documents and k = `offset + limit`, plus one lookup per result.
    public func search(_ text: String, limit: Int? = nil, offset: Int = 0) throws -> [FullTextMatch] {
        try search(FullTextQuery(parsing: text), limit: limit, offset: offset)
    }

    /// The indexes of the objects that match `query`, best first, from `offset`, at most `limit`.
    /// - Throws: as ``search(_:limit:offset:)-(FullTextQuery,_,_)``.
    /// - Complexity: O(p + m log k) for the p postings of the query's terms, m matching
    ///   documents and k = `offset + limit`, plus one lookup per result.
    public func indexes(matching query: FullTextQuery, limit: Int? = nil, offset: Int = 0) throws -> [YapDB.Index] {
        try search(query, limit: limit, offset: offset).map(\.index)
    }

    /// The indexes of the objects that match the query `text`, best first, from `offset`, at
    /// most `limit`.
    ///
    /// ```swift
    /// let topTen = try txn[search].indexes(matching: "lmdb swift", limit: 10)
    /// ```
    /// - Throws: as ``search(_:limit:offset:)-(String,_,_)``.
    /// - Complexity: O(p + m log k) for the p postings of the query's terms, m matching
    ///   documents and k = `offset + limit`, plus one lookup per result.
    public func indexes(matching text: String, limit: Int? = nil, offset: Int = 0) throws -> [YapDB.Index] {
        try search(text, limit: limit, offset: offset).map(\.index)
    }

    /// The objects that match `query`, decoded, best first, from `offset`, at most `limit`.
    /// - Throws: as ``search(_:limit:offset:)-(FullTextQuery,_,_)``, or with
    ///   ``LarderError/Code/decodingFailed`` when a stored object does not decode as `Object`.
    /// - Complexity: O(p + m log k) for the p postings of the query's terms, m matching
    ///   documents and k = `offset + limit`, plus a read of each object returned (none on a
    ///   cache hit).
    public func objects(matching query: FullTextQuery, limit: Int? = nil, offset: Int = 0) throws -> [(index: YapDB.Index, object: Object)] {
        try indexes(matching: query, limit: limit, offset: offset).compactMap { index in
            try transaction.extensionObject(Object.self, at: index, written: nil).map { (index, $0) }
        }
    }

    /// The objects that match the query `text`, decoded, best first, from `offset`, at most
    /// `limit`.
    /// - Throws: as ``objects(matching:limit:offset:)-(FullTextQuery,_,_)``, and
    ///   ``LarderError/Code/invalidQuery`` when `text` is malformed.
    /// - Complexity: O(p + m log k) for the p postings of the query's terms, m matching
    ///   documents and k = `offset + limit`, plus a read of each object returned.
    public func objects(matching text: String, limit: Int? = nil, offset: Int = 0) throws -> [(index: YapDB.Index, object: Object)] {
        try objects(matching: FullTextQuery(parsing: text), limit: limit, offset: offset)
    }

    /// How many objects match `query`. Nothing is scored or ranked.
    /// - Throws: as ``search(_:limit:offset:)-(FullTextQuery,_,_)``.
    /// - Complexity: O(p) for the p postings of the query's terms that decide the match (an
    ///   excluded term is read only when something is left to exclude from).
    public func count(matching query: FullTextQuery) throws -> Int {
        var lists: [FullTextPostingList?] = []
        let plan = try plan(query)
        return try searcher().matches(plan, lists: &lists).count
    }

    /// How many objects match the query `text`.
    /// - Throws: as ``count(matching:)-(FullTextQuery)``, and ``LarderError/Code/invalidQuery``
    ///   when `text` is malformed.
    /// - Complexity: O(p) for the p postings of the query's terms.
    public func count(matching text: String) throws -> Int {
        try count(matching: FullTextQuery(parsing: text))
    }

    /// The number of indexed objects (those whose texts closure returned texts).
    /// - Throws: ``LarderError/Code/corruptValue`` when the statistics record is damaged; LMDB
    ///   failures.
    /// - Complexity: O(1): one read of the statistics record.
    public func numberOfDocuments() throws -> Int {
        transaction.checkActive()
        try runtime.storage.settle(transaction)
        return try FullTextStatistics.read(from: runtime.storage.documents, columns: runtime.storage.columnCount, in: transaction.lmdb).documentCount
    }
}
