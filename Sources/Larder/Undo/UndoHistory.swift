import Foundation

/// The undo history in the store at one moment.
public struct UndoHistory: Sendable, Hashable {
    /// The steps that can be undone, oldest first: ``DatabaseAccess/undo()`` reverts the last.
    public let undoable: [UndoStep]
    /// The steps that can be redone, next first: ``DatabaseAccess/redo()`` re-applies the first.
    public let redoable: [UndoStep]
}
