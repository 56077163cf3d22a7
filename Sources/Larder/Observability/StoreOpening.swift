/// What ``DatabaseEvent/opened(_:)`` tells about the store.
public struct StoreOpening: Sendable, Equatable {
    /// The path the `Database` was opened with.
    public var path: String
    /// The store's format version (1 plain, 2 with checksummed values); `nil` when it could not
    /// be read.
    public var formatVersion: UInt32?
    /// Whether the store was opened read-only (``Database/Configuration/readOnly``).
    public var isReadOnly: Bool
    /// The size of the memory map, in bytes.
    public var mapSize: Int
}
