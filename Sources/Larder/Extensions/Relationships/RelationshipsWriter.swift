extension ReadWriteTransaction {
    /// Reads and edits the relationships extension `handle` in this write transaction: the
    /// queries of ``RelationshipsReader`` plus the edges added by hand and garbage collection.
    ///
    /// ```swift
    /// try db.write { txn in
    ///     try txn[relationships].addEdge("linksTo", from: pageA.index, to: pageB.index)
    ///     let links = try txn[relationships].edges(from: pageA.index, named: "linksTo")
    /// }
    /// ```
    /// - Throws: ``LarderError/Code/extensionNotRegistered`` when it is not registered in this process.
    public subscript(handle: RelationshipsHandle) -> RelationshipsWriter {
        get throws {
            RelationshipsWriter(transaction: self, handle: handle, runtime: try extensionRuntime(named: handle.name, as: RelationshipsRuntime.self))
        }
    }
}

/// Queries and edits of a relationships extension inside one write transaction (see
/// ``Relationships``); what `txn[handle]` gives in a write. The queries are those of
/// ``RelationshipsReader``, at the same cost, and see this transaction's own changes.
public struct RelationshipsWriter {
    let transaction: ReadWriteTransaction
    let handle: RelationshipsHandle
    let runtime: RelationshipsRuntime

    private var reader: RelationshipsReader { RelationshipsReader(transaction: transaction, runtime: runtime) }

    // MARK: Queries

    /// The edges starting at `source`, those named `name` only when given, ordered by name then
    /// destination.
    /// - Throws: as ``RelationshipsReader/edges(from:named:)-(YapDB.Index,_)``.
    /// - Complexity: O(log E + k) for E edges in the extension and the k edges returned.
    public func edges(from source: YapDB.Index, named name: String? = nil) throws -> [RelationshipEdge] {
        try reader.edges(from: source, named: name)
    }

    /// The edges pointing at `destination`, those named `name` only when given, ordered by name
    /// then source.
    /// - Throws: as ``RelationshipsReader/edges(to:named:)-(YapDB.Index,_)``.
    /// - Complexity: O(log E + k) for E edges in the extension and the k edges returned.
    public func edges(to destination: YapDB.Index, named name: String? = nil) throws -> [RelationshipEdge] {
        try reader.edges(to: destination, named: name)
    }

    /// How many edges start at `source` (named `name` when given).
    /// - Throws: as ``RelationshipsReader/edges(from:named:)-(YapDB.Index,_)``.
    /// - Complexity: O(log E + k) for E edges in the extension and the k edges counted.
    public func edgeCount(from source: YapDB.Index, named name: String? = nil) throws -> Int {
        try reader.edgeCount(from: source, named: name)
    }

    /// How many edges point at `destination` (named `name` when given).
    /// - Throws: as ``RelationshipsReader/edges(to:named:)-(YapDB.Index,_)``.
    /// - Complexity: O(log E + k) for E edges in the extension and the k edges counted.
    public func edgeCount(to destination: YapDB.Index, named name: String? = nil) throws -> Int {
        try reader.edgeCount(to: destination, named: name)
    }

    /// The edges starting at `value`.
    /// - Throws: as ``RelationshipsReader/edges(from:named:)-(YapDB.Index,_)``.
    /// - Complexity: O(log E + k) for E edges in the extension and the k edges returned.
    public func edges<T: Persistable>(from value: T, named name: String? = nil) throws -> [RelationshipEdge] {
        try reader.edges(from: value.index, named: name)
    }

    /// The edges pointing at `value`.
    /// - Throws: as ``RelationshipsReader/edges(to:named:)-(YapDB.Index,_)``.
    /// - Complexity: O(log E + k) for E edges in the extension and the k edges returned.
    public func edges<T: Persistable>(to value: T, named name: String? = nil) throws -> [RelationshipEdge] {
        try reader.edges(to: value.index, named: name)
    }

    // MARK: Edits

    /// Adds an edge named `name` from `source` to `destination` by hand. Adding the same edge
    /// again replaces its rules. The edge is removed when either end is deleted (after its rules
    /// run) or by ``removeEdge(_:from:to:)``.
    ///
    /// It is stored as an object in the collection ``RelationshipsHandle/manualEdgesCollection``,
    /// so it is data like any other: in this commit's changeset, in other processes, kept across
    /// rebuilds.
    /// - Throws: ``LarderError/Code/keyTooLong`` when the indexes and name are too long together.
    /// - Complexity: O(log N) for the N values in the store, plus the edge's own bookkeeping.
    public func addEdge(_ name: String, from source: YapDB.Index, to destination: YapDB.Index, rules: DeleteRules = []) throws {
        let edge = ManualEdge(name: name, source: source, destination: destination, rules: rules)
        try transaction.setObject(edge, forKey: ManualEdge.key(name: name, source: source, destination: destination), inCollection: handle.manualEdgesCollection)
    }

    /// Removes the edge named `name` from `source` to `destination` that was added by hand;
    /// returns whether there was one. No rule runs: neither end is deleted.
    /// - Throws: ``LarderError`` when the write fails.
    /// - Complexity: O(log N) for the N values in the store.
    @discardableResult
    public func removeEdge(_ name: String, from source: YapDB.Index, to destination: YapDB.Index) throws -> Bool {
        try transaction.removeObject(forKey: ManualEdge.key(name: name, source: source, destination: destination), inCollection: handle.manualEdgesCollection)
    }

    /// Deletes now, in this transaction, the values of the extension's garbage-collected
    /// collections that nothing reaches (see ``Relationships/collectingGarbage(in:afterWrites:)-([String],_)``),
    /// and returns their indexes. Delete rules run for them like for any deletion; what they
    /// delete in turn is in the changeset, not in the result.
    /// - Complexity: O(E + N) for the E edges and the N values of the collected collections.
    /// - Throws: a failure of LMDB.
    public func collectGarbage() throws -> [YapDB.Index] {
        try runtime.collectGarbage(in: transaction)
    }
}

extension ReadWriteTransaction {
    /// Adds an edge by hand to the relationships extension `handle`.
    /// - Throws: as ``RelationshipsWriter/addEdge(_:from:to:rules:)``, and
    ///   ``LarderError/Code/extensionNotRegistered``.
    @available(*, deprecated, message: "use txn[handle].addEdge(_:from:to:rules:)")
    public func addEdge(_ name: String, from source: YapDB.Index, to destination: YapDB.Index, rules: DeleteRules = [], in handle: RelationshipsHandle) throws {
        try self[handle].addEdge(name, from: source, to: destination, rules: rules)
    }

    /// Removes an edge added by hand to the relationships extension `handle`.
    /// - Throws: as ``RelationshipsWriter/removeEdge(_:from:to:)``, and
    ///   ``LarderError/Code/extensionNotRegistered``.
    @available(*, deprecated, message: "use txn[handle].removeEdge(_:from:to:)")
    @discardableResult
    public func removeEdge(_ name: String, from source: YapDB.Index, to destination: YapDB.Index, in handle: RelationshipsHandle) throws -> Bool {
        try self[handle].removeEdge(name, from: source, to: destination)
    }

    /// Runs garbage collection of the relationships extension `handle` now.
    /// - Throws: as ``RelationshipsWriter/collectGarbage()``, and
    ///   ``LarderError/Code/extensionNotRegistered``.
    @available(*, deprecated, message: "use txn[handle].collectGarbage()")
    public func collectGarbage(in handle: RelationshipsHandle) throws -> [YapDB.Index] {
        try self[handle].collectGarbage()
    }
}
