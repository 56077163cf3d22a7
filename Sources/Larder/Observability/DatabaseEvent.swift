/// Something that happened in a store, told to ``Database/Configuration/onEvent`` as it happens:
/// the figures a server's logs and metrics want (map growth, stale readers, cache resets,
/// group-commit sizes, commit latency, failed writes).
///
/// ```swift
/// var configuration = Database.Configuration()
/// configuration.onEvent = { event in
///     if case .committed(let commit) = event, commit.duration > .milliseconds(50) {
///         print("slow commit: \(commit.duration), \(commit.callers) callers")
///     }
/// }
/// let db = try Database(path: "/var/lib/app/store", configuration: configuration)
/// ```
///
/// The `LarderAdapters` product maps these events to swift-log and swift-metrics. New cases may
/// be added in later versions: give a `switch` over them a `default`.
public enum DatabaseEvent: Sendable {
    /// A `Database` opened the store (or shared the environment this process already had open).
    case opened(StoreOpening)
    /// A `Database` was closed (``Database/close()``) or released; the environment closes with
    /// the last one on it in the process.
    case closed(path: String)
    /// The memory map grew, in this process, to fit what a write needed (sizes in bytes).
    case mapGrew(oldSize: Int, newSize: Int)
    /// Reader slots left by processes that died inside a read transaction were reclaimed.
    case staleReadersCleared(count: Int)
    /// A connection's (or the database's own) caches were emptied because the changes since they
    /// were filled were no longer known (``Changeset/isReset``: the change log had dropped them).
    case cachesReset(commit: UInt64)
    /// A write transaction committed.
    case committed(CommitEvent)
    /// A write transaction committed nothing: its closure threw, it rolled back, or LMDB refused
    /// the commit.
    case writeFailed(WriteFailure)
}

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

/// What ``DatabaseEvent/writeFailed(_:)`` tells about a write that kept nothing.
public struct WriteFailure: Sendable, Equatable {
    /// The ``LarderError`` code when a Larder error ended the write; `nil` when the closure threw
    /// an error of its own or rolled back.
    public var code: LarderError.Code?
    /// Whether the closure called ``ReadWriteTransaction/rollback()``.
    public var isRollback: Bool
    /// How many callers' writes it dropped: 1 for one closure (even inside a group commit whose
    /// other closures committed), the whole group when the group's commit failed.
    public var callers: Int
}
