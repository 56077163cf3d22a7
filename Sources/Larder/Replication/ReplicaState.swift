/// Where a replica stands: the primary it follows and the last of the primary's commits it has
/// applied. Kept in the store's `larder` database (`replica:primary`, `replica:position`),
/// written in the transaction that applies each commit, so that the data and the position never
/// disagree, whatever kills the process.
package struct ReplicaState: Sendable, Equatable {
    /// The identity of the primary (chosen when the primary's tables were made).
    package var primary: String
    /// The number of the last commit of the primary this replica has applied; 0 for none.
    package var position: UInt64

    package init(primary: String, position: UInt64) {
        self.primary = primary
        self.position = position
    }

    static let primaryKey = "replica:primary"
    static let positionKey = "replica:position"
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
        return ReplicaState(primary: name, position: UInt64(bigEndian: stored.loadUnaligned(as: UInt64.self)))
    }
}

extension ReadWriteTransaction {
    /// Records `state` as the replica's, in this transaction.
    package func setReplicaState(_ state: ReplicaState) throws {
        checkActive()
        try Array(state.primary.utf8).withUnsafeBytes { try lmdb.put(lmdb.databases.larder, key: ReplicaState.primaryKey, value: $0) }
        try withUnsafeBytes(of: state.position.bigEndian) { try lmdb.put(lmdb.databases.larder, key: ReplicaState.positionKey, value: $0) }
    }
}
