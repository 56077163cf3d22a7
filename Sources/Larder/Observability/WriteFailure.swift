/// What ``DatabaseEvent/writeFailed(_:)`` tells about a write that kept nothing.
public struct WriteFailure: Sendable, Equatable {
    /// The ``LarderError`` code when a Larder error ended the write; `nil` when the closure threw
    /// an error of its own or rolled back.
    public var code: LarderError.Code?
    /// Whether the closure called ``ReadWriteTransaction/rollback()``.
    public var isRollback: Bool
    /// How many callers' writes it dropped: 1 for one closure (even inside a group commit whose
    /// other closures committed), the whole group when the group's commit failed.
    public var callers: Int
}
