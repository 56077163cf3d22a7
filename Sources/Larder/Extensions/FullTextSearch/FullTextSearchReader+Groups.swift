extension FullTextSearchReader {
    /// The objects that match `query` and are in `group` of the view (or filtered view) `view`,
    /// best first, from `offset`, at most `limit`. Scores are those of the whole index (a word's
    /// rarity is counted over every document, not only the group's).
    ///
    /// ```swift
    /// let inTools = try txn[search].search("cordless drill", inGroup: "tools", of: byCategory, limit: 10)
    /// ```
    ///
    /// How the group is applied depends on the sizes: when the group holds at most 8 times as
    /// many items as the query matches documents, its items are walked once and gathered into a
    /// set (one `ids` lookup each); otherwise each matching document is looked up in the view
    /// (``ViewReader/locations(of:)``: its object is read, and its items found, O(log n) each). The
    /// walk is cheap per item and the lookup costly per document, so each is used where it
    /// visits less.
    /// - Throws: as ``search(_:limit:offset:)-(FullTextQuery,_,_)``;
    ///   ``LarderError/Code/extensionNotRegistered`` when `view` is not registered; errors of
    ///   reading the view.
    /// - Complexity: O(p + min(g, m log n) + m log k) for the p postings of the query's terms,
    ///   m matching documents, g items of the group, n items of the view and k = `offset + limit`.
    public func search<ViewObject, ViewMetadata>(
        _ query: FullTextQuery, inGroup group: String, of view: ViewHandle<ViewObject, ViewMetadata>, limit: Int? = nil, offset: Int = 0
    ) throws -> [FullTextMatch] {
        let plan = try plan(query)
        let searcher = try searcher()
        var lists: [FullTextPostingList?] = []
        var ids = try searcher.matches(plan, lists: &lists)
        guard !ids.isEmpty else { return [] }
        let items = try transaction[view]
        let size = try items.numberOfItems(inGroup: group)
        guard size > 0 else { return [] }
        if size <= 8 * ids.count {
            var members = Set<UInt64>()
            members.reserveCapacity(size)
            try items.enumerate(inGroup: group) { index, _, _ in
                if let id = try documentID(of: index) { members.insert(id) }
            }
            ids = ids.filter { members.contains($0) }
        } else {
            // The group's bytes: a group whose name Swift calls equal is another group.
            // An object in several groups of the view has a location in each.
            ids = try ids.filter { id in try items.locations(of: searcher.index(ofDocument: id)).contains { ExactString.bytesEqual($0.group, group) } }
        }
        let scores = try searcher.scores(of: ids, plan: plan, lists: &lists)
        return try searcher.ranked(ids, scores: scores, limit: limit, offset: offset)
    }

    /// The objects that match the query `text` and are in `group` of `view`, best first, from
    /// `offset`, at most `limit`.
    /// - Throws: as ``search(_:inGroup:of:limit:offset:)-(FullTextQuery,_,_,_,_)``, and
    ///   ``LarderError/Code/invalidQuery`` when `text` is malformed.
    /// - Complexity: O(p + min(g, m log n) + m log k) for the p postings of the query's terms,
    ///   m matching documents, g items of the group, n items of the view and k = `offset + limit`.
    public func search<ViewObject, ViewMetadata>(
        _ text: String, inGroup group: String, of view: ViewHandle<ViewObject, ViewMetadata>, limit: Int? = nil, offset: Int = 0
    ) throws -> [FullTextMatch] {
        try search(FullTextQuery(parsing: text), inGroup: group, of: view, limit: limit, offset: offset)
    }

    /// The document id of the object at `index`, `nil` when it is not indexed.
    func documentID(of index: YapDB.Index) throws -> UInt64? {
        try StorageKey.with(collection: index.collection, key: index.key, maxKeySize: transaction.maxKeySize, operation: "fullTextSearch") { key in
            try transaction.lmdb.get(runtime.storage.ids, key: key).map { try FullTextStorage.documentID(in: $0) }
        }
    }
}
