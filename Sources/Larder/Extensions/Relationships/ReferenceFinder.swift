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
