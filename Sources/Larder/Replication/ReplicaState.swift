/// Where a replica stands: the primary it follows, the last of the primary's commits it has
/// applied, and that commit's token. Kept in the store's `larder` database (`replica:primary`,
/// `replica:position`, `replica:token`), written in the transaction that applies each commit, so
/// that the data and the position never disagree, whatever kills the process.
///
/// The token makes the position a statement about content, not a bare number: the replica
/// compares it with the token the primary's log holds at that number, and a primary whose
/// commit there is another one (restored from an older backup, then written again) is a
/// foreign history. Stores written before tokens existed have none until the next commit they
/// apply.
package struct ReplicaState: Sendable, Equatable {
    /// The identity of the primary (chosen when the primary's tables were made).
    package var primary: String
    /// The number of the last commit of the primary this replica has applied; 0 for none.
    package var position: UInt64
    /// The token of the commit at ``position`` (the primary's log records one per commit);
    /// `nil` at position 0, and in stores written before tokens were kept.
    package var token: String?

    package init(primary: String, position: UInt64, token: String? = nil) {
        self.primary = primary
        self.position = position
        self.token = token
    }

    static let primaryKey = "replica:primary"
    static let positionKey = "replica:position"
    static let tokenKey = "replica:token"
}

extension ReadTransaction {
    /// The replica state recorded in the store; `nil` for a store that is no replica.
    /// - Throws: ``LarderError/Code/corrupted`` when the recorded state is damaged.
    package func replicaState() throws -> ReplicaState? {
        checkActive()
        guard let primary = try lmdb.get(lmdb.databases.larder, key: ReplicaState.primaryKey) else { return nil }
        let name = String(decoding: primary, as: UTF8.self)
        guard let stored = try lmdb.get(lmdb.databases.larder, key: ReplicaState.positionKey), stored.count == 8 else {
            throw LarderError(.corrupted, "the store names the primary it replicates but not its position in the primary's log", operation: "replica")
        }
        let token = try lmdb.get(lmdb.databases.larder, key: ReplicaState.tokenKey).map { String(decoding: $0, as: UTF8.self) }
        return ReplicaState(primary: name, position: UInt64(bigEndian: stored.loadUnaligned(as: UInt64.self)), token: token)
    }
}

extension ReadWriteTransaction {
    /// Records `state` as the replica's, in this transaction.
    package func setReplicaState(_ state: ReplicaState) throws {
        checkActive()
        try Array(state.primary.utf8).withUnsafeBytes { try lmdb.put(lmdb.databases.larder, key: ReplicaState.primaryKey, value: $0) }
        try withUnsafeBytes(of: state.position.bigEndian) { try lmdb.put(lmdb.databases.larder, key: ReplicaState.positionKey, value: $0) }
        if let token = state.token {
            try Array(token.utf8).withUnsafeBytes { try lmdb.put(lmdb.databases.larder, key: ReplicaState.tokenKey, value: $0) }
        } else {
            let key = Array(ReplicaState.tokenKey.utf8)
            let rc: Result<Bool, LarderError> = key.withUnsafeBytes { key in
                do throws(LarderError) { return .success(try lmdb.delete(lmdb.databases.larder, key: key)) } catch { return .failure(error) }
            }
            _ = try rc.get()
        }
    }
}

extension ReadTransaction {
    /// The object and metadata at (`collection`, `key`) exactly as the store holds them (framing
    /// included): the bytes a replica and its primary share, for comparing the two.
    package func replicatedImage(forKey key: String, inCollection collection: String) throws -> (object: [UInt8]?, metadata: [UInt8]?) {
        checkActive()
        return try StorageKey.with(collection: collection, key: key, maxKeySize: maxKeySize, operation: "replicatedImage") { storageKey in
            (try lmdb.get(lmdb.databases.objects, key: storageKey).map { [UInt8]($0) },
             try lmdb.get(lmdb.databases.metadata, key: storageKey).map { [UInt8]($0) })
        }
    }
}
