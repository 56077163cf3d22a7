/// A full-text index: the words of one or more texts of each object (its columns: a title, a
/// body…), kept in the store so that queries of words, phrases and prefixes, combined with AND,
/// OR and NOT, find the matching objects ranked by relevance (BM25).
///
/// ```swift
/// struct Article: Codable, Sendable { var title: String; var body: String }
///
/// let articles = FullTextSearch<Article, NoMetadata>(
///     collections: ["articles"], versionTag: "1", tokenizer: FullTextTokenizer(stemming: .english),
///     columnNames: ["title", "body"], columnWeights: [2, 1]
/// ) { _, article in [article.title, article.body] }
/// let search = try db.register(articles, named: "articleSearch")
/// let best = try db.read { txn in try txn[search].indexes(matching: "swift server*", limit: 10) }
/// ```
///
/// The texts closure returns one text per column, in the order of `columnNames`, or `nil` to
/// leave an object out. It must be a pure function of its arguments: the index is kept from its
/// results, and a write finds what to remove by calling it again on the object's previous value.
/// Objects of a collection that do not decode as `Object` are not indexed.
///
/// Change the `versionTag` whenever the closure, the number or order of columns, the tokenizer,
/// or the way the stored values decode changes: a new tag rebuilds the index. Column names and
/// weights are read at query time only; changing them needs no rebuild.
///
/// Storage: `x.<name>.postings` (each term's postings in blocks of documents),
/// `x.<name>.documents` (each document's index and column lengths, and the statistics) and
/// `x.<name>.ids` (each object's document id); see Documentation/FullTextSearch.md. A write
/// records nothing of this extension in the changeset: the changeset names the changed objects
/// already.
public struct FullTextSearch<Object: Codable & Sendable, Metadata: Codable & Sendable>: Sendable {
    /// The texts of the object at `index`, one per column, or `nil` to leave it out.
    public typealias Texts = @Sendable (_ index: YapDB.Index, _ object: Object, _ metadata: Metadata?) -> [String]?

    /// The collections indexed, as given to the initializer (`collections:`), matched by their
    /// UTF-8 bytes; `nil` for every collection. A list, not a `Set<String>`: a set keeps one of
    /// two names Swift's `String ==` calls equal (`"caf\u{E9}"`, `"cafe\u{301}"`), which the
    /// store keeps apart as two collections.
    public let collectionNames: [String]?
    /// Change it whenever the texts closure, the columns or the tokenizer change: a new tag
    /// rebuilds the index.
    public let versionTag: String
    /// How texts and query words become terms.
    public let tokenizer: FullTextTokenizer
    /// The names of the columns, in the order the texts closure returns them: what column filters
    /// (`title:swift`) and snippets name. Non-empty and distinct; each a letter or `_` followed
    /// by letters, digits or `_`.
    public let columnNames: [String]
    /// How much an occurrence in each column counts in ranking, in the order of ``columnNames``
    /// (all 1 unless given): a column's term frequency is multiplied by its weight.
    public let columnWeights: [Double]
    let texts: Texts

    /// A full-text index whose texts read the object and its metadata.
    ///
    /// - Parameters:
    ///   - collections: the collections indexed; `nil` for every collection.
    ///   - versionTag: change it whenever `texts`, the columns or the tokenizer change.
    ///   - tokenizer: how texts and query words become terms (by default case and diacritics
    ///     fold, no stemming).
    ///   - columnNames: the columns `texts` returns, in order.
    ///   - columnWeights: each column's weight in ranking; `nil` for 1 each.
    ///   - metadata: the metadata type `texts` reads.
    ///   - texts: the texts of an object, one per column, or `nil` to leave it out.
    public init(
        collections: [String]? = nil, versionTag: String, tokenizer: FullTextTokenizer = FullTextTokenizer(),
        columnNames: [String], columnWeights: [Double]? = nil, metadata: Metadata.Type, texts: @escaping Texts
    ) {
        self.collectionNames = collections
        self.versionTag = versionTag
        self.tokenizer = tokenizer
        self.columnNames = columnNames
        self.columnWeights = columnWeights ?? [Double](repeating: 1, count: columnNames.count)
        self.texts = texts
    }

    /// The reason the definition cannot be registered, `nil` when it can.
    var problem: String? {
        if columnNames.isEmpty { return "it has no column" }
        if Set(columnNames).count != columnNames.count { return "two of its columns have the same name" }
        for name in columnNames {
            guard let first = name.first, first.isLetter || first == "_", name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                return "the column name \"\(name)\" is not a letter or _ followed by letters, digits or _ (queries could not name it)"
            }
        }
        if columnWeights.count != columnNames.count { return "it has \(columnWeights.count) column weights for \(columnNames.count) columns" }
        if !columnWeights.allSatisfy({ $0.isFinite && $0 >= 0 }) { return "a column weight is negative or not finite" }
        return nil
    }
}

extension FullTextSearch where Metadata == NoMetadata {
    /// A full-text index whose texts read the object only; changes of metadata alone do not
    /// touch it. See ``init(collections:versionTag:tokenizer:columnNames:columnWeights:metadata:texts:)-([String]?,_,_,_,_,_,_)``.
    public init(
        collections: [String]? = nil, versionTag: String, tokenizer: FullTextTokenizer = FullTextTokenizer(),
        columnNames: [String], columnWeights: [Double]? = nil, texts: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> [String]?
    ) {
        self.init(collections: collections, versionTag: versionTag, tokenizer: tokenizer, columnNames: columnNames, columnWeights: columnWeights,
                  metadata: NoMetadata.self) { index, object, _ in texts(index, object) }
    }
}

extension FullTextSearch: ExtensionDefinition {
    /// What registering it returns: the handle the index is queried with.
    public typealias Handle = FullTextSearchHandle<Object, Metadata>

    /// How a store keeps this full-text index (``Database/register(_:named:progress:)`` calls it).
    /// - Throws: ``LarderError/Code/invalidConfiguration`` when the columns are empty, repeat a
    ///   name, have a name queries cannot write, or have weights that do not match them.
    /// - Complexity: registering is O(1) when the store has the index with this tag; else O(t log
    ///   n) to build it, for the t tokens of the objects read and the n blocks of postings.
    public func registration(named name: String, in database: Database) throws -> ExtensionRegistration<Handle> {
        if let problem {
            throw LarderError(.invalidConfiguration, "the full-text search \(name) cannot be registered: \(problem)", operation: "register", extensionName: name)
        }
        return ExtensionRegistration(
            kind: FullTextSearchRuntime<Object, Metadata>.kindName, collections: collectionNames.map(Set.init(names:)),
            parts: FullTextStorage.partNames, handle: Handle(name: name)
        ) { parts in
            FullTextSearchRuntime(name: name, definition: self, parts: parts)
        }
    }
}
