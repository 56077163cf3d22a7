/// The name of a registered ``SecondaryIndex``: what `txn[handle]` reads through.
public struct SecondaryIndexHandle<Object: Codable & Sendable, Metadata: Codable & Sendable>: Sendable, Hashable {
    /// The name the index was registered under.
    public let name: String
}
