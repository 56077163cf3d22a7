extension ReadWriteTransaction {
    /// Starts recording what this transaction reads (``recordedReads``), and its changes afresh
    /// (a replica's rehearsal of a write, rolled back once captured). Reads from then on bypass
    /// the connection's cache, so that each one is seen.
    package func startRecordingReads() {
        checkActive()
        guard readRecorder == nil else { return }
        readRecorder = ReadSetRecorder()
        // A caller of a group commit starts from the changes of the callers before it (a
        // replica's applied commits among them); what ``replicatedCommit()`` ships must be this
        // transaction's own changes only, or it would write other commits' rows again, blind.
        resetRecordedChanges()
    }

    /// What the transaction has read since ``startRecordingReads()``.
    package var recordedReads: ReadSet { (readRecorder as? ReadSetRecorder)?.reads ?? ReadSet() }
}

extension ReadWriteTransaction {
    /// Whether the caller's closure called ``rollback()``.
    package var wasRolledBack: Bool { isRolledBack }
}
