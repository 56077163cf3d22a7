extension FullTextSearchReader {
    /// A short extract of the text of `column` of the object at `index`, with what `query`
    /// matches there marked: each matching term, prefix and phrase between `before` and `after`,
    /// within a window of `maxTokens` tokens around the closest cluster of matches, with
    /// `ellipsis` where the text goes on. `nil` when the object is not indexed (absent, not an
    /// `Object`, or left out by the texts closure).
    ///
    /// ```swift
    /// let extract = try txn[search].snippet(for: index, column: "body", matching: "lmdb swift*")
    /// // "…fast reads from <b>LMDB</b> for <b>Swift</b> servers, with…"
    /// ```
    ///
    /// The object is read and its text tokenized again: the index keeps no texts. A text of
    /// `maxTokens` tokens or fewer is returned whole. With no match in the column, the window
    /// is the text's beginning. Terms on the excluded side of a NOT are not marked.
    /// - Throws: ``LarderError/Code/invalidQuery`` when `column` or a column filter of `query`
    ///   names no column of the search; ``LarderError/Code/invalidConfiguration`` when the texts
    ///   closure returns the wrong number of texts; errors of reading the object.
    /// - Complexity: O(t) for the t tokens of the column's text, plus a read of the object.
    public func snippet(
        for index: YapDB.Index, column: String, matching query: FullTextQuery,
        before: String = "<b>", after: String = "</b>", ellipsis: String = "…", maxTokens: Int = 12
    ) throws -> String? {
        let definition = runtime.definition
        guard let number = definition.columnNames.firstIndex(of: column) else {
            throw LarderError(.invalidQuery, "the full-text search \(runtime.name) has no column \(column) (its columns: \(definition.columnNames.joined(separator: ", ")))", operation: "fullTextSearch", extensionName: runtime.name)
        }
        let plan = try plan(query)
        let object = try transaction.extensionObject(Object.self, at: index, written: nil)
        let metadata = runtime.readsMetadata && object != nil ? try transaction.extensionMetadata(Metadata.self, at: index, written: nil) : nil
        guard let texts = try runtime.texts(of: index, object: object, metadata: metadata) else { return nil }
        let snippet = FullTextSnippet(text: texts[number], column: number, plan: plan, tokenizer: definition.tokenizer)
        return snippet.render(before: before, after: after, ellipsis: ellipsis, maxTokens: maxTokens)
    }

    /// A short extract of the object at `index` from the column that matches `query` best, with
    /// what the query matches marked, and the column's name: for a list of results that shows one
    /// line each, whichever column the match is in.
    ///
    /// ```swift
    /// if let (column, extract) = try txn[search].snippet(for: index, matching: "lmdb swift*") {
    ///     print(column, extract)   // "body …fast reads from <b>LMDB</b> for <b>Swift</b> servers, with…"
    /// }
    /// ```
    ///
    /// The best column is the one whose text matches the most distinct parts of the query
    /// (terms, prefixes, phrases), then the most matches, then the one of greater weight, then
    /// the first in `columnNames`; when no column matches, the first column's beginning. The
    /// extract is what ``snippet(for:column:matching:before:after:ellipsis:maxTokens:)-(_,_,FullTextQuery,_,_,_,_)``
    /// gives for that column.
    /// - Throws: as that method.
    /// - Complexity: O(t) for the t tokens of all the columns' texts, plus a read of the object.
    public func snippet(
        for index: YapDB.Index, matching query: FullTextQuery,
        before: String = "<b>", after: String = "</b>", ellipsis: String = "…", maxTokens: Int = 12
    ) throws -> (column: String, text: String)? {
        let definition = runtime.definition
        let plan = try plan(query)
        let object = try transaction.extensionObject(Object.self, at: index, written: nil)
        let metadata = runtime.readsMetadata && object != nil ? try transaction.extensionMetadata(Metadata.self, at: index, written: nil) : nil
        guard let texts = try runtime.texts(of: index, object: object, metadata: metadata) else { return nil }
        var best: (snippet: FullTextSnippet, column: Int)?
        for (column, text) in texts.enumerated() {
            let snippet = FullTextSnippet(text: text, column: column, plan: plan, tokenizer: definition.tokenizer)
            guard let chosen = best else {
                best = (snippet, column)
                continue
            }
            let (strength, chosenStrength) = (snippet.strength, chosen.snippet.strength)
            if (strength.leaves, strength.matches) > (chosenStrength.leaves, chosenStrength.matches)
                || ((strength.leaves, strength.matches) == (chosenStrength.leaves, chosenStrength.matches) && strength.leaves > 0
                    && definition.columnWeights[column] > definition.columnWeights[chosen.column]) {
                best = (snippet, column)
            }
        }
        guard let best else { return nil }
        return (definition.columnNames[best.column], best.snippet.render(before: before, after: after, ellipsis: ellipsis, maxTokens: maxTokens))
    }

    /// The extract of the column that matches the query `text` best; see
    /// ``snippet(for:matching:before:after:ellipsis:maxTokens:)-(_,FullTextQuery,_,_,_,_)``.
    /// - Throws: as that method, and ``LarderError/Code/invalidQuery`` when `text` is malformed.
    /// - Complexity: O(t) for the t tokens of all the columns' texts, plus a read of the object.
    public func snippet(
        for index: YapDB.Index, matching text: String,
        before: String = "<b>", after: String = "</b>", ellipsis: String = "…", maxTokens: Int = 12
    ) throws -> (column: String, text: String)? {
        try snippet(for: index, matching: FullTextQuery(parsing: text), before: before, after: after, ellipsis: ellipsis, maxTokens: maxTokens)
    }

    /// A short extract of the text of `column` of the object at `index` with what the query
    /// `text` matches marked; see ``snippet(for:column:matching:before:after:ellipsis:maxTokens:)-(_,_,FullTextQuery,_,_,_,_)``.
    /// - Throws: as that method, and ``LarderError/Code/invalidQuery`` when `text` is malformed.
    /// - Complexity: O(t) for the t tokens of the column's text, plus a read of the object.
    public func snippet(
        for index: YapDB.Index, column: String, matching text: String,
        before: String = "<b>", after: String = "</b>", ellipsis: String = "…", maxTokens: Int = 12
    ) throws -> String? {
        try snippet(for: index, column: column, matching: FullTextQuery(parsing: text), before: before, after: after, ellipsis: ellipsis, maxTokens: maxTokens)
    }
}
