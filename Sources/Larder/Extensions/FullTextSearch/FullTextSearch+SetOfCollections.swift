// The forms that took the collections as a `Set<String>`, kept for one release: a `Set` merges
// names that Swift's `String ==` calls equal before the store sees them.

extension FullTextSearch {
    /// The collections indexed, as a `Set` (which merges names Swift calls equal).
    @available(*, deprecated, renamed: "collectionNames", message: "a Set<String> merges collection names Swift calls equal but the store keeps apart")
    public var collections: Set<String>? { collectionNames.map(Set.init) }

    /// A full-text index whose texts read the object and its metadata, over the collections of
    /// a `Set`.
    @available(*, deprecated, message: "pass the collections as an array: a Set<String> merges names Swift calls equal but the store keeps apart")
    @_disfavoredOverload
    public init(
        collections: Set<String>?, versionTag: String, tokenizer: FullTextTokenizer = FullTextTokenizer(),
        columnNames: [String], columnWeights: [Double]? = nil, metadata: Metadata.Type, texts: @escaping Texts
    ) {
        self.init(collections: collections.map(Array.init), versionTag: versionTag, tokenizer: tokenizer, columnNames: columnNames,
                  columnWeights: columnWeights, metadata: metadata, texts: texts)
    }
}

extension FullTextSearch where Metadata == NoMetadata {
    /// A full-text index whose texts read the object only, over the collections of a `Set`.
    @available(*, deprecated, message: "pass the collections as an array: a Set<String> merges names Swift calls equal but the store keeps apart")
    @_disfavoredOverload
    public init(
        collections: Set<String>?, versionTag: String, tokenizer: FullTextTokenizer = FullTextTokenizer(),
        columnNames: [String], columnWeights: [Double]? = nil, texts: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> [String]?
    ) {
        self.init(collections: collections.map(Array.init), versionTag: versionTag, tokenizer: tokenizer, columnNames: columnNames,
                  columnWeights: columnWeights, texts: texts)
    }
}
