/// The child of a branch that a key descends to, and what a descent needs to know about it.
///
/// Not nested in the generic `CountedTree`, so that its metadata is never looked up at run time
/// (see `CountedTreeDescent`).
struct CountedTreeChoice {
    /// The entry's index in the branch.
    var index: Int
    var child: UInt64
    /// The keys below the child, as the branch counts them, and where that count lies.
    var count: Int
    var countField: Range<Int>
    /// The keys below the children left of this one.
    var rankBefore: Int
    /// Where the separator of the next entry lies in the branch's bytes (a strict upper bound of
    /// the keys below this child), `nil` when this is the last entry.
    var nextSeparator: Range<Int>?
}
