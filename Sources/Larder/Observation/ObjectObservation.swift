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
