import CLMDBFloor

/// LMDB through its C API and nothing else: the floor that Larder's raw paths are measured
/// against. One unnamed database; keys and values are byte arrays made before timing starts.
public final class LMDBFloor {
    public struct Failure: Error, CustomStringConvertible {
        public let code: Int32
        public let call: String
        public var description: String { "\(call) failed: \(String(cString: mdb_strerror(code)))" }
    }

    private let env: OpaquePointer
    private var dbi: MDB_dbi = 0
    public let scratch: Scratch

    /// Opens a new environment in a fresh directory, with LMDB's default (synced) commits.
    public init(label: String, mapSize: Int = 4 << 30) throws {
        scratch = try Scratch("floor-\(label)")
        var handle: OpaquePointer?
        try Self.check(mdb_env_create(&handle), "mdb_env_create")
        env = handle!
        try Self.check(mdb_env_set_mapsize(env, mapSize), "mdb_env_set_mapsize")
        try Self.check(mdb_env_open(env, scratch.path, UInt32(MDB_NOTLS), 0o600), "mdb_env_open")
        try write { txn in
            try Self.check(mdb_dbi_open(txn, nil, 0, &dbi), "mdb_dbi_open")
        }
    }

    deinit { mdb_env_close(env) }

    static func check(_ code: Int32, _ call: String) throws {
        if code != 0 { throw Failure(code: code, call: call) }
    }

    /// One write transaction around `body`, committed (synced to disk: LMDB's default).
    public func write(_ body: (OpaquePointer) throws -> Void) throws {
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        do {
            try body(txn!)
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
        try Self.check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    /// Stores `value` under `key` in the write transaction `txn`.
    @inline(__always)
    public func put(_ key: [UInt8], _ value: [UInt8], in txn: OpaquePointer) throws {
        try key.withUnsafeBytes { keyBytes in
            try value.withUnsafeBytes { valueBytes in
                var k = MDB_val(mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
                var v = MDB_val(mv_size: valueBytes.count, mv_data: UnsafeMutableRawPointer(mutating: valueBytes.baseAddress))
                try Self.check(mdb_put(txn, dbi, &k, &v, 0), "mdb_put")
            }
        }
    }

    /// Stores every pair in one write transaction.
    public func put(keys: [[UInt8]], values: (Int) -> [UInt8]) throws {
        try write { txn in
            for (n, key) in keys.enumerated() { try put(key, values(n), in: txn) }
        }
    }

    /// One read transaction; `body` gets a lookup that lends the stored bytes of a key (valid
    /// until the lookup is called again), or `nil` when the key is absent.
    public func read<R>(_ body: (_ get: (UnsafeRawBufferPointer) -> UnsafeRawBufferPointer?) throws -> R) throws -> R {
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
        defer { mdb_txn_abort(txn) }
        let dbi = self.dbi
        return try body { key in
            var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
            var v = MDB_val()
            guard mdb_get(txn, dbi, &k, &v) == 0 else { return nil }
            return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
        }
    }
}

extension LMDBFloor {
    /// The version string of the liblmdb this process runs with.
    public static var version: String { String(cString: mdb_version(nil, nil, nil)) }
}
