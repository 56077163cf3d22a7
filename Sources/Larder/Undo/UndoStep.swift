import Foundation

/// One step of the undo history: a named undoable write (or group of them).
public struct UndoStep: Sendable, Hashable, Identifiable {
    /// The step's number in the store (increasing; never reused).
    public let id: UInt64
    /// The name it was recorded with ("Rename product").
    public let name: String
    /// When it was recorded (for a group, when its last write was).
    public let time: Date
    /// The indexes whose object or metadata it changed, in the order they were first changed.
    public let indexes: [YapDB.Index]
}
