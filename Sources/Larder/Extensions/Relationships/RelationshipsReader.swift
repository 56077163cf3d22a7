extension ReadTransaction {
    /// Reads the relationships extension `handle` in this transaction.
    /// - Throws: ``LarderError/Code/extensionNotRegistered`` when it is not registered in this process.
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

extension ReadWriteTransaction {
    /// Adds an edge named `name` from `source` to `destination` by hand, to the relationships
    /// extension `handle`. Adding the same edge again replaces its rules. The edge is removed when
    /// either end is deleted (after its rules run) or by ``removeEdge(_:from:to:in:)``.
    ///
    /// It is stored as an object in the collection `handle.manualEdgesCollection`, so it is data
    /// like any other: in this commit's changeset, in other processes, kept across rebuilds.
    /// - Throws: ``LarderError/Code/extensionNotRegistered``; ``LarderError/Code/keyTooLong`` when
    ///   the indexes and name are too long together.
    public func addEdge(_ name: String, from source: YapDB.Index, to destination: YapDB.Index, rules: DeleteRules = [], in handle: RelationshipsHandle) throws {
        _ = try extensionRuntime(named: handle.name, as: RelationshipsRuntime.self)
        let edge = ManualEdge(name: name, source: source, destination: destination, rules: rules)
        try setObject(edge, forKey: ManualEdge.key(name: name, source: source, destination: destination), inCollection: handle.manualEdgesCollection)
    }

    /// Removes the edge named `name` from `source` to `destination` that was added by hand;
    /// returns whether there was one. No rule runs: neither end is deleted.
    /// - Throws: ``LarderError/Code/extensionNotRegistered``.
    @discardableResult
    public func removeEdge(_ name: String, from source: YapDB.Index, to destination: YapDB.Index, in handle: RelationshipsHandle) throws -> Bool {
        _ = try extensionRuntime(named: handle.name, as: RelationshipsRuntime.self)
        return try removeObject(forKey: ManualEdge.key(name: name, source: source, destination: destination), inCollection: handle.manualEdgesCollection)
    }

    /// Deletes now, in this transaction, the values of the extension's garbage-collected
    /// collections that nothing reaches (see ``Relationships/collectingGarbage(in:afterWrites:)``),
    /// and returns their indexes. Delete rules run for them like for any deletion; what they
    /// delete in turn is in the changeset, not in the result.
    /// - Complexity: O(E + N) for the E edges and the N values of the collected collections.
    /// - Throws: ``LarderError/Code/extensionNotRegistered``, or a failure of LMDB.
    public func collectGarbage(in handle: RelationshipsHandle) throws -> [YapDB.Index] {
        try extensionRuntime(named: handle.name, as: RelationshipsRuntime.self).collectGarbage(in: self)
    }
}

extension Database {
    /// Registers `relationships` under `name` and returns the handle to query it with; see
    /// ``Database`` ("Registering, unregistering and checking extensions") for what registration
    /// does. Registering again with the same definition returns the same handle at no cost.
    ///
    /// Register it in every process that deletes values, before writing: a deletion made without
    /// it runs no rules (and marks the extension stale, so its edges are rebuilt at the next
    /// registration).
    /// - Throws: ``LarderError/Code/extensionConflict`` when `name` is registered with another
    ///   definition; ``LarderError/Code/invalidExtensionName``; errors from building the edges
    ///   (the store is then unchanged).
    @discardableResult
    public func register(_ relationships: Relationships, named name: String, progress: ((RegistrationProgress) -> Void)? = nil) throws -> RelationshipsHandle {
        try registerExtension(
            named: name, kind: RelationshipsRuntime.kindName, versionTag: relationships.versionTag,
            collections: nil, dependencies: [], parts: RelationshipsRuntime.partNames, progress: progress
        ) { parts in
            RelationshipsRuntime(name: name, definition: relationships, parts: parts)
        }
        return RelationshipsHandle(name: name)
    }
}
