/// Keeps a subscription while a stream or one of its iterators exists; ends it after.
final class SubscriptionLease: Sendable {
    let subscription: ChangeSubscription
    let database: Database  // keeps the store open while someone observes it

    /// - Parameter keepsDetails: whether the consumer reads extensions' changes and commit
    ///   information (a ``ChangeStream``) or only which indexes changed (``ObjectObservation``).
    init(database: Database, collection: String?, keepsDetails: Bool = true) {
        self.database = database
        let hub = database.shared.changeHub
        subscription = ChangeSubscription(collection: collection, keepsDetails: keepsDetails, hub: hub)
        hub.subscribe(subscription, environment: database.environment)
    }

    deinit { subscription.cancel() }
}

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

/// The value of one object, first as it is and then each time a commit changes it (`nil` while
/// there is none). Values come from the latest commit when the consumer asks, so a consumer that
/// is slower than the writes sees the latest value, not every intermediate one. Between two reads
/// it keeps only which indexes of its collection changed (merged as in ``ChangeStream``, without
/// extensions' changes or commit information), so a consumer that stops asking holds a few
/// kilobytes whatever the number of commits. Ends when the consuming task is
/// cancelled; throws if a read fails.
public struct ObjectObservation<Value: Sendable>: AsyncSequence, Sendable {
    /// The object's value, `nil` while there is none.
    public typealias Element = Value?
    /// A read that failed (a ``LarderError``, or a value that no longer decodes).
    public typealias Failure = any Error

    let lease: SubscriptionLease
    /// Whether a changeset may change the value.
    let isRelevant: @Sendable (Changeset) -> Bool
    /// What the values are read through (a connection, with its cache and pinned snapshot).
    let reader: any DatabaseAccess
    let read: @Sendable (ReadTransaction) throws -> Value?

    init(lease: SubscriptionLease, index: YapDB.Index, reader: any DatabaseAccess, read: @escaping @Sendable (ReadTransaction) throws -> Value?) {
        self.init(lease: lease, isRelevant: { $0.hasObjectChange(for: index) }, reader: reader, read: read)
    }

    init(lease: SubscriptionLease, isRelevant: @escaping @Sendable (Changeset) -> Bool, reader: any DatabaseAccess, read: @escaping @Sendable (ReadTransaction) throws -> Value?) {
        self.lease = lease
        self.isRelevant = isRelevant
        self.reader = reader
        self.read = read
    }

    /// The sequence's iterator; the first ``Iterator/next()`` returns the current value at once.
    public func makeAsyncIterator() -> Iterator { Iterator(observation: self) }

    /// Iterates the values; `nil` once the consuming task is cancelled.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let observation: ObjectObservation
        var seen: UInt64?

        /// The current value the first time; after that, waits for a commit that changes the
        /// object and returns its new value. `nil` (the end) once the consuming task is cancelled.
        /// - Throws: ``LarderError`` when the read fails, or the archiver's error when the stored
        ///   object does not decode as `Value`.
        public mutating func next() async throws -> Value?? {
            if let seen {
                while let changeset = await observation.lease.subscription.next() {
                    if changeset.commit > seen, observation.isRelevant(changeset) { break }
                    if Task.isCancelled { return nil }
                }
                if Task.isCancelled { return nil }
            }
            let read = observation.read
            let (value, commit) = try await observation.reader.read { txn in (try read(txn), txn.lastCommit) }
            seen = commit
            return .some(value)
        }
    }
}

extension Database {
    /// The changesets of every commit from now on (of this process and others), as an async
    /// sequence; with `collection`, only those that change something in it.
    ///
    /// ```swift
    /// for await changes in db.changes(inCollection: "products") {
    ///     print("commit \(changes.commit) changed \(changes.changedKeys(inCollection: "products"))")
    /// }
    /// ```
    public func changes(inCollection collection: String? = nil) -> ChangeStream {
        ChangeStream(lease: SubscriptionLease(database: self, collection: collection))
    }

    /// Looks for commits of other processes now, instead of at the next poll: observers receive
    /// them before this returns. (Reads and writes of this process find them anyway when they see
    /// a newer commit.)
    public func checkForExternalChanges() {
        let hub = shared.changeHub
        environment.whileOpen { hub.poll(environment) }
    }

    /// How many change observers are live (for tests and diagnostics).
    var observerCount: Int { shared.changeHub.subscriberCount }
}

extension DatabaseAccess {
    /// The object `id` of type `T`, now and after every commit that changes it, read through
    /// this database or connection (and its cache). On a connection with a pinned snapshot the
    /// values come from the pinned snapshot: observe through an unpinned connection to follow the
    /// newest commit.
    ///
    /// ```swift
    /// for try await product in db.observe(Product.self, id: "p1") {
    ///     show(product)  // nil while there is no such product
    /// }
    /// ```
    public func observe<T: Persistable & Saveable & Sendable>(_ type: T.Type, id: T.ID) -> ObjectObservation<T> {
        let key = T.key(for: id)
        return ObjectObservation(
            lease: SubscriptionLease(database: database, collection: T.collection, keepsDetails: false), index: T.index(forKey: key),
            reader: self, read: { try $0.object(forKey: key, inCollection: T.collection, as: T.self) })
    }

    /// The object `id` of type `T`, now and after every commit that changes it.
    @_disfavoredOverload
    public func observe<T: Persistable & Codable & Sendable>(_ type: T.Type, id: T.ID) -> ObjectObservation<T> {
        let key = T.key(for: id)
        return ObjectObservation(
            lease: SubscriptionLease(database: database, collection: T.collection, keepsDetails: false), index: T.index(forKey: key),
            reader: self, read: { try $0.object(forKey: key, inCollection: T.collection, as: T.self) })
    }
}
