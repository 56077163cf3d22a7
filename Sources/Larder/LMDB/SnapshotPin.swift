internal import CLMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A read transaction held on a store while something reads its pages from the file itself
/// (the page verifier's `pread`s). LMDB reuses a page only when no reader's snapshot can still
/// reach it, so while this transaction lives, the pages of its snapshot — and of every newer one —
/// stay as they are, and a writer running meanwhile cannot make a sound store look damaged.
enum SnapshotPin {
    /// Runs `body` while a read transaction of this process pins the store's newest snapshot;
    /// `body` gets that snapshot's transaction id, or `nil` when LMDB could not open the store
    /// (a damaged meta page, a file that is not LMDB): then nothing is pinned, and `body` reads
    /// a file nobody can be writing through LMDB either.
    static func withPinnedSnapshot<R>(_ location: StoreLocation, _ body: (UInt64?) throws -> R) throws -> R {
        try EnvironmentRegistry.withOpenEnvironment(of: location) { environment in
            if let environment {
                return try environment.read { try body($0.transactionID) }
            }
            // No `Database` of this process has the store open (the registry's lock is held, so
            // none can open it meanwhile): a bare read-only handle holds the snapshot.
            let lockExisted = FileIdentity.exists(location.lockFile)
            guard let (handle, txn) = openBare(location) else {
                if !lockExisted { unlink(location.lockFile) }
                return try body(nil)
            }
            defer {
                mdb_txn_abort(txn)
                mdb_env_close(handle)
            }
            // Unsigned, as LMDB keeps it: a damaged meta page can carry an id past `Int.max`.
            return try body(UInt64(UInt(bitPattern: mdb_txn_id(txn))))
        }
    }

    private static func openBare(_ location: StoreLocation) -> (OpaquePointer, OpaquePointer)? {
        // LMDB would trust a damaged meta page (see Environment.openHandle).
        if PageVerifier.damagedMetaPageError(dataFile: location.dataFile, path: location.dataFile) != nil { return nil }
        var env: OpaquePointer?
        guard mdb_env_create(&env) == MDB_SUCCESS, let env else { return nil }
        LMDBAssertion.install(on: env)
        var flags = UInt32(MDB_RDONLY | MDB_NOTLS)
        if location.isSingleFile { flags |= UInt32(MDB_NOSUBDIR) }
        var txn: OpaquePointer?
        guard mdb_env_open(env, location.lmdbPath, flags, 0o600) == MDB_SUCCESS,
              mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn) == MDB_SUCCESS, let txn else {
            mdb_env_close(env)
            return nil
        }
        return (env, txn)
    }
}
