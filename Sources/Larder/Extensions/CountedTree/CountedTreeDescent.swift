/// The branches passed on the way to a leaf, and where a key is in that leaf (the state of one
/// write's descent through a `CountedTree`).
///
/// Not nested in `CountedTree`: a type nested in a generic type is generic too, and its metadata
/// (and that of an array of its steps) was looked up at run time on every insert and remove,
/// about 7,000 instructions each (callgrind).
struct CountedTreeDescent {
    /// One branch passed: its id and bytes, and the child taken.
    struct Step {
        var id: UInt64
        var bytes: [UInt8]
        /// The index of the child taken, its count, and where that count lies in `bytes`.
        var index: Int
        var count: Int
        var countField: Range<Int>
        /// Where the next entry's separator lies in `bytes`, `nil` when the child taken is the last.
        var nextSeparator: Range<Int>?
    }

    /// Root first.
    var path: [Step] = []
    var leafID: UInt64
    var leafBytes: [UInt8] = []
    /// The number of keys in the leaf, and where its first entry begins.
    var leafCount = 0
    var bodyStart = 0
    /// The key's index in the leaf: where it is, or where it would be inserted.
    var index = 0
    var found = false
    /// Where the key's entry lies in `leafBytes`: empty, at the insertion point, when absent.
    var entry: Range<Int> = 0..<0
    /// The number of keys in the leaves left of this one.
    var rankBeforeLeaf = 0

    /// A strict upper bound of the keys the leaf may hold (the separator of the next entry in the
    /// lowest branch passed that has one), `nil` for the last leaf.
    var leafUpperBound: ArraySlice<UInt8>? { Self.upperBound(below: path[...]) }

    /// A strict upper bound of the keys below the child taken in the last of `steps` (the
    /// separator of the next entry in the lowest of them that has one), `nil` when none has.
    static func upperBound(below steps: ArraySlice<Step>) -> ArraySlice<UInt8>? {
        for step in steps.reversed() {
            if let range = step.nextSeparator { return step.bytes[range] }
        }
        return nil
    }
}
