/// An edge a value declares in a write, while the relationships extension compares what it
/// declares now with what it declared before.
struct WantedEdge {
    /// The edge's forward key.
    let key: [UInt8]
    /// The edge as first declared (its ends and name).
    let edge: RelationshipEdge
    /// The rules of every declaration of the edge together.
    var rules: DeleteRules
    /// Whether the edge is stored already with these rules (so nothing is written).
    var isStored = false
}
