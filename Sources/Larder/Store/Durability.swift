/// How hard a commit works to reach the disk, and what a crash can therefore lose.
///
/// LMDB never corrupts the store on a crash in any of these modes; they differ in how many of the
/// most recent commits a power loss or kernel crash can take back. A crash of the process alone
/// (SIGKILL, a trap) loses nothing in any mode: committed pages are in the kernel's page cache.
public enum Durability: Sendable, Hashable {
    /// Every commit is flushed to the disk before the write returns (`fsync` of data and meta
    /// page). A power loss loses no acknowledged commit. The default.
    case full
    /// Data pages are flushed at each commit, the meta page is not (LMDB's `MDB_NOMETASYNC`).
    /// - Warning: A power loss can take back the last commit before the next one; the store
    ///   stays consistent (it opens at the previous commit).
    case noMetaSync
    /// Commits do not flush (LMDB's `MDB_NOSYNC`); a background timer flushes every `interval`,
    /// and the database flushes when it closes or when you call ``Database/sync()``.
    /// - Warning: A power loss or kernel crash can take back every commit of the last
    ///   `interval` (plus the time the flush takes); the store stays consistent, at an earlier
    ///   commit. A process crash loses nothing.
    case deferred(interval: Duration)
}
