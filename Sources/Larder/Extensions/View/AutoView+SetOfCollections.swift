// The forms that took the collections as a `Set<String>`, kept for one release: a `Set` merges
// names that Swift's `String ==` calls equal ("café" composed and decomposed) before the store
// sees them, so a view given both read only one of the two collections.

extension AutoView {
    /// The collections the view reads, as a `Set` (which merges names Swift calls equal).
    @available(*, deprecated, renamed: "collectionNames", message: "a Set<String> merges collection names Swift calls equal but the store keeps apart")
    public var collections: Set<String>? { collectionNames.map(Set.init) }

    /// A view whose closures read the object and its metadata, over the collections of a `Set`.
    @available(*, deprecated, message: "pass the collections as an array: a Set<String> merges names Swift calls equal but the store keeps apart")
    @_disfavoredOverload
    public init(collections: Set<String>?, versionTag: String, metadata: Metadata.Type, grouping: @escaping Grouping, sorting: @escaping Sorting) {
        self.init(collections: collections.map(Array.init), versionTag: versionTag, metadata: metadata, grouping: grouping, sorting: sorting)
    }

    /// A view that may put an object in several groups, over the collections of a `Set`.
    @available(*, deprecated, message: "pass the collections as an array: a Set<String> merges names Swift calls equal but the store keeps apart")
    @_disfavoredOverload
    public init(collections: Set<String>?, versionTag: String, metadata: Metadata.Type, groups: @escaping Groups, sorting: @escaping Sorting) {
        self.init(collections: collections.map(Array.init), versionTag: versionTag, metadata: metadata, groups: groups, sorting: sorting)
    }
}

extension AutoView where Metadata == NoMetadata {
    /// A view whose closures read the object only, over the collections of a `Set`.
    @available(*, deprecated, message: "pass the collections as an array: a Set<String> merges names Swift calls equal but the store keeps apart")
    @_disfavoredOverload
    public init(
        collections: Set<String>?, versionTag: String,
        grouping: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> String?,
        sorting: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> TupleKey
    ) {
        self.init(collections: collections.map(Array.init), versionTag: versionTag, grouping: grouping, sorting: sorting)
    }

    /// A view that may put an object in several groups, reading the object only, over the
    /// collections of a `Set`.
    @available(*, deprecated, message: "pass the collections as an array: a Set<String> merges names Swift calls equal but the store keeps apart")
    @_disfavoredOverload
    public init(
        collections: Set<String>?, versionTag: String,
        groups: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> [String],
        sorting: @escaping @Sendable (_ index: YapDB.Index, _ object: Object) -> TupleKey
    ) {
        self.init(collections: collections.map(Array.init), versionTag: versionTag, groups: groups, sorting: sorting)
    }
}
