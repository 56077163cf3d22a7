import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A Larder store: one LMDB environment holding collections of keyed objects and their metadata.
///
/// Open one with a path; reads and writes run in closure-scoped transactions that return what
/// the closure returns:
///
/// ```swift
/// let db = try Database(path: "/tmp/shop")
/// try db.write { txn in
///     try txn.setObject(Product(id: "p1", name: "Hammer"), forKey: "p1", inCollection: "products")
/// }
/// let name = try db.read { txn in
///     try txn.object(forKey: "p1", inCollection: "products", as: Product.self)?.name
/// }
/// ```
///
/// A `Database` is `Sendable`: share it between threads and tasks. Opening a file that this
/// process already has open (by any path: symlinks, hard links) shares the open environment, as
/// LMDB requires. ``close()-1m8tz`` closes a database; without it, the store closes when the last
/// `Database` on it is released.
///
/// Reads never wait for writers. Writes are serialized: synchronous writes run on the calling
/// thread; asynchronous writes run, in order, on a thread of the database's own, never on
/// Swift's cooperative pool.
///
/// What a `Database` shares with a ``Connection`` — transactions, undo and redo, one-call reads
/// and writes of ``Persistable`` values, observation — comes from ``DatabaseAccess``.
public final class Database: DatabaseAccess {
    /// The path the database was opened with.
    public let path: String
    /// The configuration this database was opened with (the environment's may be another
    /// `Database`'s, see ``Configuration``).
    public let configuration: Configuration
    let environment: Environment
    /// What this database shares with every other `Database` of the store in this process.
    let shared: StoreShared
    let archivers = ArchiverRegistry()
    /// The versions declared for collections' values (see ``ValueMigrations``).
    let migrations = MigrationRegistry()
    let writer = WriterThread()
    /// The caches of the database's own `read` and `write`.
    let core: ConnectionCore
    /// Open or closed, and the operations in flight (see ``close()-1m8tz``).
    let lifecycle = DatabaseLifecycle()

    /// Opens the store at `path` as ``init(path:configuration:)`` does, without the features
    /// above the store and the full check of ``OpenVerification/full``: that initializer (in
    /// Opening/, above every feature) adds them.
    init(opening path: String, configuration: Configuration) throws {
        guard configuration.initialMapSize > 0, configuration.maxReaders > 0, configuration.changeLogLimit > 0,
              configuration.changeLogByteLimit.map({ $0 > 0 }) ?? true,
              configuration.changePollInterval > .zero else {
            throw LarderError(.invalidConfiguration, "initialMapSize, maxReaders, changeLogLimit, changeLogByteLimit and changePollInterval must be positive", operation: "open", path: path)
        }
        guard configuration.objectCacheLimit >= 0, configuration.metadataCacheLimit >= 0, configuration.undoLimit >= 0 else {
            throw LarderError(.invalidConfiguration, "cache limits and undoLimit must not be negative", operation: "open", path: path)
        }
        if configuration.verification != .none {
            try Self.verifyBeforeOpening(path: path)
        }
        self.path = path
        self.configuration = configuration
        self.core = ConnectionCore(objectCacheLimit: configuration.objectCacheLimit, metadataCacheLimit: configuration.metadataCacheLimit, keepsIdentityMap: configuration.keepsIdentityMap)
        (self.environment, self.shared) = try EnvironmentRegistry.acquire(path: path, options: configuration.environmentOptions) { txn in
            try StoreShared(configuration: configuration, opening: txn)
        }
        if let onEvent = configuration.onEvent { startEvents(onEvent) }
    }

    deinit {
        releaseStore()
    }

    /// A new connection to this database. Connections are cheap; give each part of a program
    /// that reads on its own one of its own.
    public func newConnection() -> Connection {
        let connection = Connection(database: self)
        lifecycle.add(connection.core)
        return connection
    }

    /// Hits and misses of the caches of the database's own `read` and `write` (each
    /// ``Connection`` counts its own: ``Connection/cacheStatistics``) since it was opened.
    public var cacheStatistics: CacheStatistics { core.cache.currentStatistics }

    /// Uses `archiver` for values of its type in `collection`, instead of the type's own archiver
    /// (``Saveable``) or the default MessagePack archiver (`Codable`). Reads and writes of other
    /// types in that collection are not affected, so an object type and a metadata type can each
    /// have one; registering again for the same type and collection replaces the archiver.
    ///
    /// ```swift
    /// db.register(JSONArchiver<Product>(), forCollection: "products")
    /// ```
    ///
    /// A ``PolymorphicArchiver`` also registers an archiver for each of its concrete types, which
    /// stores the same `[name, value]` form, and makes writes of values of its base type whose
    /// concrete type it does not register throw ``LarderError/Code/unregisteredType``; the
    /// collection then always reads back as the base type. Replacing it removes those archivers.
    public func register<A: Archiver>(_ archiver: A, forCollection collection: String) {
        archivers.register(archiver, forCollection: collection)
    }

    /// Flushes every commit to the disk now (useful with ``Durability/deferred(interval:)``).
    /// - Throws: ``LarderError`` when the operating system reports a failure to write.
    /// - Throws: ``LarderError/Code/databaseClosed`` after ``close()-1m8tz``.
    public func sync() throws {
        try whileOpen("sync") { try environment.sync() }
    }

    // MARK: Transactions (DatabaseAccess)

    /// The database itself (``DatabaseAccess`` conformance).
    public var database: Database { self }

    /// Runs `body` in a read-only transaction: a consistent snapshot of the store as of its start.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin.
    /// - Precondition: the transaction is not used after `body` returns.
    public func read<R>(_ body: (ReadTransaction) throws -> R) throws -> R {
        try performRead(on: core, body)
    }

    /// Runs `body` in a read-write transaction and commits it when `body` returns, durably as
    /// ``Configuration/durability`` says. If `body` throws, or calls
    /// ``ReadWriteTransaction/rollback()``, nothing it did is kept.
    ///
    /// `body` runs again from the start if the store's map has to grow to fit what it writes:
    /// keep side effects outside the store out of it.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin or commit.
    /// - Precondition: no write transaction of this database is open on the calling thread
    ///   (LMDB would deadlock), and the transaction is not used after `body` returns.
    public func write<R>(_ body: (ReadWriteTransaction) throws -> R) throws -> R {
        try performWrite(on: core, body)
    }

    /// Runs `body` in a read-only transaction from asynchronous code. A read transaction never
    /// waits for writers, so this runs on the calling task.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin.
    public func read<R: Sendable>(_ body: @Sendable (ReadTransaction) throws -> R) async throws -> R {
        try performRead(on: core, body)
    }

    /// Runs `body` in a read-write transaction on the database's writer thread and returns once
    /// the commit is durable (as ``Configuration/durability`` says); the calling task is suspended
    /// meanwhile, no thread is blocked.
    ///
    /// Asynchronous writes waiting at the same time are **committed together**: one LMDB
    /// transaction, with each closure in a nested transaction of its own, so a closure that throws
    /// (or calls ``ReadWriteTransaction/rollback()``) undoes only its own work and only its caller
    /// sees the error. One commit is much cheaper than several durable ones. Writes submitted by
    /// one task run in the order it submitted them.
    /// - Throws: what `body` throws, or a ``LarderError`` if the transaction cannot begin or commit.
    public func write<R: Sendable>(_ body: @escaping @Sendable (ReadWriteTransaction) throws -> R) async throws -> R {
        try await enqueueWrite(on: core, body)
    }

    // MARK: Running transactions

    /// Brings `core`'s cache to the snapshot of `lmdb` and publishes any commit of another process
    /// that the snapshot shows first.
    /// `snapshotID` names the LMDB snapshot `lmdb` sees (``LMDBTransaction/snapshotID``): `nil`
    /// when it cannot be known, and the cache then reads the snapshot's commit.
    private func prepare(_ core: ConnectionCore, _ lmdb: LMDBTransaction, snapshotID: Int?) throws -> ReadTransaction.Snapshot {
        let hub = shared.changeHub
        let (commit, usable, emptied) = try core.cache.prepare(
            snapshotID: snapshotID, migrationsGeneration: migrations.generation, readCommit: { try ChangeLog.lastCommit(lmdb) },
            changesets: { try hub.changesets(after: $0, through: $1, in: lmdb) })
        if let emptied, let onEvent = configuration.onEvent {
            switch emptied {
            case .changesUnknown: onEvent(.cachesReset(commit: commit))
            case .flushed(let reason): onEvent(.cachesFlushed(commit: commit, reason: reason))
            }
        }
        hub.catchUp(lmdb, to: commit)
        return ReadTransaction.Snapshot(commit: commit, cacheUsable: usable)
    }

    func performRead<R>(on core: ConnectionCore, _ body: (ReadTransaction) throws -> R) throws -> R {
        try beginUse("read")
        defer { endUse() }
        let pinnedResult = try core.withPinned(environment) { handle in
            try read(LMDBTransaction(handle: handle, environment: environment, attempt: nil), on: core, body)
        }
        if let pinnedResult { return pinnedResult }
        // A snapshot older than one the connection has seen begins again (see `ReadRestart`).
        var attempt = 0
        var deadline: UInt64 = 0  // set at the first restart
        while true {
            let outcome = try environment.read { lmdb -> ReadOutcome<R> in
                var snapshot = try prepare(core, lmdb, snapshotID: lmdb.snapshotID)
                if !snapshot.cacheUsable {
                    if attempt < ReadRestart.attempts || DispatchTime.now().uptimeNanoseconds < deadline { return .again }
                    // The newer commit never came out: this snapshot is the newest there is.
                    core.cache.rewind(toCommit: snapshot.commit)
                    snapshot = try prepare(core, lmdb, snapshotID: lmdb.snapshotID)
                }
                let transaction = ReadTransaction(lmdb, database: self, core: core, snapshot: snapshot)
                defer { transaction.isActive = false }
                return .done(try body(transaction))
            }
            guard case .done(let result) = outcome else {
                if attempt == 0 { deadline = DispatchTime.now().uptimeNanoseconds + ReadRestart.patience }
                attempt += 1
                ReadRestart.wait(attempt)
                continue
            }
            return result
        }
    }

    private func read<R>(_ lmdb: LMDBTransaction, on core: ConnectionCore, _ body: (ReadTransaction) throws -> R) throws -> R {
        let transaction = ReadTransaction(lmdb, database: self, core: core, snapshot: try prepare(core, lmdb, snapshotID: lmdb.snapshotID))
        defer { transaction.isActive = false }
        return try body(transaction)
    }

    /// What a read of the newest commit does when its snapshot is older than one its connection
    /// has already seen: begins again.
    ///
    /// A read transaction sees the newest commit when it begins, so on one connection, whose
    /// reads and writes move its cache forward, a later read normally sees as much as any before
    /// it. Not always: LMDB publishes a commit's id after writing its meta page, and a reader
    /// delayed inside its begin (see ``LMDBTransaction/snapshotID``) can see the pages of a commit
    /// whose id is not published yet; the next read, begun before the writer publishes it, sees
    /// the commit before. Beginning again until the id is out keeps the connection's reads in
    /// order. A writer is between the two steps for a few instructions; one that stays there
    /// (a thread descheduled for long, a commit whose meta page LMDB wrote and then took back
    /// after a failed write) is waited for at most ``patience``; then the connection takes the
    /// snapshot as the newest there is: its cache is emptied and brought back to it.
    enum ReadRestart {
        /// Restarts that are always allowed, then the time after which a read stops restarting.
        static let attempts = 16
        static let patience: UInt64 = 200_000_000

        /// Waits before restart `attempt`: the writer needs the processor more than this read.
        static func wait(_ attempt: Int) {
            if attempt <= attempts { sched_yield() } else { usleep(1_000) }
        }
    }

    /// A read's result, or the word to begin it again (``ReadRestart``).
    enum ReadOutcome<R> {
        case done(R)
        case again
    }

    /// A commit made by this process, to hand to the participants once LMDB has committed it.
    fileprivate struct Committed {
        let changeset: Changeset
        let previous: UInt64
        let snapshotID: Int
        let participants: WriteParticipants
    }

    /// Refuses a write on a database opened read-only.
    func checkWritable(_ operation: String = "write") throws(LarderError) {
        if configuration.readOnly {
            throw LarderError(.readOnly, "the database was opened read-only (Configuration.readOnly)", operation: operation, path: path)
        }
    }

    func performWrite<R>(on core: ConnectionCore, _ body: (ReadWriteTransaction) throws -> R) throws -> R {
        try beginUse("write")
        defer { endUse() }
        try checkWritable()
        let onEvent = configuration.onEvent
        // A plain integer, not an optional instant: nothing to copy or destroy without a handler.
        let start = onEvent == nil ? 0 : DispatchTime.now().uptimeNanoseconds
        var committed: Committed?
        var rolledBack = false
        let result: R
        do {
            result = try environment.write { lmdb in
                committed = nil
                rolledBack = false
                let snapshot = try prepare(core, lmdb, snapshotID: lmdb.id - 1)
                let transaction = ReadWriteTransaction(lmdb, database: self, core: core, snapshot: snapshot,
                                                       state: .init(participants: .standard(for: self, core: core)))
                defer { transaction.isActive = false }
                let result = try body(transaction)
                if transaction.isRolledBack {
                    lmdb.attempt?.rolledBack = true
                    rolledBack = true
                } else if let changeset = try transaction.finish() {
                    committed = Committed(changeset: changeset, previous: snapshot.commit, snapshotID: lmdb.id, participants: transaction.participants)
                }
                return result
            }
        } catch {
            onEvent?(.writeFailed(WriteFailure(code: (error as? LarderError)?.code, isRollback: false, callers: 1)))
            throw error
        }
        let end = onEvent == nil ? 0 : DispatchTime.now().uptimeNanoseconds
        if let committed { publish(committed, cores: [core]) }
        if let onEvent {
            let duration = Duration.nanoseconds(Int64(end &- start))
            if rolledBack {
                onEvent(.writeFailed(WriteFailure(code: nil, isRollback: true, callers: 1)))
            } else {
                onEvent(.committed(commitEvent(committed, callers: 1, duration: duration)))
            }
        }
        return result
    }

    /// What ``DatabaseEvent/committed(_:)`` tells of a commit.
    fileprivate func commitEvent(_ committed: Committed?, callers: Int, duration: Duration) -> CommitEvent {
        let usage = environment.mapUsage()
        let isDurable = if case .full = environment.options.syncMode { true } else { false }
        return CommitEvent(
            commit: committed?.changeset.commit, callers: callers, changedRows: committed?.changeset.entryCount ?? 0,
            duration: duration, isDurable: isDurable, mapSize: usage.mapSize, mapUsed: usage.used)
    }

    /// Tells the participants of a commit that LMDB has made it (they publish the changeset and
    /// bring the writers' caches forward).
    private func publish(_ committed: Committed, cores: [ConnectionCore]) {
        let receipt = CommitReceipt(changeset: committed.changeset, previous: committed.previous, snapshotID: committed.snapshotID, cores: cores)
        for participant in committed.participants.all { participant.didCommit(receipt) }
    }

    func enqueueWrite<R: Sendable>(on core: ConnectionCore, _ body: @escaping @Sendable (ReadWriteTransaction) throws -> R) async throws -> R {
        // Counted in flight until it completes, so that close() lets it commit first.
        try beginUse("write")
        let box = ResultBox<R>()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
            writer.enqueue(WriteRequest(
                database: self, core: core,
                run: { transaction in
                    let value = try body(transaction)
                    box.value.withLock { $0 = value }
                },
                complete: { error in
                    defer { self.endUse() }
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let value = box.value.withLock({ $0 }) {
                        continuation.resume(returning: value)
                    } else {
                        continuation.resume(throwing: LarderError(.lmdb, "a grouped write finished without a result", operation: "write"))
                    }
                }))
        }
    }

    /// Commits `requests` as one LMDB transaction, each in a nested transaction of its own, and
    /// completes each with its own outcome once the commit is durable. Runs on the writer thread.
    func performGroupWrite(_ requests: [WriteRequest]) {
        var outcomes: [(any Error)?] = []
        var committed: Committed?
        var rollbacks = 0
        let start = configuration.onEvent == nil ? 0 : DispatchTime.now().uptimeNanoseconds
        do {
            try checkWritable()
            try environment.write { lmdb in
                outcomes = []
                committed = nil
                rollbacks = 0
                let snapshotID = lmdb.id - 1
                let snapshot = try prepare(core, lmdb, snapshotID: snapshotID)
                var state = ReadWriteTransaction.State(participants: .standard(for: self, core: core))
                for request in requests {
                    let requestSnapshot = request.core === core ? snapshot : try prepare(request.core, lmdb, snapshotID: snapshotID)
                    do {
                        try lmdb.nested { child in
                            let transaction = ReadWriteTransaction(child, database: self, core: request.core, snapshot: requestSnapshot, state: state.forked())
                            defer { transaction.isActive = false }
                            try request.run(transaction)
                            guard !transaction.isRolledBack else {
                                rollbacks += 1
                                return false
                            }
                            try transaction.completeClosure()
                            state = transaction.state
                            return true
                        }
                        outcomes.append(nil)
                    } catch {
                        if lmdb.attempt?.mapFull == true { throw error }  // the whole group runs again, larger
                        outcomes.append(error)
                    }
                }
                let closing = ReadWriteTransaction(lmdb, database: self, core: core, snapshot: snapshot, state: state)
                defer { closing.isActive = false }
                if let changeset = try closing.finish() {
                    committed = Committed(changeset: changeset, previous: snapshot.commit, snapshotID: lmdb.id, participants: closing.participants)
                }
            }
        } catch {
            configuration.onEvent?(.writeFailed(WriteFailure(code: (error as? LarderError)?.code, isRollback: false, callers: requests.count)))
            for request in requests { request.complete(error) }
            return
        }
        let end = configuration.onEvent == nil ? 0 : DispatchTime.now().uptimeNanoseconds
        if let committed { publish(committed, cores: requests.map(\.core)) }
        if let onEvent = configuration.onEvent {
            let duration = Duration.nanoseconds(Int64(end &- start))
            reportGroup(outcomes, rollbacks: rollbacks, committed: committed, duration: duration, to: onEvent)
        }
        for (request, outcome) in zip(requests, outcomes) { request.complete(outcome) }
    }
}

extension Database {
    /// Tells `onEvent` about a group commit: one failure per closure that threw or rolled back,
    /// then the commit of the rest.
    fileprivate func reportGroup(_ outcomes: [(any Error)?], rollbacks: Int, committed: Committed?, duration: Duration,
                                 to onEvent: @Sendable (DatabaseEvent) -> Void) {
        var kept = outcomes.count - rollbacks
        for case let error? in outcomes {
            kept -= 1
            onEvent(.writeFailed(WriteFailure(code: (error as? LarderError)?.code, isRollback: false, callers: 1)))
        }
        for _ in 0..<rollbacks { onEvent(.writeFailed(WriteFailure(code: nil, isRollback: true, callers: 1))) }
        if kept > 0 { onEvent(.committed(commitEvent(committed, callers: kept, duration: duration))) }
    }
}

/// Carries a grouped write's result from the writer thread to its caller.
private final class ResultBox<R: Sendable>: Sendable {
    let value = Mutex<R?>(nil)
}
