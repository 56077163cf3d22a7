import Synchronization

/// What a connection keeps between transactions: its caches and its pinned snapshot. The
/// ``Database`` has one of its own for its `read` and `write`.
final class ConnectionCore: Sendable {
    struct Pin {
        let handle: OpaquePointer
        let commit: UInt64
    }

    private struct PinState {
        var pinned: Pin?
        /// How many reads of the pinned snapshot the thread holding the lock is inside.
        var useDepth = 0
    }

    let cache: ConnectionCache
    /// Not a `Mutex`: it is held through each read of the pinned snapshot (one LMDB transaction
    /// serves one thread at a time), so other threads' reads wait for it, and it is recursive so
    /// that a read may nest in another on the same thread.
    private let pinLock = ConditionLock(PinState(), recursive: true)
    private let isPinned = Atomic<Bool>(false)

    init(objectCacheLimit: Int, metadataCacheLimit: Int, keepsIdentityMap: Bool = false) {
        cache = ConnectionCache(objectLimit: objectCacheLimit, metadataLimit: metadataCacheLimit, keepsIdentityMap: keepsIdentityMap)
    }

    var pinnedCommit: UInt64? { pinLock.withLock { $0.pinned?.commit } }

    /// Runs `body` with the pinned transaction, or returns `nil` at once when none is pinned.
    func withPinned<R>(_ environment: Environment, _ body: (OpaquePointer) throws -> R) rethrows -> R? {
        guard isPinned.load(ordering: .acquiring) else { return nil }
        pinLock.lock()
        defer { pinLock.unlock() }
        let handle: OpaquePointer? = pinLock.withLock { state in
            guard let pinned = state.pinned else { return nil }
            state.useDepth += 1
            return pinned.handle
        }
        guard let handle else { return nil }
        // The state is not borrowed while `body` runs, so a nested read may take its turn.
        defer { pinLock.withLock { $0.useDepth -= 1 } }
        return try environment.usePinned(handle) { try body(handle) }
    }

    /// Pins the newest commit, replacing any pinned snapshot; returns the changesets between the
    /// old and the new one when asked.
    func pin(_ environment: Environment, hub: ChangeHub, returningSkipped: Bool) throws -> [Changeset] {
        try pinLock.withLock { state in
            if state.pinned != nil && !returningSkipped { return [] }
            precondition(state.useDepth == 0, "Larder misuse: a pinned snapshot was moved inside a read of it. Move it after the read's closure returns.")
            let handle = try environment.beginPinnedRead()
            let lmdb = LMDBTransaction(handle: handle, environment: environment, attempt: nil)
            let commit: UInt64
            var skipped: [Changeset] = []
            do {
                commit = try environment.usePinned(handle) { try ChangeLog.lastCommit(lmdb) }
                if let old = state.pinned, returningSkipped {
                    skipped = try environment.usePinned(handle) {
                        try hub.changesets(after: old.commit, through: commit, in: lmdb)
                    } ?? [.reset(after: old.commit, upTo: commit)]
                }
            } catch {
                environment.endPinnedRead(handle)
                throw error
            }
            if let old = state.pinned { environment.endPinnedRead(old.handle) }
            state.pinned = Pin(handle: handle, commit: commit)
            isPinned.store(true, ordering: .releasing)
            return skipped
        }
    }

    func unpin(_ environment: Environment) {
        pinLock.withLock { state in
            guard let old = state.pinned else { return }
            precondition(state.useDepth == 0, "Larder misuse: a pinned snapshot was unpinned inside a read of it. Unpin it after the read's closure returns.")
            environment.endPinnedRead(old.handle)
            state.pinned = nil
            isPinned.store(false, ordering: .releasing)
        }
    }
}
