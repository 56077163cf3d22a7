/// One entry of a branch: a child, the number of keys below it, and its separator.
struct CountedTreeChild: Equatable {
    var id: UInt64
    var count: Int
    /// A lower bound of the keys below this child and a strict upper bound of those below the
    /// previous one; empty for a branch's first child. Usually a slice of the bytes the node was
    /// decoded from, so decoding does not copy it.
    var separator: ArraySlice<UInt8>
}
