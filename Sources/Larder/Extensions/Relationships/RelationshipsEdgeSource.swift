extension Relationships {
    /// The edges of one type of value, type-erased for the runtime.
    struct EdgeSource: Sendable {
        private let typed: any TypedEdgeSource

        init<T: Codable>(type: T.Type, links: @escaping @Sendable (T) -> [Link], nullify: (@Sendable (inout T, RelationshipEdge) -> Void)?) {
            typed = EdgesOfType<T>(links: links, nullify: nullify)
        }

        /// The links of the object at `index` (`nil`: no object, or not of this type).
        func links(_ txn: ReadTransaction, _ index: YapDB.Index, _ written: CachedValueBox?) throws -> [Link]? {
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
    func links(_ txn: ReadTransaction, _ index: YapDB.Index, _ written: CachedValueBox?) throws -> [Relationships.Link]?
    func nullify(_ txn: ReadWriteTransaction, _ index: YapDB.Index, _ edge: RelationshipEdge) throws -> Bool
}

private struct EdgesOfType<T: Codable>: TypedEdgeSource {
    let links: @Sendable (T) -> [Relationships.Link]
    let nullify: (@Sendable (inout T, RelationshipEdge) -> Void)?

    func links(_ txn: ReadTransaction, _ index: YapDB.Index, _ written: CachedValueBox?) throws -> [Relationships.Link]? {
        try txn.extensionObject(T.self, at: index, written: written).map(links)
    }

    func nullify(_ txn: ReadWriteTransaction, _ index: YapDB.Index, _ edge: RelationshipEdge) throws -> Bool {
        guard let nullify, var value = try txn.extensionObject(T.self, at: index, written: nil) else { return false }
        nullify(&value, edge)
        return try txn.replaceObject(value, forKey: index.key, inCollection: index.collection)
    }
}
