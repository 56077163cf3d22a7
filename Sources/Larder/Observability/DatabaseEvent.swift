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
    /// A `Database` was closed (``Database/close()-1m8tz``) or released; the environment closes with
    /// the last one on it in the process.
    case closed(path: String)
    /// The memory map grew, in this process, to fit what a write needed (sizes in bytes).
    case mapGrew(oldSize: Int, newSize: Int)
    /// Reader slots left by processes that died inside a read transaction were reclaimed.
    case staleReadersCleared(count: Int)
    /// A connection's (or the database's own) caches were emptied because the changes since they
    /// were filled were no longer known (``Changeset/isReset``: the change log had dropped them).
    /// A sign that a connection stayed behind for longer than the log keeps
    /// (``Database/Configuration/changeLogLimit``); emptyings the store makes on purpose are
    /// ``cachesFlushed(commit:reason:)``.
    case cachesReset(commit: UInt64)
    /// A connection's (or the database's own) caches were emptied on purpose, for `reason`: a
    /// registration of ``ValueMigrations``, a connection so far behind that reading the changes
    /// would cost more, a commit that removed everything. Nothing was lost; reads decode again.
    /// Told only for caches that held something.
    case cachesFlushed(commit: UInt64, reason: CacheFlushReason)
    /// A write transaction committed, whether or not it changed anything (``CommitEvent/commit``
    /// is `nil` when it changed nothing).
    case committed(CommitEvent)
    /// A write transaction committed nothing: its closure threw, it rolled back, or LMDB refused
    /// the commit.
    case writeFailed(WriteFailure)
    /// A registration of ``ValueMigrations`` leaves values the collection holds unreadable: no
    /// chain of steps leads from their version to the current one (see
    /// ``UnmigratableValues``). Looked for only when `onEvent` is set.
    case unmigratableValues(UnmigratableValues)
}
