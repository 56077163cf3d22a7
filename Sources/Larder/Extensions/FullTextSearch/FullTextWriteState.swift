/// What a full-text search keeps while a write attempt runs: the postings and statistics it has
/// not written yet (``FullTextPendingPostings``), a value forked with the state for each caller
/// of a group commit, so that a caller that fails takes its postings with it.
final class FullTextWriteState: ExtensionWriteState {
    private var pending = FullTextPendingPostings()

    init() {}

    private init(pending: FullTextPendingPostings) {
        self.pending = pending
    }

    func fork() -> any ExtensionWriteState {
        FullTextWriteState(pending: pending)
    }

    /// Runs `body` with the waiting postings, taken out meanwhile (the value is not shared, so
    /// `body` changes it in place).
    func withPending<R>(_ body: (inout FullTextPendingPostings) throws -> R) rethrows -> R {
        var taken = FullTextPendingPostings()
        swap(&taken, &pending)
        defer { swap(&taken, &pending) }
        return try body(&taken)
    }

    /// Forgets the waiting postings and statistics.
    func discard() {
        pending = FullTextPendingPostings()
    }
}
