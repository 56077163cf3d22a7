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
