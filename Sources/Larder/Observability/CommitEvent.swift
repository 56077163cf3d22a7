/// What ``DatabaseEvent/committed(_:)`` tells about one commit.
public struct CommitEvent: Sendable, Equatable {
    /// The commit's number in the change log; `nil` when the transaction changed nothing that the
    /// log records (LMDB still committed it).
    public var commit: UInt64?
    /// How many callers' closures the commit holds: 1 for a synchronous write, up to the group
    /// limit for asynchronous writes committed together (group commit). Closures of the group
    /// that threw or rolled back are not counted (each is a ``DatabaseEvent/writeFailed(_:)``).
    public var callers: Int
    /// How many indexes (collection and key) the commit inserted, updated or removed, as its
    /// changeset lists them (a cleared collection counts as none).
    public var changedRows: Int
    /// From the start of the write transaction to the end of the commit, on the writing thread,
    /// including the closures and the sync to the disk.
    public var duration: Duration
    /// Whether the commit was flushed to the disk before the write returned
    /// (``Durability/full``); `false` under ``Durability/noMetaSync`` and ``Durability/deferred(interval:)``.
    public var isDurable: Bool
    /// The size of the memory map after the commit, in bytes.
    public var mapSize: Int
    /// The bytes of the map in use after the commit (pages up to the last one used).
    public var mapUsed: Int
}
