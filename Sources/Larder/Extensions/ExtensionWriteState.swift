/// What one extension keeps while a write attempt runs: work it defers to the commit (a view's
/// tree changes, a full-text search's postings), what it reports at the commit (the items a view
/// saw change), requests to itself (a garbage collection).
///
/// The extension makes its state the first time it needs it in an attempt
/// (``ExtensionMaintenance/state(of:_:)``); the write path keeps it, by the extension's
/// databases, and knows nothing of what it holds. A group commit runs each caller on a fork of
/// every state and keeps the forks only when the caller's closure succeeds, so a caller that fails
/// leaves nothing in them.
protocol ExtensionWriteState: AnyObject {
    /// A copy for the next caller of a group commit to work on.
    func fork() -> any ExtensionWriteState
}
