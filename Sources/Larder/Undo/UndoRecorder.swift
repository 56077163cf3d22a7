/// Undo's part of the write path: in an undoable write, keeps the bytes of each index as they
/// were before the transaction first changed them, and records the step when the closure returns.
final class UndoRecorder: WriteParticipant {
    /// How many steps the stack keeps.
    private let limit: Int
    /// The images of the step being made; `nil` outside an undoable write.
    private var capture: UndoCapture?

    init(limit: Int) {
        self.limit = limit
    }

    func fork() -> UndoRecorder {
        let copy = UndoRecorder(limit: limit)
        copy.capture = capture?.copy()
        return copy
    }

    /// Makes the transaction an undo step named `name` (joining `group`'s step when given).
    func begin(named name: String, group: UndoGroup?) {
        precondition(capture == nil, "Larder misuse: a write was made undoable twice.")
        capture = UndoCapture(name: name, group: group)
    }

    /// Whether the transaction is an undoable write.
    var isCapturing: Bool { capture != nil }

    var wantsBeforeImages: Bool { isCapturing }

    var wantsChanges: Bool { isCapturing }

    func willChange(_ index: YapDB.Index, at storageKey: UnsafeRawBufferPointer, in txn: ReadWriteTransaction) throws {
        // An undo or redo is not itself undoable; what it puts back is in its step already.
        guard let capture, !txn.isRestoring else { return }
        try capture.recordIfNew(index) { try txn.storedImage(at: storageKey) }
    }

    func didChange(_ change: WriteChange, in txn: ReadWriteTransaction) throws {
        guard let capture, !txn.isRestoring else { return }
        capture.follow(change)
    }

    /// Stores the undo step: each index the write changed, with its bytes before and after (as
    /// followed through the changes; read back only where a change did not say). A write that
    /// changed nothing records nothing.
    func closureDidReturn(in txn: ReadWriteTransaction) throws {
        guard let undo = capture else { return }
        capture = nil
        var entries: [StoredUndoStep.Entry] = []
        for (slot, index) in undo.order.enumerated() {
            let before = undo.before[slot]
            let after = try undo.after[slot] ?? readAfterImage(of: index, in: txn)
            guard before != after else { continue }
            entries.append(StoredUndoStep.Entry(index, before: before, after: after))
        }
        try UndoStack.record(entries, name: undo.name, group: undo.group, limit: limit, in: txn.lmdb)
    }

    private func readAfterImage(of index: YapDB.Index, in txn: ReadWriteTransaction) throws -> StoredImage {
        try StorageKey.with(collection: index.collection, key: index.key, maxKeySize: txn.maxKeySize, operation: "undo") {
            try txn.storedImage(at: $0)
        }
    }
}

extension ReadWriteTransaction {
    /// Makes this transaction an undo step named `name` (joining `group`'s step when given).
    /// Must come before the transaction changes anything.
    func beginUndoableStep(named name: String, group: UndoGroup?) {
        precondition(!hasWritten, "Larder misuse: a write was made undoable after it had changed something.")
        checkActive()
        let limit = UndoStack.limit(of: database.shared.configuration)
        participant(UndoRecorder.self, joiningAt: .undo) { UndoRecorder(limit: limit) }.begin(named: name, group: group)
    }
}
