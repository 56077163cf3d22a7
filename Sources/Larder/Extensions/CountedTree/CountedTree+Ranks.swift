/// The ranks of many keys at once.
///
/// A view's change report ranks every item a commit changed, before and after the commit; one
/// descent per key reads and parses the root and the branches below it once per key. Here each
/// node is read once for all the keys that pass through it.
extension CountedTree {
    /// The rank of each of `keys` (as ``rank(of:)`` gives it), in their order.
    ///
    /// - Precondition: `keys` are ascending (byte-wise); equal keys may repeat.
    /// - Throws: as ``rank(of:)``.
    /// - Complexity: one read of each node on the paths to the keys' leaves, plus a binary search
    ///   per key in each node it passes through.
    func ranks(ofSorted keys: [[UInt8]]) throws -> [Int] {
        var ranks = [Int](repeating: 0, count: keys.count)
        let header = try readHeader()
        guard header.root != 0, !keys.isEmpty else { return ranks }
        try rank(keys, keys.indices, under: header.root, height: header.height, before: 0, into: &ranks)
        return ranks
    }

    /// Ranks `keys[range]`, which all fall under node `id` (of `height` levels, 1 for a leaf),
    /// before which `before` keys of the tree lie.
    private func rank(_ keys: [[UInt8]], _ range: Range<Int>, under id: UInt64, height: Int, before: Int, into ranks: inout [Int]) throws {
        guard height > 1 else {
            try withLeaf(id) { node, _, slots in
                for position in range {
                    ranks[position] = before + keys[position].withUnsafeBufferPointer { CountedTreeNodeLayout.search($0, in: node, slots).index }
                }
            }
            return
        }
        // The children the keys fall in, with the keys of each and the keys left of each.
        var children: [(id: UInt64, range: Range<Int>, before: Int)] = []
        try withBranch(id) { node, slots in
            var rankBefore = before
            var passed = 0
            var start = range.lowerBound
            while start < range.upperBound {
                let child = keys[start].withUnsafeBufferPointer { CountedTreeNodeLayout.childIndex(for: $0, in: node, slots) }
                while passed < child {
                    rankBefore += slots[passed].count
                    passed += 1
                }
                var end = start + 1
                while end < range.upperBound,
                      keys[end].withUnsafeBufferPointer({ CountedTreeNodeLayout.childIndex(for: $0, in: node, slots) }) == child {
                    end += 1
                }
                children.append((slots[child].child, start..<end, rankBefore))
                start = end
            }
        }
        for child in children {
            try rank(keys, child.range, under: child.id, height: height - 1, before: child.before, into: &ranks)
        }
    }
}
