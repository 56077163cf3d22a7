/// Where the last run of a batch (``CountedTree/apply(sorted:)``) went in the tree's branches,
/// kept for the runs after it: the branches above its leaf, as they are now, and the entries of
/// the lowest one already parsed.
///
/// A batch's keys ascend, so most runs fall under the same lowest branch as the run before them
/// (at 100 k keys, a few hundred runs under each). A run that starts under the finger's branch
/// chooses its leaf there, without reading and parsing the branches again from the root.
///
/// Not nested in the generic `CountedTree`, for the reason `CountedTreeDescent` is not.
struct CountedTreeFinger {
    /// The branches from the root to the lowest one, as a descent keeps them (the child taken in
    /// the lowest is the last run's leaf; it is chosen again for each run).
    var path: [CountedTreeDescent.Step]
    /// The entries of the lowest branch, `path.last`, parsed from its current bytes.
    var slots: [CountedTreeNodeLayout.Slot]
    /// The keys in the leaves left of the lowest branch.
    var rankBeforeBranch: Int
    /// A strict upper bound of the keys below the lowest branch (`nil`: no bound, the last one).
    var upperBound: ArraySlice<UInt8>?

    /// Whether `key` lies below the lowest branch. Runs come in ascending order, so a key past
    /// the branch's lower bound is taken for granted.
    func holds(_ key: [UInt8]) -> Bool {
        guard let upperBound else { return true }
        return CountedTreeBytes.compare(key[...], upperBound) < 0
    }

    /// The finger of `descent`'s branches after its leaf was written and their counts patched
    /// in place; nil when the descent passed no branch.
    init?(_ descent: CountedTreeDescent) throws {
        guard let lowest = descent.path.last else { return nil }
        path = descent.path
        slots = try lowest.bytes.withUnsafeBufferPointer { node in
            try CountedTreeNodeLayout.withSlots(node, node: lowest.id) { _, _, slots in Array(slots) }
        }
        rankBeforeBranch = descent.rankBeforeLeaf
        for slot in slots[..<lowest.index] { rankBeforeBranch -= slot.count }
        // The lowest branch's own range: the bound the branches above it set.
        upperBound = CountedTreeDescent.upperBound(below: path.dropLast())
    }

    /// The descent to `key`'s leaf from the lowest branch (the leaf itself is for the caller to
    /// read): the branches above as they are, the child whose range holds `key` taken in it.
    /// - Precondition: ``holds(_:)``.
    func descent(to key: [UInt8]) -> CountedTreeDescent {
        var path = self.path
        let last = path.count - 1
        let index = key.withUnsafeBufferPointer { key in
            path[last].bytes.withUnsafeBufferPointer { node in
                slots.withUnsafeBufferPointer { CountedTreeNodeLayout.childIndex(for: key, in: node, $0) }
            }
        }
        let slot = slots[index]
        var rankBefore = rankBeforeBranch
        for left in slots[..<index] { rankBefore += left.count }
        path[last].index = index
        path[last].count = slot.count
        path[last].countField = slot.countField
        path[last].nextSeparator = index + 1 < slots.count ? slots[index + 1].bytes : nil
        var descent = CountedTreeDescent(path: path, leafID: slot.child)
        descent.rankBeforeLeaf = rankBefore
        return descent
    }
}
