import Synchronization

/// Which changesets a subscription takes: those that touch a ``ReadSet`` (an observation's last
/// reads), or every one while it has none (while the observation reads again). Changed under a
/// lock by the observing task, consulted by the hub as it delivers each commit, so that a commit
/// that touches nothing observed wakes nobody.
final class ReadFilter: Sendable {
    private let reads = Mutex<ReadSet?>(nil)

    /// Takes every changeset from now on (until ``admit(_:)``).
    func admitEverything() { reads.withLock { $0 = nil } }

    /// Takes from now on the changesets that touch `reads`.
    func admit(_ reads: ReadSet) { self.reads.withLock { $0 = reads } }

    /// Whether the subscription takes `changeset`.
    func admits(_ changeset: Changeset) -> Bool {
        reads.withLock { reads in reads.map { changeset.touches($0) } ?? true }
    }
}
