/// The figures LMDB keeps about one of the store's B+trees: the main database, or one named
/// database (`objects`, `metadata`, `collections`, `larder`, `log`, an extension's `x.…`).
/// ``Database/databaseStatistics()`` returns one for each, the figures `mdb_stat -a` prints.
public struct DatabaseStatistics: Sendable, Hashable {
    /// The named database's name; `nil` for LMDB's main database (which holds one record per
    /// named database).
    public let name: String?
    /// The number of entries.
    public let entries: Int
    /// The height of the tree (0 for an empty database).
    public let depth: Int
    /// The number of branch (interior) pages.
    public let branchPages: Int
    /// The number of leaf pages.
    public let leafPages: Int
    /// The number of overflow pages: values too large for a leaf page take pages of their own.
    public let overflowPages: Int

    /// Every page the tree uses: branch, leaf and overflow pages.
    public var pages: Int { branchPages + leafPages + overflowPages }
}
