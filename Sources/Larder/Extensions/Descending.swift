/// A ``TupleKey`` component that sorts in the reverse of `value`'s order: newest first, largest
/// first, Z to A, while the components around it keep their own order.
///
/// ```swift
/// // Newest first, then by title A to Z.
/// let key = TupleKey(Descending(note.modified), note.title)
/// ```
///
/// It makes ``TupleComponent/descending(_:)``: views and secondary indexes keep it in that order
/// without the caller negating anything, for every kind of component (strings and byte strings
/// included, which cannot be negated). Every descending component sorts after every ascending
/// one, so a column should hold descending values only, or ascending values only.
///
/// In ``IndexQuery/range(where:from:fromInclusive:to:toInclusive:)`` the bounds of a descending
/// column are descending too and follow the column's order: `from: Descending(newest)` comes
/// before `to: Descending(oldest)`.
public struct Descending<Value: TupleKeyComponent>: TupleKeyComponent {
    /// The value, in its own (ascending) terms.
    public var value: Value

    /// `value`, to sort in reverse.
    public init(_ value: Value) {
        self.value = value
    }

    /// `.descending` of the value's component.
    public var tupleComponent: TupleComponent { .descending(value.tupleComponent) }
}
