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

extension DeleteRules: Codable {}
