/// The relationships extension: named, directed edges between stored values, with delete rules
/// that run inside the write transaction, and opt-in garbage collection from the named roots.
///
/// Edges come from the values themselves (a closure per type, usually reading their ``Ref``s) and
/// from edges added by hand (``RelationshipsWriter/addEdge(_:from:to:rules:)``):
///
/// ```swift
/// let graph = Relationships(versionTag: "1")
///     .edges(from: Item.self) { item in
///         [.init("budget", to: item.budget, rules: .deleteSourceWithDestination)]
///     }
/// let relationships = try db.register(graph, named: "relationships")
/// try db.write { try $0.remove(Budget.self, key: "household") }   // its items go with it
/// ```
///
/// The closures must be pure functions of the value: the edges are kept from their results, and
/// ``Database/verifyExtensions()`` recomputes them. A value's edges are recomputed whenever it is
/// written; an edge stays while its source declares it, even when its destination is gone (like a
/// dangling ``Ref``), until a rule or a new version of the source removes it.
///
/// Delete rules run when a value at one end of an edge is **deleted** (see ``DeleteRules``).
/// Removing a reference from a value is not a deletion; to delete what is no longer reachable,
/// use garbage collection (``collectingGarbage(in:afterWrites:)-([String],_)``).
public struct Relationships: Sendable {
    /// Change it whenever an edge closure changes: a new tag rebuilds the edges.
    public let versionTag: String
    /// The collections whose unreachable values garbage collection deletes, matched by their
    /// UTF-8 bytes (a collection whose name Swift's `String ==` calls equal to one of them is
    /// another collection, whose values are never collected). A list, not a `Set<String>`, which
    /// would keep one of two names Swift calls equal.
    public private(set) var garbageCollectedCollections: [String] = []
    /// Whether garbage collection runs at the end of every write that removed a reference into a
    /// garbage-collected collection (or a root).
    public private(set) var collectsAfterWrites = false
    /// Where the edges come from, by source collection (its bytes: two types whose collections'
    /// names Swift calls equal are two sources).
    private(set) var sources: [ExactString: [EdgeSource]] = [:]

    /// Relationships with no edge sources yet; add them with ``edges(from:_:nullify:)`` and
    /// ``references(from:rules:)``.
    public init(versionTag: String) {
        self.versionTag = versionTag
    }

    /// Adds the edges that each stored `T` declares: `edges` returns them for a value (the value
    /// is their source). `nullify`, when given, is how a `T` forgets a destination that was
    /// deleted under the ``DeleteRules/nullifySource`` rule (for example by setting the reference
    /// to `nil`); the changed value is written back in the same transaction.
    public func edges<T: Persistable & Codable>(
        from type: T.Type, _ edges: @escaping @Sendable (T) -> [Link],
        nullify: (@Sendable (inout T, RelationshipEdge) -> Void)? = nil
    ) -> Relationships {
        var copy = self
        copy.sources[ExactString(T.collection), default: []].append(EdgeSource(type: T.self, links: edges, nullify: nullify))
        return copy
    }

    /// Adds an edge from each stored `T` to every value one of its ``Ref``s points to, however
    /// deep in the value (in optionals, arrays, dictionaries, nested structures), found by
    /// reflection. Each edge is named after the top-level property that holds the ref.
    public func references<T: Persistable & Codable>(from type: T.Type, rules: DeleteRules = []) -> Relationships {
        edges(from: T.self, ReferenceFinder.links(rules: rules))
    }

    /// Deletes, on request (``RelationshipsWriter/collectGarbage()``) and, when `afterWrites`
    /// is `true`, at the end of every write that removed a reference, the values of `collections`
    /// that nothing reaches. Reachable means reachable through edges from a named root or from any
    /// value outside the garbage-collected collections.
    public func collectingGarbage(in collections: [String], afterWrites: Bool = false) -> Relationships {
        var copy = self
        copy.garbageCollectedCollections = collections
        copy.collectsAfterWrites = afterWrites
        return copy
    }
}

extension Relationships {
    /// The garbage-collected collections, as a `Set` (which merges names Swift calls equal).
    @available(*, deprecated, renamed: "garbageCollectedCollections", message: "a Set<String> merges collection names Swift calls equal but the store keeps apart")
    public var garbageCollected: Set<String> { Set(garbageCollectedCollections) }

    /// ``collectingGarbage(in:afterWrites:)-([String],_)`` over the collections of a `Set`.
    @available(*, deprecated, message: "pass the collections as an array: a Set<String> merges names Swift calls equal but the store keeps apart")
    @_disfavoredOverload
    public func collectingGarbage(in collections: Set<String>, afterWrites: Bool = false) -> Relationships {
        collectingGarbage(in: Array(collections), afterWrites: afterWrites)
    }
}

extension Relationships: ExtensionDefinition {
    /// What registering it returns: the handle the edges are read and edited with.
    public typealias Handle = RelationshipsHandle

    /// How a store keeps these relationships (``Database/register(_:named:progress:)`` calls it).
    ///
    /// Register it in every process that deletes values, before writing: a deletion made without
    /// it runs no rules (and marks the extension stale, so its edges are rebuilt at the next
    /// registration).
    public func registration(named name: String, in database: Database) -> ExtensionRegistration<Handle> {
        ExtensionRegistration(kind: RelationshipsRuntime.kindName, collections: nil, parts: RelationshipsRuntime.partNames, handle: Handle(name: name)) { parts in
            RelationshipsRuntime(name: name, definition: self, parts: parts)
        }
    }
}
