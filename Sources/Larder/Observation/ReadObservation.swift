/// The result of a read, first as it is and then each time a commit changes something the read
/// read: what `observe { txn in … }` returns (on a ``Database`` or a ``Connection``).
///
/// Each run of the read records what it read (keys, collections enumerated or counted,
/// extensions read and their collections), and the store's change hub wakes the observation only
/// for a commit that touches those reads, of this process or, found in the change log, of
/// another. A commit that touches nothing observed costs each observation one check of its read
/// set as the commit is published, and no wake-up. When the result is `Equatable`, a re-run whose
/// result equals the last one yields nothing. Commits that arrive while the consumer is busy
/// coalesce: the next run reads the newest commit once.
///
/// It ends when the consuming task is cancelled, and with the error when a run of the read throws.
public struct ReadObservation<Value: Sendable>: AsyncSequence, Sendable {
    /// The read's result.
    public typealias Element = Value
    /// What a run of the read threw.
    public typealias Failure = any Error

    let engine: ObservedRead
    let read: @Sendable (ReadTransaction) throws -> Value
    /// Whether two results are the same (then the later is not yielded); `nil`: always yield.
    let isSame: (@Sendable (Value, Value) -> Bool)?

    init(reader: any DatabaseAccess, isSame: (@Sendable (Value, Value) -> Bool)?, read: @escaping @Sendable (ReadTransaction) throws -> Value) {
        engine = ObservedRead(reader: reader)
        self.read = read
        self.isSame = isSame
    }

    /// The sequence's iterator; the first ``Iterator/next()`` returns the current result at once.
    public func makeAsyncIterator() -> Iterator { Iterator(observation: self) }

    /// Iterates the results; `nil` once the consuming task is cancelled or a run threw.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let observation: ReadObservation
        /// The commit the last run read; `nil` before the first.
        var seen: UInt64?
        var last: Value?
        var ended = false

        /// The current result the first time; after that, waits for a commit that touches what
        /// the last run read, runs the read again, and returns its result if it differs from the
        /// last one (when `Value` is `Equatable`). `nil` (the end) once the consuming task is
        /// cancelled.
        /// - Throws: what the read throws (a ``LarderError``, a decoding failure, the closure's
        ///   own error); the sequence ends with it.
        public mutating func next() async throws -> Value? {
            guard !ended else { return nil }
            while true {
                if let seen {
                    guard await observation.engine.waitForCommit(after: seen) else {
                        ended = true
                        return nil
                    }
                }
                if Task.isCancelled {
                    ended = true
                    return nil
                }
                let (value, commit): (Value, UInt64)
                do {
                    (value, commit) = try await observation.engine.run(observation.read)
                } catch {
                    ended = true
                    throw error
                }
                seen = commit
                if let last, let isSame = observation.isSame, isSame(last, value) { continue }
                last = value
                return value
            }
        }
    }
}

extension DatabaseAccess {
    /// The result of `read`, now and after every commit (of this process or another) that
    /// changes something `read` read, whenever the result differs from the last one.
    ///
    /// ```swift
    /// for try await count in db.observe({ txn in try txn.numberOfKeys(inCollection: "notes") }) {
    ///     print("\(count) notes")
    /// }
    /// ```
    ///
    /// Keep `read` a pure function of what it reads in the transaction: the observation knows
    /// only what it read there. On a connection with a pinned snapshot every run reads the pinned
    /// snapshot: observe through an unpinned connection to follow the newest commit.
    public func observe<Value: Equatable & Sendable>(_ read: @escaping @Sendable (ReadTransaction) throws -> Value) -> ReadObservation<Value> {
        ReadObservation(reader: self, isSame: { $0 == $1 }, read: read)
    }

    /// The result of `read`, now and after every commit that changes something `read` read.
    /// `Value` is not `Equatable`, so every such commit yields a result, equal to the last or not.
    @_disfavoredOverload
    public func observe<Value: Sendable>(_ read: @escaping @Sendable (ReadTransaction) throws -> Value) -> ReadObservation<Value> {
        ReadObservation(reader: self, isSame: nil, read: read)
    }
}
