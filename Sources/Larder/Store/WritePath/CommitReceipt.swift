/// What a participant learns once LMDB has committed a write.
struct CommitReceipt {
    /// What the commit changed, with its commit number.
    let changeset: Changeset
    /// The commit the write transaction started from.
    let previous: UInt64
    /// The LMDB transaction id of the commit.
    let snapshotID: Int
    /// The connections whose writes the commit holds (one, or each caller of a group commit).
    let cores: [ConnectionCore]
}
