/// The name of a registered ``Relationships`` extension: what `txn[handle]` reads through.
public struct RelationshipsHandle: Sendable, Hashable {
    /// The name it was registered under.
    public let name: String

    /// The collection that keeps the edges added by hand to this extension.
    public var manualEdgesCollection: String { "larder.edges." + name }

    /// Whether the two handles name the same extension: the same UTF-8 bytes, as the store tells
    /// extensions apart (not Swift's canonical equivalence of strings).
    public static func == (a: Self, b: Self) -> Bool { ExactString.bytesEqual(a.name, b.name) }

    /// Hashes the name's UTF-8 bytes, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) { ExactString.hashBytes(of: name, into: &hasher) }
}
