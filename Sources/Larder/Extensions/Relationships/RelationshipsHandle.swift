/// The name of a registered ``Relationships`` extension: what `txn[handle]` reads through.
public struct RelationshipsHandle: Sendable, Hashable {
    /// The name it was registered under.
    public let name: String

    /// The collection that keeps the edges added by hand to this extension.
    public var manualEdgesCollection: String { "larder.edges." + name }
}
