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

    /// Whether the two edges are the same: their names have the same UTF-8 bytes (as the store
    /// keys edges), and their ends, rules and kind are equal.
    public static func == (a: RelationshipEdge, b: RelationshipEdge) -> Bool {
        ExactString.bytesEqual(a.name, b.name) && a.source == b.source && a.destination == b.destination && a.rules == b.rules && a.isManual == b.isManual
    }

    /// Hashes what ``==(_:_:)`` compares, the name as its bytes.
    public func hash(into hasher: inout Hasher) {
        ExactString.hashBytes(of: name, into: &hasher)
        hasher.combine(source)
        hasher.combine(destination)
        hasher.combine(rules)
        hasher.combine(isManual)
    }
}
