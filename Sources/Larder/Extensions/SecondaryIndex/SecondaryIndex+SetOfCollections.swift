// The forms that took the collections as a `Set<String>`, kept for one release: a `Set` merges
// names that Swift's `String ==` calls equal before the store sees them.

extension SecondaryIndex {
    /// The collections indexed, as a `Set` (which merges names Swift calls equal).
    @available(*, deprecated, renamed: "collectionNames", message: "a Set<String> merges collection names Swift calls equal but the store keeps apart")
    public var collections: Set<String>? { collectionNames.map(Set.init) }

    /// An index whose columns read the object and its metadata, over the collections of a `Set`.
    @available(*, deprecated, message: "pass the collections as an array: a Set<String> merges names Swift calls equal but the store keeps apart")
    @_disfavoredOverload
    public init(collections: Set<String>?, versionTag: String, metadata: Metadata.Type, columns: @escaping Columns) {
        self.init(collections: collections.map(Array.init), versionTag: versionTag, metadata: metadata, columns: columns)
    }

    /// An index with several entries per object, over the collections of a `Set`.
    @available(*, deprecated, message: "pass the collections as an array: a Set<String> merges names Swift calls equal but the store keeps apart")
    @_disfavoredOverload
    public init(collections: Set<String>?, versionTag: String, metadata: Metadata.Type, entries: @escaping Entries) {
        self.init(collections: collections.map(Array.init), versionTag: versionTag, metadata: metadata, entries: entries)
    }
}

extension SecondaryIndex where Metadata == NoMetadata {
    /// An index whose columns read the object only, over the collections of a `Set`.
    @available(*, deprecated, message: "pass the collections as an array: a Set<String> merges names Swift calls equal but the store keeps apart")
    @_disfavoredOverload
    public init(collections: Set<String>?, versionTag: String, columns: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> TupleKey?) {
        self.init(collections: collections.map(Array.init), versionTag: versionTag, columns: columns)
    }

    /// An index with several entries per object, read from the object only, over the
    /// collections of a `Set`.
    @available(*, deprecated, message: "pass the collections as an array: a Set<String> merges names Swift calls equal but the store keeps apart")
    @_disfavoredOverload
    public init(collections: Set<String>?, versionTag: String, entries: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> [TupleKey]) {
        self.init(collections: collections.map(Array.init), versionTag: versionTag, entries: entries)
    }
}
