/// What became of an object or a metadata value.
enum ValueChange {
    /// A value was archived and stored.
    case written
    /// The stored value is gone (for metadata: an object's removal is ``WriteChange/removed(_:)``).
    case removed
    /// The stored bytes changed to bytes stored before (an undo or a redo); no decoded value is
    /// at hand.
    case restored
    /// Marked as changed without any change of its bytes (``ReadWriteTransaction/touchObject(forKey:inCollection:)``).
    case touched
}
