extension ReadTransaction {
    /// Reads the relationships extension `handle` in this transaction.
    /// In a write transaction `txn[handle]` is a ``RelationshipsWriter`` (the same queries, plus
    /// the edits); this reader is disfavored there so that the two do not make it ambiguous.
    /// - Throws: ``LarderError/Code/extensionNotRegistered`` when it is not registered in this process.
    @_disfavoredOverload
    public subscript(handle: RelationshipsHandle) -> RelationshipsReader {
        get throws {
            RelationshipsReader(transaction: self, runtime: try extensionRuntime(named: handle.name, as: RelationshipsRuntime.self))
        }
    }
}

/// Queries of a relationships extension inside one transaction (see ``Relationships``).
///
/// Each query is a range scan over the edges stored by source (or by destination): O(log E) to
/// find the first of E edges, then O(1) per edge visited. Each method states its cost under
/// `- Complexity:`.
public struct RelationshipsReader {
    let transaction: ReadTransaction
    let runtime: RelationshipsRuntime

    /// The edges starting at `source`, those named `name` only when given, ordered by name then
    /// destination.
    /// - Throws: ``LarderError`` with ``LarderError/Code/corruptValue`` when a stored edge is
    ///   damaged, or with an LMDB failure.
    /// - Complexity: O(log E + k) for E edges in the extension and the k edges returned.
    public func edges(from source: YapDB.Index, named name: String? = nil) throws -> [RelationshipEdge] {
        transaction.checkActive()
        return try runtime.edges(withPrefix: RelationshipsRuntime.prefix(source, named: name), reversed: false, in: transaction.lmdb).map(\.edge)
    }

    /// The edges pointing at `destination`, those named `name` only when given, ordered by name
    /// then source.
    /// - Throws: ``LarderError`` with ``LarderError/Code/corruptValue`` when a stored edge is
    ///   damaged, or with an LMDB failure.
    /// - Complexity: O(log E + k) for E edges in the extension and the k edges returned.
    public func edges(to destination: YapDB.Index, named name: String? = nil) throws -> [RelationshipEdge] {
        transaction.checkActive()
        return try runtime.edges(withPrefix: RelationshipsRuntime.prefix(destination, named: name), reversed: true, in: transaction.lmdb).map(\.edge)
    }

    /// How many edges start at `source` (named `name` when given).
    /// - Throws: as ``edges(from:named:)-(YapDB.Index,_)``.
    /// - Complexity: O(log E + k) for E edges in the extension and the k edges counted: it
    ///   visits each one (no counts are stored).
    public func edgeCount(from source: YapDB.Index, named name: String? = nil) throws -> Int {
        transaction.checkActive()
        return try runtime.edgeCount(withPrefix: RelationshipsRuntime.prefix(source, named: name), reversed: false, in: transaction.lmdb)
    }

    /// How many edges point at `destination` (named `name` when given).
    /// - Throws: as ``edges(to:named:)-(YapDB.Index,_)``.
    /// - Complexity: O(log E + k) for E edges in the extension and the k edges counted: it
    ///   visits each one (no counts are stored).
    public func edgeCount(to destination: YapDB.Index, named name: String? = nil) throws -> Int {
        transaction.checkActive()
        return try runtime.edgeCount(withPrefix: RelationshipsRuntime.prefix(destination, named: name), reversed: true, in: transaction.lmdb)
    }

    /// The edges starting at `value`.
    /// - Throws: as ``edges(from:named:)-(YapDB.Index,_)``.
    /// - Complexity: as ``edges(from:named:)-(YapDB.Index,_)``.
    public func edges<T: Persistable>(from value: T, named name: String? = nil) throws -> [RelationshipEdge] {
        try edges(from: value.index, named: name)
    }

    /// The edges pointing at `value`.
    /// - Throws: as ``edges(to:named:)-(YapDB.Index,_)``.
    /// - Complexity: as ``edges(to:named:)-(YapDB.Index,_)``.
    public func edges<T: Persistable>(to value: T, named name: String? = nil) throws -> [RelationshipEdge] {
        try edges(to: value.index, named: name)
    }
}
