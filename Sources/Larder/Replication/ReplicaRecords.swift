/// Records a replica keeps in its store beside its state (its pending and rejected offline
/// commits, in `LarderPostgres`), in the store's `larder` database under keys of its own
/// (`replica:…`). Written in the transactions that change the data they describe, so that the
/// two never disagree.
extension ReadTransaction {
    /// The records whose keys start with `prefix`, in key (byte) order.
    package func replicaRecords(withPrefix prefix: String) throws -> [(key: String, value: [UInt8])] {
        checkActive()
        var records: [(key: String, value: [UInt8])] = []
        try lmdb.forEachEntry(in: lmdb.databases.larder, withPrefix: Array(prefix.utf8)) { key, value in
            records.append((String(decoding: key, as: UTF8.self), [UInt8](value)))
            return true
        }
        return records
    }
}

extension ReadWriteTransaction {
    /// Records `value` under `key`, or removes the record when `value` is `nil`.
    package func setReplicaRecord(_ value: [UInt8]?, forKey key: String) throws {
        checkActive()
        guard let value else {
            let bytes = Array(key.utf8)
            let removed: Result<Bool, LarderError> = bytes.withUnsafeBytes { key in
                do throws(LarderError) { return .success(try lmdb.delete(lmdb.databases.larder, key: key)) } catch { return .failure(error) }
            }
            _ = try removed.get()
            return
        }
        try value.withUnsafeBytes { try lmdb.put(lmdb.databases.larder, key: key, value: $0) }
    }
}

extension ReplicatedCommit {
    /// The format, payload and version of `stored`, a value as the store holds it (a row's
    /// `object` or `metadata`), its framing removed and its checksum verified.
    /// - Throws: ``LarderError/Code/corruptValue`` or ``LarderError/Code/corrupted`` for bytes
    ///   that are not a stored value.
    package static func unframe(_ stored: [UInt8]) throws -> (format: ArchiveFormat, payload: [UInt8], version: Int) {
        try stored.withUnsafeBytes { bytes in
            let unframed = try ValueFraming.unframe(bytes)
            return (unframed.format, [UInt8](unframed.payload), Int(unframed.version))
        }
    }
}

extension ReadTransaction {
    /// The last key (in byte order) of the records whose keys start with `prefix`; `nil` when
    /// there is none.
    package func lastReplicaRecordKey(withPrefix prefix: String) throws -> String? {
        checkActive()
        var last: String?
        try lmdb.forEachEntry(in: lmdb.databases.larder, withPrefix: Array(prefix.utf8), reversed: true) { key, _ in
            last = String(decoding: key, as: UTF8.self)
            return false
        }
        return last
    }
}
