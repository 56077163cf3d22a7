internal import CLMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes a new store so that no one ever sees half of one.
///
/// LMDB writes a new environment's first pages in place, so a process killed during its first
/// open left an empty or partial data file that every later open took for "not a Larder store".
/// Instead the store is built whole under a temporary name in the directory that will hold it
/// (named databases, format version, synced), then renamed into place. Creators serialize on an
/// exclusive `flock` of that directory and look again once they hold it, so two processes
/// creating the same store at once make it once; leftovers of a creator that died are removed
/// by the next one. The temporary store is built without a lock file (`MDB_NOLOCK`): no other
/// process can reach it, and a lock file would be one more thing to leave behind or to fault on
/// a full disk.
enum StoreCreation {
    /// The names of the databases every new store has (DESIGN.md's layout; from store format 6
    /// the collection counts are records of the main database, not a `collections` database).
    static let databaseNames = ["larder", "objects", "metadata", "log"]

    /// Creates the store at `location` unless a complete one is there by the time the creation
    /// lock is held. `replacingEmptyFile` lets an existing empty file at a single-file location
    /// be replaced (``EnvironmentOptions/singleFile`` asked to make it a store).
    ///
    /// - Returns: whether it created the store's directory (a failed open removes it again).
    static func createIfMissing(_ location: StoreLocation, replacingEmptyFile: Bool, options: EnvironmentOptions, path: String) throws -> Bool {
        let createdDirectory = location.isSingleFile ? false : try makeDirectory(location.lmdbPath, fileMode: options.fileMode, path: path)
        do {
            try withCreationLock(on: location.directory, path: path) {
                let size = FileIdentity.size(location.dataFile)
                if FileIdentity.exists(location.dataFile) && (size > 0 || !replacingEmptyFile) { return }
                removeLeftovers(in: location.directory, of: location.dataFileName)
                let temporary = location.directory + "/." + location.dataFileName + ".creating-\(getpid())"
                defer { unlink(temporary) }
                try build(at: temporary, options: options, path: path)
                if rename(temporary, location.dataFile) != 0 {
                    throw LMDBResult.error(errno, operation: "create", path: path)
                }
                syncDirectory(location.directory)
            }
        } catch {
            if createdDirectory { rmdir(location.lmdbPath) }
            throw error
        }
        return createdDirectory
    }

    /// Builds a complete, empty store in the single file `file` and flushes it.
    private static func build(at file: String, options: EnvironmentOptions, path: String) throws {
        var env: OpaquePointer?
        try LMDBResult.check(mdb_env_create(&env), "mdb_env_create", path: path)
        guard let env else { throw LarderError(.lmdb, "mdb_env_create returned no handle", path: path) }
        defer { mdb_env_close(env) }
        try LMDBResult.check(mdb_env_set_maxdbs(env, 16), "create", path: path)
        try LMDBResult.check(mdb_env_set_mapsize(env, max(options.mapSize, 1 << 20)), "create", path: path)
        // No lock file: the creation lock keeps every other process away from the temporary file.
        try LMDBResult.check(mdb_env_open(env, file, UInt32(MDB_NOSUBDIR | MDB_NOTLS | MDB_NOLOCK), mode_t(options.fileMode)), "create", path: path)
        var txn: OpaquePointer?
        try LMDBResult.check(mdb_txn_begin(env, nil, 0, &txn), "create", path: path)
        guard let txn else { throw LarderError(.lmdb, "mdb_txn_begin returned no handle", path: path) }
        do {
            var handles: [String: MDB_dbi] = [:]
            for name in databaseNames {
                var dbi = MDB_dbi()
                try LMDBResult.check(mdb_dbi_open(txn, name, UInt32(MDB_CREATE), &dbi), "create", path: path)
                handles[name] = dbi
            }
            var version = options.format.current.bigEndian
            var keyBytes = Array(options.format.key.utf8)
            let rc = keyBytes.withUnsafeMutableBytes { key in
                withUnsafeMutableBytes(of: &version) { value in
                    var k = MDB_val(mv_size: key.count, mv_data: key.baseAddress)
                    var v = MDB_val(mv_size: value.count, mv_data: value.baseAddress)
                    return mdb_put(txn, handles["larder"]!, &k, &v, 0)
                }
            }
            try LMDBResult.check(rc, "create", path: path)
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
        try LMDBResult.check(mdb_txn_commit(txn), "create", path: path)  // synced: no flag relaxes it
    }

    // MARK: Files

    /// Creates the store directory if missing; returns whether it did.
    private static func makeDirectory(_ directory: String, fileMode: UInt32, path: String) throws(LarderError) -> Bool {
        if FileIdentity.isDirectory(directory) { return false }
        // Directories need the search bit wherever the files are readable.
        let mode = mode_t(fileMode | ((fileMode & 0o444) >> 2))
        if mkdir(directory, mode) != 0 {
            let code = errno
            if code == EEXIST { return false }
            throw LMDBResult.error(code, operation: "open", path: path)
        }
        return true
    }

    private static func withCreationLock(on directory: String, path: String, _ body: () throws -> Void) throws {
        let descriptor = open(directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw LMDBResult.error(errno, operation: "create", path: path) }
        defer { close(descriptor) }  // closing it releases the lock
        while flock(descriptor, LOCK_EX) != 0 {
            if errno != EINTR { throw LMDBResult.error(errno, operation: "create", path: path) }
        }
        try body()
    }

    /// Removes the temporary files of creators that died (the caller holds the creation lock,
    /// so no live creator owns one).
    private static func removeLeftovers(in directory: String, of dataFileName: String) {
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        let prefix = "." + dataFileName + ".creating-"
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.hasPrefix(prefix) { unlink(directory + "/" + name) }
        }
    }

    static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
