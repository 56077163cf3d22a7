/// An undo or a redo that a commit made, as ``Changeset/undoActions`` lists it: how observers,
/// the change log and `larder log` tell the commits that moved through the undo history from the
/// writes that made it.
///
/// ```swift
/// for await changes in db.changes() {
///     if changes.undoActions.isEmpty { markDocumentEdited() }   // an undo or redo is not a new edit
/// }
/// ```
public struct UndoAction: Sendable, Hashable {
    /// Which way the commit moved through the undo history.
    public enum Kind: String, Sendable, Hashable {
        /// ``DatabaseAccess/undo()`` (or ``ReadWriteTransaction/undo()``): the step's values
        /// before were put back.
        case undo
        /// ``DatabaseAccess/redo()`` (or ``ReadWriteTransaction/redo()``): the step's values after
        /// were put back.
        case redo
    }

    /// Whether the commit undid or redid the step.
    public let kind: Kind
    /// The step's ``UndoStep/id``.
    public let stepID: UInt64
    /// The step's ``UndoStep/name``.
    public let stepName: String

    /// An undo or redo of the step numbered `stepID`, named `stepName`.
    public init(kind: Kind, stepID: UInt64, stepName: String) {
        self.kind = kind
        self.stepID = stepID
        self.stepName = stepName
    }
}
