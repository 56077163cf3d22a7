extension Database {
    /// How many LMDB transactions have committed since the snapshot of the oldest live read
    /// transaction of any process that has the store open: 0 when every reader sees the last
    /// commit or none is live. Pages freed since that snapshot cannot be reused while it lasts,
    /// so a lag that keeps growing is a reader left open (a pinned snapshot, a stuck thread) and
    /// a file that grows. ``readerSlots()`` says which reader it is.
    ///
    /// A metrics adapter polls it (the `LarderAdapters` product's `LarderMetrics.recordReaderLag(of:)`):
    ///
    /// ```swift
    /// if db.oldestReaderLag() > 10_000 { print("a reader pins an old snapshot") }
    /// ```
    /// - Complexity: O(reader slots in use): it reads the lock file's reader table. Returns 0
    ///   after ``close()-1m8tz``.
    public func oldestReaderLag() -> Int {
        readerSlots().compactMap(\.transactionsBehind).max() ?? 0
    }
}
