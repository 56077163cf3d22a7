/// The relationships extension: named, directed edges between stored values, with delete rules
/// that run inside the write transaction, and opt-in garbage collection from the named roots.
///
/// Edges come from the values themselves (a closure per type, usually reading their ``Ref``s) and
/// from edges added by hand (``ReadWriteTransaction/addEdge(_:from:to:rules:in:)``):
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
/// use garbage collection (``collectingGarbage(in:afterWrites:)``).
public struct Relationships: Sendable {
    /// Change it whenever an edge closure changes: a new tag rebuilds the edges.
    public let versionTag: String
    /// The collections whose unreachable values garbage collection deletes.
    public private(set) var garbageCollected: Set<String> = []
    /// Whether garbage collection runs at the end of every write that removed a reference into a
    /// garbage-collected collection (or a root).
    public private(set) var collectsAfterWrites = false
    /// Where the edges come from, by source collection.
    private(set) var sources: [String: [EdgeSource]] = [:]

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
        copy.sources[T.collection, default: []].append(EdgeSource(type: T.self, links: edges, nullify: nullify))
        return copy
    }

    /// Adds an edge from each stored `T` to every value one of its ``Ref``s points to, however
    /// deep in the value (in optionals, arrays, dictionaries, nested structures), found by
    /// reflection. Each edge is named after the top-level property that holds the ref.
    public func references<T: Persistable & Codable>(from type: T.Type, rules: DeleteRules = []) -> Relationships {
        edges(from: T.self, ReferenceFinder.links(rules: rules))
    }

    /// Deletes, on request (``ReadWriteTransaction/collectGarbage(in:)``) and, when `afterWrites`
    /// is `true`, at the end of every write that removed a reference, the values of `collections`
    /// that nothing reaches. Reachable means reachable through edges from a named root or from any
    /// value outside the garbage-collected collections.
    public func collectingGarbage(in collections: Set<String>, afterWrites: Bool = false) -> Relationships {
        var copy = self
        copy.garbageCollected = collections
        copy.collectsAfterWrites = afterWrites
        return copy
    }

    /// One edge a value declares: its name, its destination and its delete rules.
    public struct Link: Sendable, Hashable {
        /// The edge's name ("pages", "budget").
        public let name: String
        /// The value the edge points to.
        public let destination: YapDB.Index
        /// What deleting either end does.
        public let rules: DeleteRules
        /// The source, when it is not the value declaring the edge (edges added by hand).
        let source: YapDB.Index?

        /// An edge named `name` to `destination`.
        public init(_ name: String, to destination: YapDB.Index, rules: DeleteRules = []) {
            self.init(name: name, source: nil, destination: destination, rules: rules)
        }

        /// An edge named `name` to the value `ref` points to.
        public init<U: Persistable>(_ name: String, to ref: Ref<U>, rules: DeleteRules = []) {
            self.init(name: name, source: nil, destination: ref.index, rules: rules)
        }

        init(name: String, source: YapDB.Index?, destination: YapDB.Index, rules: DeleteRules) {
            self.name = name
            self.source = source
            self.destination = destination
            self.rules = rules
        }
    }

    /// The edges of one type of value, type-erased for the runtime.
    struct EdgeSource: Sendable {
        private let typed: any TypedEdgeSource

        init<T: Codable>(type: T.Type, links: @escaping @Sendable (T) -> [Link], nullify: (@Sendable (inout T, RelationshipEdge) -> Void)?) {
            typed = EdgesOfType<T>(links: links, nullify: nullify)
        }

        /// The links of the object at `index` (`nil`: no object, or not of this type).
        func links(_ txn: ReadTransaction, _ index: YapDB.Index, _ written: Any?) throws -> [Link]? {
            try typed.links(txn, index, written)
        }

        /// Runs the type's nullify closure on the object at `index` and writes it back; returns
        /// `false` when the type has no closure or the object is not one of its values.
        func nullify(_ txn: ReadWriteTransaction, _ index: YapDB.Index, _ edge: RelationshipEdge) throws -> Bool {
            try typed.nullify(txn, index, edge)
        }

        /// The manual edges of one relationships extension: each stored ``ManualEdge`` is one edge.
        static var manual: EdgeSource {
            EdgeSource(type: ManualEdge.self, links: { [Link(name: $0.name, source: $0.source, destination: $0.destination, rules: $0.rules)] }, nullify: nil)
        }
    }
}

private protocol TypedEdgeSource: Sendable {
    func links(_ txn: ReadTransaction, _ index: YapDB.Index, _ written: Any?) throws -> [Relationships.Link]?
    func nullify(_ txn: ReadWriteTransaction, _ index: YapDB.Index, _ edge: RelationshipEdge) throws -> Bool
}

private struct EdgesOfType<T: Codable>: TypedEdgeSource {
    let links: @Sendable (T) -> [Relationships.Link]
    let nullify: (@Sendable (inout T, RelationshipEdge) -> Void)?

    func links(_ txn: ReadTransaction, _ index: YapDB.Index, _ written: Any?) throws -> [Relationships.Link]? {
        try txn.extensionObject(T.self, at: index, written: written).map(links)
    }

    func nullify(_ txn: ReadWriteTransaction, _ index: YapDB.Index, _ edge: RelationshipEdge) throws -> Bool {
        guard let nullify, var value = try txn.extensionObject(T.self, at: index, written: nil) else { return false }
        nullify(&value, edge)
        return try txn.replaceObject(value, forKey: index.key, inCollection: index.collection)
    }
}

/// What deleting a value at one end of an edge does to the value at the other end. Combine them:
/// `[.deleteDestinationWithSource, .nullifySource]`. No rule (`[]`) does nothing: the edge just
/// points at nothing.
///
/// Rules run inside the write transaction that deletes, through chains and cycles of edges; what
/// they delete or change appears in that commit's changeset like any other change.
public struct DeleteRules: OptionSet, Sendable, Hashable {
    /// The rules as bits, one per rule; this is also how an edge stores them (one byte).
    public let rawValue: UInt8

    /// The rules whose bits are set in `rawValue`.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Deleting the source deletes the destination (a document owns its pages).
    public static let deleteDestinationWithSource = DeleteRules(rawValue: 1 << 0)
    /// Deleting the destination deletes the source (an item cannot outlive its budget).
    public static let deleteSourceWithDestination = DeleteRules(rawValue: 1 << 1)
    /// The destination is deleted when the last source with an edge of this name to it is
    /// deleted (a tag shared by several notes goes with the last note).
    public static let deleteDestinationWithLastSource = DeleteRules(rawValue: 1 << 2)
    /// The source is deleted when the last destination of its edges of this name is deleted (an
    /// album goes when its last photo does).
    public static let deleteSourceWithLastDestination = DeleteRules(rawValue: 1 << 3)
    /// Deleting the destination notifies the source: its type's `nullify` closure (see
    /// ``Relationships/edges(from:_:nullify:)``) updates it and it is written back; without a
    /// closure it is touched, so observers see it change.
    public static let nullifySource = DeleteRules(rawValue: 1 << 4)
    /// Deleting the source touches the destination, so observers of the destination see it change.
    public static let notifyDestination = DeleteRules(rawValue: 1 << 5)
}

/// An edge as stored: a named, directed link from a source value to a destination value.
public struct RelationshipEdge: Sendable, Hashable, CustomStringConvertible {
    /// The edge's name.
    public let name: String
    /// Where the edge starts.
    public let source: YapDB.Index
    /// Where it points.
    public let destination: YapDB.Index
    /// What deleting either end does.
    public let rules: DeleteRules
    /// Whether it was added by hand (``ReadWriteTransaction/addEdge(_:from:to:rules:in:)``)
    /// rather than declared by its source.
    public let isManual: Bool

    /// `source -name-> destination`.
    public var description: String { "\(source) -\(name)-> \(destination)" }
}

/// The name of a registered ``Relationships`` extension: what `txn[handle]` reads through.
public struct RelationshipsHandle: Sendable, Hashable {
    /// The name it was registered under.
    public let name: String

    /// The collection that keeps the edges added by hand to this extension.
    public var manualEdgesCollection: String { "larder.edges." + name }
}

/// An edge added by hand, stored as an object in the extension's manual-edges collection (so
/// that it is data like any other: in changesets, in the log, restored by a rebuild).
struct ManualEdge: Codable {
    var name: String
    var source: YapDB.Index
    var destination: YapDB.Index
    var rules: DeleteRules

    /// The key of the edge `name` from `source` to `destination`: lengths then bytes, so that no
    /// two edges share a key whatever their strings contain.
    static func key(name: String, source: YapDB.Index, destination: YapDB.Index) -> String {
        [name, source.collection, source.key, destination.collection, destination.key]
            .map { "\($0.utf8.count):\($0)" }
            .joined(separator: "|")
    }
}

extension DeleteRules: Codable {}

/// Finds the ``Ref``s inside a value by reflection.
enum ReferenceFinder {
    /// A closure giving an edge with `rules` for every ref inside a value.
    static func links(rules: DeleteRules) -> @Sendable (Any) -> [Relationships.Link] {
        { value in references(in: value).map { Relationships.Link($0.name, to: $0.destination, rules: rules) } }
    }

    static func references(in value: Any) -> [(name: String, destination: YapDB.Index)] {
        var found: [(String, YapDB.Index)] = []
        for child in Mirror(reflecting: value).children {
            let name = child.label.map { $0.hasPrefix("_") ? String($0.dropFirst()) : $0 } ?? "ref"
            collect(child.value, named: name, into: &found)
        }
        return found
    }

    private static func collect(_ value: Any, named name: String, into found: inout [(String, YapDB.Index)]) {
        if let ref = value as? any ReferenceToStoredValue {
            found.append((name, ref.index))
            return
        }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle != .enum || !mirror.children.isEmpty else { return }
        for child in mirror.children { collect(child.value, named: name, into: &found) }
    }
}

/// What every ``Ref`` is, whatever its target type.
protocol ReferenceToStoredValue {
    var index: YapDB.Index { get }
}

extension Ref: ReferenceToStoredValue {}
extension PolymorphicRef: ReferenceToStoredValue {}
