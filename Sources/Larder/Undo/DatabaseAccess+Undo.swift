import Foundation

/// Persistent undo and redo.
///
/// A write made with `write(undoable:_:)` records an undo step:
/// for every index it changed (objects and metadata, including what delete rules and garbage
/// collection changed), the stored bytes before and after. ``undo()`` puts the bytes before back,
/// ``redo()`` the bytes after, each in a new write transaction that goes through the normal write
/// path, so views, indexes, relationships, caches and observers follow. The history lives in the
/// store: it survives closing the database and restarting the process, and every process sees the
/// same one. A ``Database`` and every ``Connection`` of it share that history.
///
/// ```swift
/// try db.write(undoable: "Rename product") { try $0.write(renamed) }
/// try db.undo()     // the old name is back
/// try db.redo()     // the new one again
/// ```
///
/// From asynchronous code, undo and redo inside an asynchronous write, which runs them on the
/// database's writer thread (``ReadWriteTransaction/undo()``):
///
/// ```swift
/// try await db.write { try $0.undo() }
/// ```
extension DatabaseAccess {
    /// Runs `body` in a write transaction recorded as one undo step named `name`. A new step drops
    /// the steps that were undone (they can no longer be redone); a write that changes nothing
    /// records nothing. Inside `undoGroup(named:_:)` the step joins the group's.
    /// - Throws: what `body` throws (nothing is recorded or committed then), or a ``LarderError``.
    @discardableResult
    public func write<R>(undoable name: String, _ body: (ReadWriteTransaction) throws -> R) throws -> R {
        let group = currentUndoGroup
        return try write { txn in
            txn.beginUndoableStep(named: name, group: group)
            return try body(txn)
        }
    }

    /// Runs `body` as an undoable write from asynchronous code, on the writer thread and
    /// group-committed with other asynchronous writes; see the synchronous form.
    /// - Throws: what `body` throws, or a ``LarderError``.
    @discardableResult
    public func write<R: Sendable>(undoable name: String, _ body: @escaping @Sendable (ReadWriteTransaction) throws -> R) async throws -> R {
        let group = currentUndoGroup
        return try await write { txn in
            txn.beginUndoableStep(named: name, group: group)
            return try body(txn)
        }
    }

    /// The undo group of this store that the current task is in, if any.
    private var currentUndoGroup: UndoGroup? {
        UndoGroup.current.flatMap { $0.environment == ObjectIdentifier(database.environment) ? $0 : nil }
    }

    /// Makes the undoable writes `body` makes (on any connection of this store, on this thread or
    /// in its child tasks) one undo step named `name`. Nested groups join the outermost.
    ///
    /// ```swift
    /// try db.undoGroup(named: "Import") {
    ///     for batch in batches { try db.write(undoable: "Import batch") { try $0.write(batch) } }
    /// }
    /// try db.undo()   // the whole import
    /// ```
    ///
    /// A write joins the group's step only while that step is the newest; after an undo in the
    /// middle of a group, the group goes on in a new step.
    /// - Throws: what `body` throws (the undoable writes that committed before stay in the step).
    public func undoGroup<R>(named name: String, _ body: () throws -> R) rethrows -> R {
        let environment = ObjectIdentifier(database.environment)
        if UndoGroup.current?.environment == environment { return try body() }
        return try UndoGroup.$current.withValue(UndoGroup(name: name, environment: environment), operation: body)
    }

    /// Makes the undoable writes of `body` one undo step, from asynchronous code; see
    /// the synchronous form. `body` runs on the caller's actor (`isolation`, the caller's by
    /// default), so code on the main actor groups its writes without sending anything elsewhere:
    ///
    /// ```swift
    /// @MainActor func importBatches(_ batches: [[Product]]) async throws {
    ///     try await db.undoGroup(named: "Import") {
    ///         for batch in batches { try await db.write(undoable: "Import batch") { try $0.write(batch) } }
    ///     }
    /// }
    /// ```
    /// - Throws: what `body` throws.
    public func undoGroup<R>(named name: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R) async rethrows -> R {
        let environment = ObjectIdentifier(database.environment)
        if UndoGroup.current?.environment == environment { return try await body() }
        return try await UndoGroup.$current.withValue(UndoGroup(name: name, environment: environment), operation: body, isolation: isolation)
    }

    /// Reverts the newest step that is not undone, in a new write transaction on the calling
    /// thread, and returns it; `nil` when there is nothing to undo. From asynchronous code,
    /// `try await db.write { try $0.undo() }` does the same on the writer thread.
    /// - Throws: ``LarderError/Code/undoConflict`` when a value the step covers changed since the
    ///   step was made (by a write that was not undoable, or another process): nothing is changed,
    ///   and the step stays (``clearUndoHistory()`` forgets it).
    @discardableResult
    public func undo() throws -> UndoStep? {
        try write { try $0.undo() }
    }

    /// Re-applies the step undone last, in a new write transaction on the calling thread, and
    /// returns it; `nil` when there is nothing to redo. From asynchronous code,
    /// `try await db.write { try $0.redo() }` does the same on the writer thread.
    /// - Throws: ``LarderError/Code/undoConflict`` when a value the step covers changed since it
    ///   was undone; nothing is changed.
    @discardableResult
    public func redo() throws -> UndoStep? {
        try write { try $0.redo() }
    }

    /// The steps in the store: those that can be undone and those that can be redone (on a
    /// ``Connection`` with a pinned snapshot, those of the pinned snapshot).
    /// - Throws: ``LarderError/Code/corruptValue`` when the stored history does not decode.
    public func undoHistory() throws -> UndoHistory {
        try read { try UndoStack.history(in: $0.lmdb) }
    }

    /// Whether there is a step to undo.
    /// - Throws: as ``undoHistory()``.
    public var canUndo: Bool {
        get throws { try read { try UndoStack.candidate(.undo, in: $0.lmdb) != nil } }
    }

    /// Whether there is a step to redo.
    /// - Throws: as ``undoHistory()``.
    public var canRedo: Bool {
        get throws { try read { try UndoStack.candidate(.redo, in: $0.lmdb) != nil } }
    }

    /// The name of the step ``undo()`` would revert, `nil` when there is none.
    /// - Throws: as ``undoHistory()``.
    public var undoName: String? {
        get throws { try read { try UndoStack.candidateName(.undo, in: $0.lmdb) } }
    }

    /// The name of the step ``redo()`` would re-apply, `nil` when there is none.
    /// - Throws: as ``undoHistory()``.
    public var redoName: String? {
        get throws { try read { try UndoStack.candidateName(.redo, in: $0.lmdb) } }
    }

    /// Forgets every undo and redo step (the data stays as it is).
    /// - Throws: ``LarderError`` when the write fails; the steps are then kept.
    public func clearUndoHistory() throws {
        try write { try UndoStack.clear(in: $0.lmdb) }
    }
}
