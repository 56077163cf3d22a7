extension Database {
    /// Closes this database: it refuses every later call, and so does every ``Connection`` made
    /// from it (``LarderError/Code/databaseClosed``).
    ///
    /// Closing lets what was accepted before it finish first: asynchronous writes already queued
    /// (including those waiting for a group commit) are committed and their callers answered,
    /// and reads, writes and pinned-snapshot reads running on other threads end normally. Then
    /// the connections' pinned snapshots end and this database gives back its use of the store;
    /// the LMDB environment closes when no other `Database` of the process has the store open
    /// (commits not yet flushed, under ``Durability/noMetaSync`` or
    /// ``Durability/deferred(interval:)``, are flushed first). After `close()`
    /// returns, opening the path again opens the store afresh.
    ///
    /// ```swift
    /// try await db.write { try $0.setObject(order, forKey: order.id, inCollection: "orders") }
    /// db.close()
    /// ```
    ///
    /// Closing again does nothing (and waits as the first did). Without `close()`, the store
    /// closes when the last reference to the `Database` is released.
    ///
    /// Called from inside a transaction of the calling thread, or from a closure of an
    /// asynchronous write, it cannot wait for that very transaction: it refuses new calls at
    /// once and returns, and the store is released when the transaction ends.
    ///
    /// - Note: This blocks the calling thread while in-flight work finishes; from asynchronous
    ///   code call the `async` variant, which suspends instead.
    public func close() {
        guard beginClosing() else { return }
        lifecycle.waitUntilReleased()
    }

    /// Closes this database as ``close()-1m8tz`` does, suspending the calling task (instead of blocking
    /// its thread) while queued writes and in-flight reads finish.
    public func close() async {
        guard beginClosing() else { return }
        await lifecycle.released()
    }

    /// Whether ``close()-1m8tz`` was called.
    public var isClosed: Bool { lifecycle.isClosed }

    /// Marks the database closed, releasing the store now if nothing is in flight; `false` when
    /// the caller must not wait for the release (it holds a transaction the release waits for).
    private func beginClosing() -> Bool {
        if lifecycle.markClosed() { releaseStore() }
        return ThreadState.current.liveTransactions == 0 && !writer.isCurrentThread
    }

    /// Counts an operation in, or throws ``LarderError/Code/databaseClosed``. Pair with
    /// ``endUse()``.
    @inline(__always)
    func beginUse(_ operation: String) throws(LarderError) {
        if !lifecycle.enter() {
            endUse()
            throw LarderError(.databaseClosed, "the database was closed; open a new Database on the path to go on", operation: operation, path: path)
        }
    }

    /// Counts an operation out; the last one after ``close()-1m8tz`` releases the store.
    @inline(__always)
    func endUse() {
        if lifecycle.leave() { releaseStore() }
    }

    /// Runs `body` as one operation of the open database.
    @inline(__always)
    func whileOpen<R>(_ operation: String, _ body: () throws -> R) throws -> R {
        try beginUse(operation)
        defer { endUse() }
        return try body()
    }

    /// Gives back this database's use of the store, once: the writer thread stops, the
    /// connections' pinned snapshots end, and the registry closes the environment if no other
    /// `Database` uses it. Runs when nothing of this database is in flight.
    func releaseStore() {
        guard lifecycle.claimRelease() else { return }
        writer.stop()
        // Commits not yet flushed (no-meta-sync, deferred) reach the disk before close() returns,
        // even when another Database keeps the environment open. Nothing is left to report a
        // failure to: sync() before close() reports one.
        if case .full = environment.options.syncMode {} else if !environment.isReadOnly { try? environment.sync() }
        for core in lifecycle.liveCores() { core.unpin(environment) }
        if configuration.onEvent != nil { environment.removeListener(ObjectIdentifier(self)) }
        EnvironmentRegistry.release(environment)
        configuration.onEvent?(.closed(path: path))
        lifecycle.finishRelease()
    }
}

extension Database {
    /// Starts telling `onEvent` about this database: the store's own events (map growth, stale
    /// readers), then the opening.
    func startEvents(_ onEvent: @escaping @Sendable (DatabaseEvent) -> Void) {
        environment.addListener(ObjectIdentifier(self)) { event in
            switch event {
            case .mapGrew(let old, let new): onEvent(.mapGrew(oldSize: old, newSize: new))
            case .staleReadersCleared(let count): onEvent(.staleReadersCleared(count: count))
            }
        }
        let formatVersion = try? environment.read { lmdb in
            try lmdb.get(lmdb.databases.larder, key: StoreFormat.versionKey)
                .flatMap { $0.count == 4 ? UInt32(bigEndian: $0.loadUnaligned(as: UInt32.self)) : nil }
        }
        onEvent(.opened(StoreOpening(
            path: path, formatVersion: formatVersion ?? nil, isReadOnly: environment.isReadOnly,
            mapSize: environment.mapUsage().mapSize)))
    }
}
