/// The name of a registered ``SecondaryIndex``: what `txn[handle]` reads through.
public struct SecondaryIndexHandle<Object: Codable & Sendable, Metadata: Codable & Sendable>: Sendable, Hashable {
    /// The name the index was registered under.
    public let name: String

    /// Whether the two handles name the same extension: the same UTF-8 bytes, as the store tells
    /// extensions apart (not Swift's canonical equivalence of strings).
    public static func == (a: Self, b: Self) -> Bool { ExactString.bytesEqual(a.name, b.name) }

    /// Hashes the name's UTF-8 bytes, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) { ExactString.hashBytes(of: name, into: &hasher) }
}
