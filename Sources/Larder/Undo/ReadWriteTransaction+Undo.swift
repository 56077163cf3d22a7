/// Undo and redo inside a write transaction: what ``DatabaseAccess/undo()`` and
/// ``DatabaseAccess/redo()`` run, and the way to undo from asynchronous code without blocking a
/// task, on the database's writer thread:
///
/// ```swift
/// let step = try await db.write { try $0.undo() }
/// ```
///
/// The step is applied through this transaction, so views, indexes, relationships, caches and
/// observers follow, and it commits (or rolls back) with whatever else the transaction does.
extension ReadWriteTransaction {
    /// Reverts the newest step that is not undone, in this transaction, and returns it; `nil`
    /// when there is nothing to undo.
    /// - Throws: ``LarderError/Code/undoConflict`` when a value the step covers changed since the
    ///   step was made (by a write that was not undoable, or another process): nothing is changed,
    ///   and the step stays.
    /// - Precondition: the transaction is not an undoable write (`write(undoable:_:)`): an undo
    ///   cannot be recorded as a step of its own.
    @discardableResult
    public func undo() throws -> UndoStep? {
        try applyUndoStack(.undo)
    }

    /// Re-applies the step undone last, in this transaction, and returns it; `nil` when there is
    /// nothing to redo.
    /// - Throws: ``LarderError/Code/undoConflict`` when a value the step covers changed since it
    ///   was undone; nothing is changed.
    /// - Precondition: the transaction is not an undoable write (`write(undoable:_:)`).
    @discardableResult
    public func redo() throws -> UndoStep? {
        try applyUndoStack(.redo)
    }

    private func applyUndoStack(_ direction: UndoStack.Direction) throws -> UndoStep? {
        checkActive()
        precondition(!(participants.first(UndoRecorder.self)?.isCapturing ?? false), "Larder misuse: undo() or redo() was called inside an undoable write. Call it in a write that is not undoable (db.write { try $0.undo() }).")
        return try UndoStack.apply(direction: direction, in: self)
    }
}
