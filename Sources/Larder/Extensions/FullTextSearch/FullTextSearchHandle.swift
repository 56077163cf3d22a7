/// The name of a registered ``FullTextSearch``: what `txn[handle]` reads through.
public struct FullTextSearchHandle<Object: Codable & Sendable, Metadata: Codable & Sendable>: Sendable, Hashable {
    /// The name the full-text search was registered under.
    public let name: String
}
