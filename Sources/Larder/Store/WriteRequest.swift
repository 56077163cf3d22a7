/// One asynchronous write waiting for the writer thread.
struct WriteRequest: Sendable {
    /// The database (kept open while the write waits).
    let database: Database
    /// The caches of the connection that asked, to update after the commit.
    let core: ConnectionCore
    /// Runs the caller's closure, keeping its result for `complete`.
    let run: @Sendable (ReadWriteTransaction) throws -> Void
    /// Resumes the caller: `nil` after a commit that kept its work, or the error.
    let complete: @Sendable ((any Error)?) -> Void
}
