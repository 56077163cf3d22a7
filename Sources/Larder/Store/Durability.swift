/// How hard a commit works to reach the disk, and what a power loss can therefore take back.
///
/// The store stays consistent through a power loss or kernel crash in every mode (it opens at
/// some commit, whole); the modes differ in how many of the most recent acknowledged commits it
/// may take back. A crash of the process alone (SIGKILL, a trap) loses nothing in any mode:
/// committed pages are in the kernel's page cache. Measured with simulated power cuts: see
/// Documentation/Reliability.md.
public enum Durability: Sendable, Hashable {
    /// Every commit is flushed to the disk before the write returns (`fdatasync` of the data
    /// pages, then the meta page through a synchronous descriptor). A power loss loses no
    /// acknowledged commit. The default.
    case full
    /// Data pages are flushed at each commit, the meta page is not (LMDB's `NOMETASYNC` environment flag);
    /// the next commit's flush carries it. About one flush per commit instead of two.
    /// - Warning: A power loss can take back the last acknowledged commit, for as long as no
    ///   other commit follows it (the store opens at the commit before).
    case noMetaSync
    /// ``noMetaSync`` plus a background flush: every `interval`, if a commit happened since the
    /// last flush, the store flushes it, so the newest commit is on the disk at most `interval`
    /// (plus the time the flush takes) after it returned. The store also flushes when its last
    /// `Database` closes, and when you call ``Database/sync()``.
    ///
    /// A background flush that fails (an I/O error, a full disk) is kept, and the first such
    /// failure is thrown once, by the next write or ``Database/sync()``, whichever comes first;
    /// that call does nothing else when it is a write. A failure while the store closes is not
    /// reported (there is no caller left).
    ///
    /// Earlier versions ran this mode on LMDB's `NOSYNC` environment flag (no flush at commit), which does
    /// not keep the store consistent through a power loss on file systems that reorder writes.
    /// Now each commit costs one flush, as with ``noMetaSync``.
    /// - Warning: A power loss can take back the last acknowledged commit if it came less than
    ///   `interval` before the power cut; never an older one, and never consistency.
    case deferred(interval: Duration)
}
