/// The changesets of a database's commits, as they happen: those of this process and, found in
/// the change log, those of other processes (``Database/Configuration/changePollInterval``).
///
/// The stream starts receiving when it is created, so nothing committed between creating it and
/// iterating it is missed. It has one consumer: iterate it once. It ends when the consuming task is
/// cancelled; dropping the stream ends it too. Either way everything it held is released.
///
/// A consumer that falls behind never holds up writers, and what waits for it stays bounded:
/// beyond 64 waiting changesets or 256 KiB of them, the waiting ones are merged into one that
/// covers them all (see ``Changeset/commits``), with index changes netted per index. A merged
/// changeset still over 256 KiB drops the extensions' itemized changes (a view's
/// ``ViewHandle/changes(in:)-(Changeset)`` then reports a reset for those commits); one still over
/// that, or listing more than 4,096 indexes, becomes a reset (``Changeset/isReset``): reload what
/// you show. No change is lost silently.
public struct ChangeStream: AsyncSequence, Sendable {
    /// Each element is the changeset of one commit, or of several merged.
    public typealias Element = Changeset
    /// The stream never fails; it ends when its consumer is cancelled.
    public typealias Failure = Never

    let lease: SubscriptionLease

    /// The stream's iterator. Make one: the stream has one consumer.
    public func makeAsyncIterator() -> Iterator { Iterator(lease: lease) }

    /// Iterates the changesets; `nil` once the consuming task is cancelled.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let lease: SubscriptionLease

        /// The next changeset, waiting for a commit if none is pending; `nil` once the consuming
        /// task is cancelled.
        public mutating func next() async -> Changeset? {
            await lease.subscription.next()
        }

        /// The next changeset, as ``next()`` gives it, without leaving `actor`'s isolation.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Changeset? {
            await lease.subscription.next()
        }
    }
}
