/// A part of a leaf that a batch merge writes (see `CountedTree.apply(sorted:)`): a run of the old
/// leaf's bytes, or the entry of one inserted key (by its position among the changes).
///
/// Not nested in the generic `CountedTree`, so that its metadata is never looked up at run time.
enum CountedTreeMergePiece {
    case copy(Range<Int>)
    case insert(Int)
}
