import CLMDB
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One open LMDB environment: the handle, its named databases, the read-transaction pool, the
/// resize gate and the map-growth policy. Shared by every `Database` of the process that opens
/// the same file (see ``EnvironmentRegistry``); nothing outside the LMDB layer sees `MDB_env`.
final class Environment: @unchecked Sendable {  // the handle is used under LMDB's threading rules, kept by the gate and ThreadState
    /// Handles of the named databases of DESIGN.md's layout, opened once at start.
    struct Databases {
        var objects: MDB_dbi = 0
        var metadata: MDB_dbi = 0
        var collections: MDB_dbi = 0
        var larder: MDB_dbi = 0
        var log: MDB_dbi = 0
    }

    /// The newest store format this version reads and writes.
    static let formatVersion: UInt32 = 2
    /// The format of a store without checksummed values: what a new store records.
    static let plainFormatVersion: UInt32 = 1
    /// The format of a store with checksummed values (``Database/Configuration/checksumsValues``),
    /// recorded by the write that stores the first one.
    static let checksummedFormatVersion: UInt32 = 2
    static let formatVersionKey = "format-version"

    let handle: OpaquePointer
    let path: String
    let dataFile: String
    let configuration: Database.Configuration
    let identity: FileIdentity
    let maxKeySize: Int
    private(set) var databases = Databases()

    let gate = TransactionGate()
    /// Publishes this process's commits, and those it learns of from other processes.
    let changeHub = ChangeHub()
    /// The extensions registered on this store in this process.
    let extensions = ExtensionRegistry()
    private let poolLock = ConditionLock()
    private var pool: [OpaquePointer] = []
    private static let poolLimit = 64
    private var syncTimer: DispatchSourceTimer?
    /// Guards `closed`, so that a timer firing while the environment closes never syncs a
    /// closed handle (cancelling a dispatch timer does not wait for a running handler).
    private let closeLock = ConditionLock()
    private var closed = false
    /// Counts map resizes done by this process (for tests and `info`).
    private(set) var resizeCount = 0

    private init(handle: OpaquePointer, path: String, dataFile: String, identity: FileIdentity,
                 configuration: Database.Configuration) {
        self.handle = handle
        self.path = path
        self.dataFile = dataFile
        self.identity = identity
        self.configuration = configuration
        self.maxKeySize = Int(mdb_env_get_maxkeysize(handle))
    }

    // MARK: Opening and closing

    /// Opens the environment at `path`; the registry calls this under its lock.
    static func open(path: String, layout: FileLayout, configuration: Database.Configuration) throws -> Environment {
        var env: OpaquePointer?
        try LMDBResult.check(mdb_env_create(&env), "mdb_env_create", path: path)
        guard let env else { throw LarderError(.lmdb, "mdb_env_create returned no handle", path: path) }
        var flags = UInt32(MDB_NOTLS)
        if layout.singleFile { flags |= UInt32(MDB_NOSUBDIR) }
        switch configuration.durability {
        case .full: break
        case .noMetaSync: flags |= UInt32(MDB_NOMETASYNC)
        case .deferred: flags |= UInt32(MDB_NOSYNC)
        }
        let lockFile = layout.singleFile ? path + "-lock" : path + "/lock.mdb"
        let lockExisted = FileIdentity.exists(lockFile)
        let dataExisted = FileIdentity.exists(layout.dataFile)
        // A failed open must leave what was there as it was: remove the files LMDB created.
        func removeCreatedFiles() {
            if !lockExisted { unlink(lockFile) }
            if !dataExisted { unlink(layout.dataFile) }
        }
        do {
            try LMDBResult.check(mdb_env_set_maxreaders(env, UInt32(configuration.maxReaders)), "mdb_env_set_maxreaders", path: path)
            try LMDBResult.check(mdb_env_set_maxdbs(env, 256), "mdb_env_set_maxdbs", path: path)
            try LMDBResult.check(mdb_env_set_mapsize(env, configuration.initialMapSize), "mdb_env_set_mapsize", path: path)
            try LMDBResult.check(mdb_env_open(env, path, flags, mode_t(configuration.fileMode)), "open", path: path)
        } catch {
            mdb_env_close(env)
            removeCreatedFiles()
            if error.lmdbCode == ENOTDIR || error.lmdbCode == EISDIR {
                throw LarderError(.notAStore, "the path is not a Larder store", operation: "open", path: path, lmdbCode: error.lmdbCode)
            }
            throw error
        }
        var dead: Int32 = 0
        mdb_reader_check(env, &dead)
        guard let identity = FileIdentity(path: layout.dataFile) else {
            mdb_env_close(env)
            throw LarderError(.io, "the data file vanished while it was opened", operation: "open", path: path)
        }
        let environment = Environment(handle: env, path: path, dataFile: layout.dataFile, identity: identity, configuration: configuration)
        do {
            try environment.checkDataFileLength()
            try environment.openDatabases()
        } catch {
            environment.closeHandle()
            removeCreatedFiles()
            throw error
        }
        environment.startSyncTimer()
        return environment
    }

    /// Refuses a data file shorter than the pages its meta page says it has (a truncated copy):
    /// LMDB maps the file, and reading a page past its end would stop the process (SIGBUS).
    private func checkDataFileLength() throws {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        var pages = MDB_stat()
        mdb_env_stat(handle, &pages)
        let needed = (info.me_last_pgno + 1) * Int(pages.ms_psize)
        var fileStatus = stat()
        guard stat(dataFile, &fileStatus) == 0 else { return }
        if Int(fileStatus.st_size) < needed {
            throw LarderError(
                .corrupted,
                "the data file is \(fileStatus.st_size) bytes but its pages need \(needed): it was truncated (restore it from a backup)",
                operation: "open", path: path)
        }
    }

    /// Opens (creating on a new store) the named databases and checks the format version.
    private func openDatabases() throws {
        try write { txn in
            var dbi = MDB_dbi()
            let rc = mdb_dbi_open(txn.handle, "larder", 0, &dbi)
            if rc == MDB_NOTFOUND {
                var main = MDB_dbi()
                try LMDBResult.check(mdb_dbi_open(txn.handle, nil, 0, &main), "open", path: path)
                var stat = MDB_stat()
                try LMDBResult.check(mdb_stat(txn.handle, main, &stat), "open", path: path)
                if stat.ms_entries > 0 {
                    throw LarderError(.notAStore, "the path holds an LMDB database that is not a Larder store", operation: "open", path: path)
                }
                databases.larder = try txn.openDatabase("larder", create: true)
                var version = Environment.plainFormatVersion.bigEndian
                try withUnsafeBytes(of: &version) { bytes in
                    try txn.put(databases.larder, key: Environment.formatVersionKey, value: bytes)
                }
            } else {
                try LMDBResult.check(rc, "open", path: path)
                databases.larder = dbi
                guard let stored = try txn.get(dbi, key: Environment.formatVersionKey), stored.count == 4 else {
                    throw LarderError(.notAStore, "the store has no valid format version", operation: "open", path: path)
                }
                let version = stored.loadUnaligned(as: UInt32.self).bigEndian
                if version > Environment.formatVersion {
                    throw LarderError(
                        .newerFormatVersion,
                        "the store has format version \(version); this Larder reads versions up to \(Environment.formatVersion): upgrade Larder",
                        operation: "open", path: path)
                }
            }
            databases.objects = try txn.openDatabase("objects", create: true)
            databases.metadata = try txn.openDatabase("metadata", create: true)
            databases.collections = try txn.openDatabase("collections", create: true)
            databases.log = try txn.openDatabase("log", create: true)
            changeHub.start(at: try ChangeLog.lastCommit(txn))
        }
    }

    private func startSyncTimer() {
        guard case .deferred(let interval) = configuration.durability else { return }
        let nanoseconds = max(1_000_000, interval.components.seconds * 1_000_000_000 + interval.components.attoseconds / 1_000_000_000)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)), repeating: .nanoseconds(Int(nanoseconds)))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            self.closeLock.withLock {
                if !self.closed { mdb_env_sync(self.handle, 1) }
            }
        }
        timer.resume()
        syncTimer = timer
    }

    /// Flushes every commit to the disk now.
    func sync() throws(LarderError) {
        try LMDBResult.check(mdb_env_sync(handle, 1), "sync", path: path)
    }

    /// Runs `body` unless the environment has closed, keeping it open meanwhile (for timers,
    /// which may fire while the environment closes).
    func whileOpen(_ body: () -> Void) {
        closeLock.withLock {
            if !closed { body() }
        }
    }

    /// The id of the newest commit in the file, by any process; cheap (reads the meta page).
    func lastTransactionID() -> Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        return info.me_last_txnid
    }

    /// Closes the handle; the registry calls this when the last `Database` on the file goes away.
    func closeHandle() {
        changeHub.stopPolling()
        if let syncTimer {
            syncTimer.cancel()
            mdb_env_sync(handle, 1)
        }
        poolLock.withLock {
            for txn in pool { mdb_txn_abort(txn) }
            pool.removeAll()
        }
        closeLock.withLock {
            closed = true
            mdb_env_close(handle)
        }
    }

    // MARK: Read transactions

    /// Begins (or renews a pooled) read-only transaction. Pair with ``endRead(_:)``.
    func beginRead() throws(LarderError) -> OpaquePointer {
        let state = ThreadState.current
        var clearedReaders = false
        while true {
            gate.enter(reentrant: state.liveTransactions > 0)
            var txn: OpaquePointer? = poolLock.withLock { pool.popLast() }
            var rc: Int32
            if let pooled = txn {
                rc = mdb_txn_renew(pooled)
                if rc != MDB_SUCCESS { mdb_txn_abort(pooled); txn = nil }
            } else {
                rc = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &txn)
            }
            if rc == MDB_SUCCESS, let txn {
                state.liveTransactions += 1
                return txn
            }
            gate.leave()
            switch rc {
            case MDB_MAP_RESIZED:
                try adoptMapSize()
            case MDB_READERS_FULL where !clearedReaders:
                var dead: Int32 = 0
                mdb_reader_check(handle, &dead)
                clearedReaders = true
            default:
                throw LMDBResult.error(rc, operation: "beginRead", path: path)
            }
        }
    }

    /// Ends a read transaction from ``beginRead()``, keeping its handle for reuse.
    func endRead(_ txn: OpaquePointer) {
        mdb_txn_reset(txn)
        let kept = poolLock.withLock {
            guard pool.count < Environment.poolLimit else { return false }
            pool.append(txn)
            return true
        }
        if !kept { mdb_txn_abort(txn) }
        ThreadState.current.liveTransactions -= 1
        gate.leave()
    }

    // MARK: Pinned read transactions

    /// Begins a read transaction that stays open between uses (a pinned snapshot). It holds no
    /// place in the gate while idle: wrap each use in ``usePinned(_:_:)``. A resize may remap the
    /// file while it is idle; LMDB reads pages through the environment's current map, and an idle
    /// transaction holds no pointer into the old one.
    func beginPinnedRead() throws(LarderError) -> OpaquePointer {
        let txn = try beginRead()
        ThreadState.current.liveTransactions -= 1
        gate.leave()
        return txn
    }

    /// Runs `body` with a pinned transaction, as a live transaction of this thread.
    func usePinned<R>(_ txn: OpaquePointer, _ body: () throws -> R) rethrows -> R {
        let state = ThreadState.current
        gate.enter(reentrant: state.liveTransactions > 0)
        state.liveTransactions += 1
        defer {
            state.liveTransactions -= 1
            gate.leave()
        }
        return try body()
    }

    /// Ends a pinned transaction from ``beginPinnedRead()``.
    func endPinnedRead(_ txn: OpaquePointer) {
        gate.enter(reentrant: ThreadState.current.liveTransactions > 0)
        ThreadState.current.liveTransactions += 1
        endRead(txn)
    }

    // MARK: Write transactions

    /// Runs `body` in a write transaction and commits it, unless `body` throws or asks for a
    /// rollback. When the map fills, the attempt is aborted, the map grows and `body` runs again.
    ///
    /// - Precondition: the current thread has no write transaction open on this environment.
    func write<R>(_ body: (LMDBTransaction) throws -> R) throws -> R {
        let state = ThreadState.current
        let id = ObjectIdentifier(self)
        precondition(
            !state.writing.contains(id),
            "Larder misuse: a write transaction was started inside another write transaction on the same thread. LMDB allows one writer per thread; do the work in the outer transaction."
        )
        var attempts = 0
        while true {
            attempts += 1
            try growIfNearlyFull()
            gate.enter(reentrant: state.liveTransactions > 0)
            var txn: OpaquePointer?
            let rc = mdb_txn_begin(handle, nil, 0, &txn)
            guard rc == MDB_SUCCESS, let txn else {
                gate.leave()
                if rc == MDB_MAP_RESIZED { try adoptMapSize(); continue }
                throw LMDBResult.error(rc, operation: "beginWrite", path: path)
            }
            state.liveTransactions += 1
            state.writing.append(id)
            let attempt = LMDBTransaction.Attempt()
            let result = Result { try body(LMDBTransaction(handle: txn, environment: self, attempt: attempt)) }
            var commitCode: Int32 = MDB_SUCCESS
            if attempt.mapFull || attempt.rolledBack {
                mdb_txn_abort(txn)
            } else if case .failure = result {
                mdb_txn_abort(txn)
            } else {
                commitCode = mdb_txn_commit(txn)
            }
            state.writing.removeLast()
            state.liveTransactions -= 1
            gate.leave()
            if attempt.mapFull || commitCode == MDB_MAP_FULL {
                guard attempts < 48 else {
                    throw LarderError(.mapFull, "the map could not be made large enough for this transaction", operation: "write", path: path)
                }
                try grow()
                continue
            }
            if commitCode != MDB_SUCCESS { throw commitError(commitCode) }
            return try result.get()
        }
    }

    /// The error of a failed commit. LMDB reports a write cut short by a full disk as `EIO`
    /// (a short `pwrite`), so an `EIO` on a file system with next to no space left is reported
    /// as the full disk it is.
    private func commitError(_ rc: Int32) -> LarderError {
        if rc == EIO || rc == ENOSPC {
            var space = statvfs()
            if statvfs(dataFile, &space) == 0, UInt64(space.f_bavail) * UInt64(space.f_frsize) < 1 << 20 {
                return LarderError(
                    .diskFull,
                    "the disk is full: the commit could not be written, and nothing of the transaction was kept; free space on the file system, then write again",
                    operation: "commit", path: path, lmdbCode: rc)
            }
        }
        return LMDBResult.error(rc, operation: "commit", path: path)
    }

    // MARK: Map size

    /// The map size this process uses now and the bytes in use.
    func mapUsage() -> (mapSize: Int, used: Int, pageSize: Int) {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        var stat = MDB_stat()
        mdb_env_stat(handle, &stat)
        return (info.me_mapsize, (info.me_last_pgno + 1) * Int(stat.ms_psize), Int(stat.ms_psize))
    }

    /// Grows ahead of need, so that most writes never hit `MDB_MAP_FULL` at all.
    private func growIfNearlyFull() throws(LarderError) {
        // A thread that holds a transaction cannot wait for a resize; only a real MDB_MAP_FULL
        // makes that an error.
        guard ThreadState.current.liveTransactions == 0 else { return }
        let usage = mapUsage()
        if usage.used > usage.mapSize / 4 * 3 { try grow() }
    }

    /// Doubles the map (at least), with no transaction of this process live.
    func grow() throws(LarderError) {
        if ThreadState.current.liveTransactions > 0 {
            throw LarderError(
                .mapFull,
                "the store's map must grow, but this thread holds another transaction open, so the resize cannot wait for it; end the outer transaction before writing",
                operation: "grow", path: path)
        }
        let before = mapUsage().mapSize
        var failure: LarderError?
        _ = gate.exclusively {
            drainPool()
            let now = mapUsage()
            guard now.mapSize <= before else { return }  // another thread grew it meanwhile
            let target = (now.mapSize * 2 + now.pageSize - 1) / now.pageSize * now.pageSize
            let rc = mdb_env_set_mapsize(handle, target)
            if rc != MDB_SUCCESS { failure = LMDBResult.error(rc, operation: "grow", path: path) }
            resizeCount += 1
        }
        if let failure { throw failure }
    }

    /// Adopts the larger map another process set (`MDB_MAP_RESIZED`).
    private func adoptMapSize() throws(LarderError) {
        if ThreadState.current.liveTransactions > 0 {
            throw LarderError(
                .mapResized,
                "another process grew the store's map, and this thread holds a transaction open on the old map, so the new size cannot be adopted until it ends; end the outer transaction and retry",
                operation: "adoptMapSize", path: path)
        }
        var failure: LarderError?
        _ = gate.exclusively {
            drainPool()
            let rc = mdb_env_set_mapsize(handle, 0)
            if rc != MDB_SUCCESS { failure = LMDBResult.error(rc, operation: "adoptMapSize", path: path) }
        }
        if let failure { throw failure }
    }

    private func drainPool() {
        poolLock.withLock {
            for txn in pool { mdb_txn_abort(txn) }
            pool.removeAll()
        }
    }

    // MARK: Readers

    /// The reader slots in use, by every process.
    func readerEntries() -> [ReaderTable.Entry] {
        ReaderTable.entries(of: handle)
    }

    /// Clears reader slots left by processes that died; returns how many were cleared.
    @discardableResult
    func clearStaleReaders() -> Int {
        var dead: Int32 = 0
        mdb_reader_check(handle, &dead)
        return Int(dead)
    }
}
