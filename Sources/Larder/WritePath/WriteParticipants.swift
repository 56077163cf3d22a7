/// The participants of one write transaction, in the order they hear of each change: the
/// extensions (dependencies first), undo capture, the change log, the cache's write-through, then
/// any participant added to the store (``StoreShared/addParticipant(_:)``).
///
/// This is the one place that names them all; the transaction only walks ``all``. The features
/// that reach their own participant from the transaction (extensions, undo) find it here by a
/// typed field rather than by searching the list. A class, so that reaching one field does not
/// copy (and retain) the others.
final class WriteParticipants {
    let extensions: ExtensionMaintenance
    let undo: UndoRecorder
    private let changeLog: ChangeLogWriter
    private let cache: CacheWriteThrough
    private let added: [any WriteParticipant]
    /// Every participant, in order.
    let all: [any WriteParticipant]

    private init(extensions: ExtensionMaintenance, undo: UndoRecorder, changeLog: ChangeLogWriter, cache: CacheWriteThrough, added: [any WriteParticipant]) {
        self.extensions = extensions
        self.undo = undo
        self.changeLog = changeLog
        self.cache = cache
        self.added = added
        self.all = [extensions, undo, changeLog, cache] + added
    }

    /// The participants of a write transaction on `database` begun by `core`.
    static func standard(for database: Database, core: ConnectionCore) -> WriteParticipants {
        let shared = database.shared
        return WriteParticipants(
            extensions: ExtensionMaintenance(registry: shared.extensions),
            undo: UndoRecorder(limit: UndoStack.limit(of: shared.configuration)),
            changeLog: ChangeLogWriter(hub: shared.changeHub, limit: shared.configuration.changeLogLimit,
                                       byteLimit: shared.configuration.changeLogByteLimit,
                                       keepsValueHistory: shared.configuration.keepsValueHistory),
            cache: CacheWriteThrough(limit: core.cache.objectLimit),
            added: shared.makeAddedParticipants())
    }

    /// Copies for a nested transaction (see ``WriteParticipant/fork()``).
    func forked() -> WriteParticipants {
        WriteParticipants(extensions: extensions.fork(), undo: undo.fork(), changeLog: changeLog.fork(),
                          cache: cache.fork(), added: added.map { $0.fork() })
    }

    /// Whether any participant wants to hear of a change (``WriteParticipant/wantsChanges``).
    var wantChanges: Bool {
        extensions.wantsChanges || undo.wantsChanges || cache.wantsChanges || changeLog.wantsChanges
            || added.contains { $0.wantsChanges }
    }

    /// Whether any participant wants to see the bytes of each object of a bulk removal.
    var wantBeforeImagesOfBulkRemovals: Bool {
        all.contains { $0.wantsBeforeImagesOfBulkRemovals }
    }
}
