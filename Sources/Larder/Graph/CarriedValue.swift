/// A ref's target, kept with the ref.
protocol CarriedValue: Sendable {
    var anyValue: Any { get }
    /// Saves the value through `context` (``ReadWriteTransaction/saveAll(_:)``).
    func save(in context: GraphContext) throws
}
