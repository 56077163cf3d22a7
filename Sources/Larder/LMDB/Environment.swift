internal import CLMDB
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One open LMDB environment: the handle, its named databases, the read-transaction pool, the
/// resize gate and the map-growth policy. Shared by every `Database` of the process that opens
/// the same file (see ``EnvironmentRegistry``); nothing outside the LMDB layer sees `MDB_env`.
final class Environment: @unchecked Sendable {  // the handle is used under LMDB's threading rules, kept by the gate and ThreadState
    /// Handles of the named databases of DESIGN.md's layout, opened once at start.
    struct Databases {
        var objects = DatabaseHandle(raw: 0)
        var metadata = DatabaseHandle(raw: 0)
        var collections = DatabaseHandle(raw: 0)
        var larder = DatabaseHandle(raw: 0)
        var log = DatabaseHandle(raw: 0)
    }


    let handle: OpaquePointer
    /// The path the store was opened by, for messages.
    let path: String
    /// Where the store's files really are.
    let location: StoreLocation
    var dataFile: String { location.dataFile }
    var isSingleFile: Bool { location.isSingleFile }
    let options: EnvironmentOptions
    let identity: FileIdentity
    let maxKeySize: Int
    /// The store's page size (from its meta page; fixed for the life of the file).
    let pageSize: Int
    /// Whether LMDB opened the store read-only (`MDB_RDONLY`): no write transaction can begin.
    var isReadOnly: Bool { options.readOnly }
    /// Whether the store was opened without its lock file (read-only media, or a lock file this
    /// process may not write): no reader slot guards this process's snapshots.
    let isUnlocked: Bool
    private(set) var databases = Databases()
    /// The oldest commit (by LMDB transaction id) from which on every snapshot keeps the
    /// collection counts and the last commit number in the main database (store format 6, see
    /// ``LMDBTransaction/keepsRecordsInMainDatabase``): 0 for a store opened at format 6 or
    /// later, `UInt64.max` while no snapshot of this process has shown it. Only falls.
    let recordsInMainDatabaseSince = Atomic<UInt64>(.max)

    let gate = TransactionGate()
    /// The mapped range the data file backs, for the bounds checks of ``LMDBTransaction``.
    let mapBound: MapBound
    /// Reset read transactions, kept for renewal, by address: a reset transaction belongs to no
    /// thread (`MDB_NOTLS`), and an address is `Sendable`.
    private let pool = Mutex<[UInt]>([])
    private static let poolLimit = 64
    private var syncTimer: SyncTimer?
    /// Whether the handle has closed; held through ``whileOpen(_:)``, so that a timer firing
    /// while the environment closes never syncs a closed handle (cancelling a dispatch timer does
    /// not wait for a running handler).
    private let closed = Mutex(false)
    /// Counts map resizes done by this process (for tests and `info`).
    private(set) var resizeCount = 0
    /// The lock file, kept open for the handle's life (see ``LockFileReservation``).
    private var lockFile = LockFileReservation()
    /// This process's claim on the data file (see ``StoreClaim``).
    private var claim: StoreClaim?
    /// Commits since stale reader slots were last cleared (counted inside write transactions,
    /// which LMDB's write lock makes one thread at a time).
    private var commitsSinceReaderCheck = 0
    /// How many commits pass between clearings of reader slots left by dead processes: a dead
    /// reader pins its snapshot, and a long-running writer's file would grow without bound.
    static let readerCheckInterval = 64

    /// What the environment tells the layers above that listen (``addListener(_:_:)``).
    enum Event: Sendable {
        case mapGrew(oldSize: Int, newSize: Int)
        case staleReadersCleared(count: Int)
    }

    /// Who hears the environment's events, by the listener's identity. Empty unless a `Database`
    /// asked for events; the events are rare, so looking here costs nothing that matters.
    private let listeners = Mutex<[ObjectIdentifier: @Sendable (Event) -> Void]>([:])

    /// Tells `listener` every later event of this environment, until ``removeListener(_:)``.
    func addListener(_ id: ObjectIdentifier, _ listener: @escaping @Sendable (Event) -> Void) {
        listeners.withLock { $0[id] = listener }
    }

    func removeListener(_ id: ObjectIdentifier) {
        _ = listeners.withLock { $0.removeValue(forKey: id) }
    }

    /// Tells the listeners `event`, outside every lock of the environment.
    private func tell(_ event: Event) {
        let current = listeners.withLock { Array($0.values) }
        for listener in current { listener(event) }
    }

    private init(handle: OpaquePointer, path: String, location: StoreLocation, identity: FileIdentity,
                 options: EnvironmentOptions, isUnlocked: Bool) {
        self.handle = handle
        self.path = path
        self.location = location
        self.identity = identity
        self.options = options
        self.isUnlocked = isUnlocked
        self.maxKeySize = Int(mdb_env_get_maxkeysize(handle))
        var stat = MDB_stat()
        mdb_env_stat(handle, &stat)
        self.pageSize = Int(stat.ms_psize)
        self.mapBound = MapBound(handle: handle, identity: identity, path: path)
    }

    // MARK: Opening and closing

    /// Opens the existing store at `location`; the registry calls this under its lock, after
    /// ``StoreCreation`` has made the store if it had to. `atOpen` runs once, in the transaction
    /// that opens the named databases, for the layer above to read what it needs at open; when
    /// it throws, the open fails and leaves what was there as it was.
    static func open(path: String, location: StoreLocation, options: EnvironmentOptions,
                     atOpen: (LMDBTransaction) throws -> Void) throws -> Environment {
        let lockExisted = FileIdentity.exists(location.lockFile)
        // A failed open must leave what was there as it was: remove the lock file LMDB created.
        func removeCreatedLockFile() {
            if !lockExisted { unlink(location.lockFile) }
        }
        var unlocked = false
        var env: OpaquePointer
        var lockFile: LockFileReservation
        do {
            lockFile = try LockFileReservation.reserve(location.lockFile, readers: options.maxReaders, fileMode: options.fileMode, path: path)
        } catch {
            removeCreatedLockFile()
            throw error
        }
        do {
            do {
                env = try openHandle(location: location, options: options, unlocked: false, path: path)
            } catch let error as LarderError where options.readOnly && (error.lmdbCode == EACCES || error.lmdbCode == EROFS) {
                // The lock file cannot be written here (0400 files, a read-only mount): read
                // without it, as documented for read-only opens.
                env = try openHandle(location: location, options: options, unlocked: true, path: path)
                unlocked = true
            }
        } catch {
            lockFile.close()
            removeCreatedLockFile()
            throw error
        }
        if !unlocked {
            do {
                try lockFile.allocateAll(path: path)
            } catch {
                mdb_env_close(env)
                lockFile.close()
                removeCreatedLockFile()
                throw error
            }
            var dead: Int32 = 0
            mdb_reader_check(env, &dead)
        }
        guard let identity = FileIdentity(path: location.dataFile) else {
            mdb_env_close(env)
            lockFile.close()
            throw LarderError(.io, "the data file vanished while it was opened", operation: "open", path: path)
        }
        let environment = Environment(handle: env, path: path, location: location, identity: identity, options: options, isUnlocked: unlocked)
        environment.lockFile = lockFile
        do {
            if !unlocked {
                let claim = try StoreClaim.take(dataFile: location.dataFile, lockFile: location.lockFile, path: path)
                environment.claim = claim
                // The claim is taken by path after LMDB opened the file: a file renamed over the
                // store in between (`larder compact` swaps in its copy) would leave this process
                // on the replaced file, its commits lost. The claim then sits on the new file.
                var mapped: Int32 = -1
                if mdb_env_get_fd(env, &mapped) == 0, let identity = claim.identity, FileIdentity(descriptor: mapped) != identity {
                    throw LarderError(.lockConflict, "the data file was replaced while the store was being opened (larder compact swaps in a compacted copy); open the store again", operation: "open", path: path)
                }
            }
            try environment.checkDataFileLength()
            try environment.openDatabases(atOpen)
        } catch {
            environment.closeHandle()
            removeCreatedLockFile()
            throw error
        }
        environment.startSyncTimer()
        return environment
    }

    /// Creates and opens an LMDB handle on `location`.
    private static func openHandle(location: StoreLocation, options: EnvironmentOptions, unlocked: Bool, path: String) throws -> OpaquePointer {
        // LMDB takes the page size from the newer meta page without checking it: a damaged one
        // sends its first read outside the map (SIGBUS). Checked here, before LMDB reads.
        if let damage = PageVerifier.damagedMetaPageError(dataFile: location.dataFile, path: path) { throw damage }
        var env: OpaquePointer?
        try LMDBResult.check(mdb_env_create(&env), "mdb_env_create", path: path)
        guard let env else { throw LarderError(.lmdb, "mdb_env_create returned no handle", path: path) }
        var flags = UInt32(MDB_NOTLS)
        if location.isSingleFile { flags |= UInt32(MDB_NOSUBDIR) }
        if options.readOnly { flags |= UInt32(MDB_RDONLY) }
        if unlocked { flags |= UInt32(MDB_NOLOCK) }
        switch options.syncMode {
        case .full: break
        // Never MDB_NOSYNC: it lets a meta page reach the disk before the pages it points to (see
        // Durability.md). `.deferred` is MDB_NOMETASYNC plus a timer that flushes the last meta page.
        case .noMetaSync, .deferred: flags |= UInt32(MDB_NOMETASYNC)
        }
        LMDBAssertion.install(on: env)
        do {
            try LMDBResult.check(mdb_env_set_maxreaders(env, UInt32(options.maxReaders)), "mdb_env_set_maxreaders", path: path)
            try LMDBResult.check(mdb_env_set_maxdbs(env, 256), "mdb_env_set_maxdbs", path: path)
            try LMDBResult.check(mdb_env_set_mapsize(env, options.mapSize), "mdb_env_set_mapsize", path: path)
            try LMDBResult.check(mdb_env_open(env, location.lmdbPath, flags, mode_t(options.fileMode)), "open", path: path)
        } catch {
            mdb_env_close(env)
            if error.lmdbCode == ENOTDIR || error.lmdbCode == EISDIR {
                throw LarderError(.notAStore, "the path is not a Larder store", operation: "open", path: path, lmdbCode: error.lmdbCode)
            }
            // MDB_INVALID on a file with one intact meta page is damage, not a foreign file.
            if error.code == .notAStore, let damage = PageVerifier.damagedMetaError(dataFile: location.dataFile, path: path) { throw damage }
            throw error
        }
        return env
    }

    /// Refuses a data file shorter than the pages its meta page says it has (a truncated copy):
    /// LMDB maps the file, and reading a page past its end would stop the process (SIGBUS). A
    /// sound file may be shorter too, when the pages past its end are all free (a transaction
    /// took them and freed them before it committed, so they were never written): those LMDB
    /// never reads before writing them, and the free list, read from the file, says so.
    private func checkDataFileLength() throws {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        var pages = MDB_stat()
        mdb_env_stat(handle, &pages)
        let needed = (info.me_last_pgno + 1) * Int(pages.ms_psize)
        var fileStatus = stat()
        guard stat(dataFile, &fileStatus) == 0 else { return }
        if Int(fileStatus.st_size) < needed && !PageVerifier.pagesInUseAreInFile(dataFile: dataFile) {
            throw LarderError(
                .corrupted,
                "the data file is \(fileStatus.st_size) bytes but its pages need \(needed): it was truncated (restore it from a backup)",
                operation: "open", path: path)
        }
    }

    /// Opens the named databases and checks the format version, in a read transaction: an open
    /// never waits for another process's writer, and works on a store it may not write. Only a
    /// store that lacks a database (an empty LMDB environment, made by another program) takes
    /// a write transaction, to add what is missing.
    private func openDatabases(_ atOpen: (LMDBTransaction) throws -> Void) throws {
        var txn: OpaquePointer?
        var rc = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &txn)
        if rc == MDB_MAP_RESIZED {
            try LMDBResult.check(mdb_env_set_mapsize(handle, 0), "open", path: path)
            rc = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &txn)
        }
        try LMDBResult.check(rc, "open", path: path)
        guard let txn else { throw LarderError(.lmdb, "mdb_txn_begin returned no handle", path: path) }
        var complete = false
        do {
            complete = try openExistingDatabases(LMDBTransaction(handle: txn, environment: self, attempt: nil), atOpen)
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
        // Committing a read transaction keeps the handles it opened for every later transaction.
        try LMDBResult.check(mdb_txn_commit(txn), "open", path: path)
        if complete { return }
        if isReadOnly {
            throw LarderError(.notAStore, "the path holds an empty LMDB environment, not a Larder store, and a read-only open cannot make it one", operation: "open", path: path)
        }
        try write { txn in
            try createMissingDatabases(txn, atOpen)
        }
    }

    /// Opens the databases of a complete store; returns `false` when some are missing.
    private func openExistingDatabases(_ txn: LMDBTransaction, _ atOpen: (LMDBTransaction) throws -> Void) throws -> Bool {
        guard let larder = try txn.openExistingDatabase("larder") else {
            let main = try txn.openExistingDatabase(nil)
            if let main, try txn.count(main) > 0 {
                throw LarderError(.notAStore, "the path holds an LMDB database that is not a Larder store", operation: "open", path: path)
            }
            return false
        }
        databases.larder = larder
        let version = try checkFormatVersion(txn)
        let keepsRecordsInMain = version >= StoreFormat.recordsInMainDatabase
        if keepsRecordsInMain { recordsInMainDatabaseSince.store(0, ordering: .relaxed) }
        for name in ["objects", "metadata", "collections", "log"] where name != "collections" || !keepsRecordsInMain {
            guard let dbi = try txn.openExistingDatabase(name) else { return false }
            switch name {
            case "objects": databases.objects = dbi
            case "metadata": databases.metadata = dbi
            case "collections": databases.collections = dbi
            default: databases.log = dbi
            }
        }
        try atOpen(txn)
        return true
    }

    /// Raises the store's recorded format version to `version` unless it is there already.
    /// - Complexity: one lookup of a 4-byte value; a write when it raises it.
    static func raiseFormatVersion(to version: UInt32, in lmdb: LMDBTransaction) throws {
        let key = lmdb.environment.options.format.key
        if let stored = try lmdb.get(lmdb.databases.larder, key: key), stored.count == 4,
           UInt32(bigEndian: stored.loadUnaligned(as: UInt32.self)) >= version {
            return
        }
        try withUnsafeBytes(of: version.bigEndian) { try lmdb.put(lmdb.databases.larder, key: key, value: $0) }
    }

    @discardableResult
    private func checkFormatVersion(_ txn: LMDBTransaction) throws -> UInt32 {
        guard let stored = try txn.get(databases.larder, key: options.format.key), stored.count == 4 else {
            throw LarderError(.notAStore, "the store has no valid format version", operation: "open", path: path)
        }
        let version = stored.loadUnaligned(as: UInt32.self).bigEndian
        if version > options.format.current {
            throw LarderError(
                .newerFormatVersion,
                "the store has format version \(version); this Larder reads versions up to \(options.format.current): upgrade Larder",
                operation: "open", path: path)
        }
        return version
    }

    /// Adds the databases a store lacks (an empty LMDB environment becomes a store).
    private func createMissingDatabases(_ txn: LMDBTransaction, _ atOpen: (LMDBTransaction) throws -> Void) throws {
        let version: UInt32
        if let larder = try txn.openExistingDatabase("larder") {
            databases.larder = larder
            version = try checkFormatVersion(txn)
        } else {
            version = options.format.current
            databases.larder = try txn.openDatabase("larder", create: true)
            var version = options.format.current.bigEndian
            try withUnsafeBytes(of: &version) { bytes in
                try txn.put(databases.larder, key: options.format.key, value: bytes)
            }
        }
        databases.objects = try txn.openDatabase("objects", create: true)
        databases.metadata = try txn.openDatabase("metadata", create: true)
        if version >= StoreFormat.recordsInMainDatabase {
            recordsInMainDatabaseSince.store(0, ordering: .relaxed)
        } else {
            databases.collections = try txn.openDatabase("collections", create: true)
        }
        databases.log = try txn.openDatabase("log", create: true)
        try atOpen(txn)
    }

    private func startSyncTimer() {
        guard case .deferred(let interval) = options.syncMode else { return }
        syncTimer = SyncTimer(interval: interval, environment: self)
    }

    /// Throws the first failure of a background flush (``EnvironmentOptions/SyncMode/deferred(interval:)``) not
    /// yet reported: the commits it should have flushed may not be on the disk.
    func throwPendingSyncError() throws(LarderError) {
        if let failure = syncTimer?.takePendingError() { throw failure }
    }

    /// Flushes every commit to the disk now; throws a failed background flush not yet reported
    /// even when this flush succeeds.
    func sync() throws(LarderError) {
        let rc = mdb_env_sync(handle, 1)
        try throwPendingSyncError()
        try LMDBResult.check(rc, "sync", path: path)
    }

    /// Runs `body` unless the environment has closed, keeping it open meanwhile (for timers,
    /// which may fire while the environment closes).
    func whileOpen(_ body: () -> Void) {
        closed.withLock { closed in
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
        if let syncTimer {
            syncTimer.cancel()
            mdb_env_sync(handle, 1)  // nothing is left to report a failure to
        }
        drainPool()
        closed.withLock { closed in
            closed = true
            mdb_env_close(handle)
        }
        lockFile.close()  // only after LMDB's handle (see LockFileReservation)
        claim?.release()
        claim = nil
    }

    // MARK: Read transactions

    /// Begins (or renews a pooled) read-only transaction. Pair with ``endRead(_:)``.
    func beginRead() throws(LarderError) -> OpaquePointer {
        let state = ThreadState.current
        var clearedReaders = false
        while true {
            gate.enter(reentrant: state.liveTransactions > 0)
            var txn = pool.withLock { $0.popLast() }.flatMap(OpaquePointer.init(bitPattern:))
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
                clearStaleReaders()
                clearedReaders = true
            default:
                throw LMDBResult.error(rc, operation: "beginRead", path: path)
            }
        }
    }

    /// Runs `body` in a read transaction (a pooled one when there is one), ending it when `body`
    /// returns or throws. The transaction must not outlive `body`.
    @inline(__always)
    func read<R>(_ body: (LMDBTransaction) throws -> R) throws -> R {
        let txn = try beginRead()
        defer { endRead(txn) }
        return try body(LMDBTransaction(handle: txn, environment: self, attempt: nil))
    }

    /// Ends a read transaction from ``beginRead()``, keeping its handle for reuse.
    func endRead(_ txn: OpaquePointer) {
        mdb_txn_reset(txn)
        let kept = pool.withLock { pool in
            guard pool.count < Environment.poolLimit else { return false }
            pool.append(UInt(bitPattern: txn))
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
        try asLiveTransaction(body)
    }

    /// Runs `body` as a live transaction of this thread: no map resize runs meanwhile.
    private func asLiveTransaction<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
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
        try throwPendingSyncError()
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
            let result = Result {
                let lmdb = LMDBTransaction(handle: txn, environment: self, attempt: attempt)
                let value = try body(lmdb)
                try lmdb.flushHeldWrites()  // the cached view nodes, before the commit
                return value
            }
            var commitCode: Int32 = MDB_SUCCESS
            var readerCheckDue = false
            if attempt.mapFull || attempt.rolledBack {
                mdb_txn_abort(txn)
            } else if case .failure = result {
                mdb_txn_abort(txn)
            } else {
                readerCheckDue = isReaderCheckDue()  // counted under LMDB's write lock
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
            if readerCheckDue { clearStaleReaders() }
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
        // A dead process's reader pins old pages, so the file fills with pages LMDB may not
        // reuse: free them before deciding the map must be larger.
        clearStaleReaders()
        let before = mapUsage().mapSize
        var failure: LarderError?
        var grewTo: Int?
        _ = gate.exclusively {
            drainPool()
            mapBound.invalidate()
            let now = mapUsage()
            guard now.mapSize <= before else { return }  // another thread grew it meanwhile
            let target = (now.mapSize * 2 + now.pageSize - 1) / now.pageSize * now.pageSize
            let rc = mdb_env_set_mapsize(handle, target)
            if rc != MDB_SUCCESS { failure = LMDBResult.error(rc, operation: "grow", path: path) } else { grewTo = target }
            resizeCount += 1
        }
        if let failure { throw failure }
        if let grewTo { tell(.mapGrew(oldSize: before, newSize: grewTo)) }
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
            mapBound.invalidate()
            let rc = mdb_env_set_mapsize(handle, 0)
            if rc != MDB_SUCCESS { failure = LMDBResult.error(rc, operation: "adoptMapSize", path: path) }
        }
        if let failure { throw failure }
    }

    private func drainPool() {
        pool.withLock { pool in
            for address in pool { mdb_txn_abort(OpaquePointer(bitPattern: address)) }
            pool.removeAll()
        }
    }

    // MARK: Copies

    /// Writes a copy of the store into `descriptor` (LMDB's `mdb_env_copyfd2`), compacted (free
    /// pages left out, pages renumbered) when `compacting` is set. It runs as a live transaction
    /// of this thread so that no map resize runs meanwhile (the copy reads through the map from
    /// a read transaction of its own); writers go on beside it.
    ///
    /// When another process has grown the map since this one last looked, LMDB refuses the
    /// copy's read transaction (`MDB_MAP_RESIZED`) before it writes a byte: the copy adopts the
    /// new size and starts again, as reads do.
    /// - Throws: ``LarderError`` with LMDB's failure (a full disk, an I/O error).
    func copy(to descriptor: Int32, compacting: Bool) throws(LarderError) {
        let flags = compacting ? UInt32(MDB_CP_COMPACT) : 0
        var rc = asLiveTransaction { mdb_env_copyfd2(handle, descriptor, flags) }
        var attempts = 1
        while rc == MDB_MAP_RESIZED && attempts < Self.resizedRetryLimit {
            try adoptMapSize()
            rc = asLiveTransaction { mdb_env_copyfd2(handle, descriptor, flags) }
            attempts += 1
        }
        try LMDBResult.check(rc, "copy", path: path)
    }

    /// How many times a copy starts again after `MDB_MAP_RESIZED` before it reports it (each
    /// time another process grew the map again in the moment between adopting and beginning).
    private static var resizedRetryLimit: Int { 16 }

    // MARK: Readers

    /// The number of reader slots of the lock file, fixed by the first process that opened it.
    var maxReaders: Int {
        var readers: UInt32 = 0
        mdb_env_get_maxreaders(handle, &readers)
        return Int(readers)
    }

    /// The reader slots in use, by every process.
    func readerEntries() -> [ReaderTable.Entry] {
        ReaderTable.entries(of: handle)
    }

    /// Clears reader slots left by processes that died; returns how many were cleared.
    @discardableResult
    func clearStaleReaders() -> Int {
        guard !isUnlocked else { return 0 }
        var dead: Int32 = 0
        mdb_reader_check(handle, &dead)
        if dead > 0 { tell(.staleReadersCleared(count: Int(dead))) }
        return Int(dead)
    }

    /// Whether this commit is one of every ``readerCheckInterval`` after which reader slots left
    /// by dead processes are cleared (it costs one lock probe per reading process), so that a
    /// long-running writer's file does not grow behind a reader that died inside its transaction.
    private func isReaderCheckDue() -> Bool {
        commitsSinceReaderCheck += 1
        guard commitsSinceReaderCheck >= Environment.readerCheckInterval else { return false }
        commitsSinceReaderCheck = 0
        return true
    }
}
