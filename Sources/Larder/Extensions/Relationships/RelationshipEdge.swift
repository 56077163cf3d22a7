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
