/// A B+tree of distinct byte-string keys with subtree counts, so that rank ("how many keys come
/// before this one") and select ("which key is at this position") cost O(log n) node reads.
///
/// Keys are ordered byte-wise, as `memcmp` orders them, with a prefix before its extensions; the
/// empty key is the smallest. LMDB keeps its own B-tree without counts, so views that must answer
/// positional questions keep one of these in a database of their own (node id → node bytes).
///
/// ## Shape
///
/// Leaves hold up to ``fanout`` keys (64 by default) and branches up to ``fanout`` children. A node
/// that would hold one more splits into two halves; a root split adds a level. Every branch entry
/// carries its child's id, the number of keys below that child, and a *separator*: a lower bound
/// of the keys in that child and a strict upper bound of the keys in the child before it. The
/// first child's separator is always empty (the smallest key), so "the last child whose separator
/// is at most the key" finds the one child whose range holds any key. Separators are the shortest
/// prefix of the right half's first key that still exceeds the left half's last key, which keeps
/// branches small when keys share long prefixes. A removal never has to touch a separator: it only
/// bounds a range, whether or not the key it was cut from is still there.
///
/// ## Deletion
///
/// A node left with fewer than ``minimumFill`` entries (a quarter of the fanout) joins a sibling
/// when both fit in one node, and otherwise takes entries from it so that both are at least half
/// full. So every node but the root is at least a quarter full, and the height stays O(log n) in
/// the current size, however the tree got there. A root branch left with one child is replaced by
/// that child; the root leaf of an empty tree is removed, leaving only the header.
///
/// ## Node ids
///
/// Ids come from a counter in the header and are never reused: the ids are 64-bit, and reuse
/// would need a free list that costs a write per removal for no gain in space (LMDB reclaims the
/// pages of removed values itself).
///
/// ## Working on bytes
///
/// Nodes are not decoded into values on the common paths. Reads parse each node once, in place
/// (``CountedTreeNodeLayout``), and allocate nothing but the keys they return; an insert or removal
/// that leaves its leaf within bounds splices the leaf's bytes and patches one count in each
/// branch above it. Only splits and rebalancing decode nodes into ``CountedTreeNode`` values.
///
/// - Complexity: ``count()`` reads one node (the header). ``rank(of:)``, ``key(at:)`` and
///   ``contains(_:)`` read the header and one node per level. ``insert(_:)`` and ``remove(_:)`` read
///   the same, plus at most one sibling per level when a removal rebalances, and write only the
///   nodes they change: one per level and the header, plus the halves of a split.
struct CountedTree<Storage: CountedTreeStorage> {
    /// Where the nodes live.
    var storage: Storage
    /// The most keys a leaf, or children a branch, holds.
    let fanout: Int

    /// A tree over `storage` with the standard fanout of 64.
    init(storage: Storage) {
        self.init(storage: storage, fanout: 64)
    }

    /// A tree over `storage` whose nodes hold up to `fanout` entries.
    ///
    /// Tests use a small fanout to build deep trees from few keys. The fanout is not stored: every
    /// tree over one storage must use the same one, or ``checkStructure()`` reports the nodes that
    /// another fanout filled differently.
    init(storage: Storage, fanout: Int) {
        precondition((4...1024).contains(fanout), "CountedTree fanout must be within 4...1024, not \(fanout)")
        self.storage = storage
        self.fanout = fanout
    }

    /// The fewest entries a node other than the root keeps after a removal.
    ///
    /// A quarter rather than a half of the fanout leaves room between the fill a removal restores
    /// and the fill at which a node splits, so a key inserted and removed again at a node's limit
    /// does not split and join the node each time.
    var minimumFill: Int { fanout / 4 }


    // MARK: - Reading

    /// The number of keys.
    ///
    /// - Throws: `LarderError(.corruptValue)` when the header does not decode.
    /// - Complexity: O(1): one read.
    func count() throws -> Int {
        try readHeader().count
    }

    /// The number of levels: 0 when empty, 1 when the root is a leaf.
    ///
    /// - Throws: `LarderError(.corruptValue)` when the header does not decode.
    func height() throws -> Int {
        try readHeader().height
    }

    /// The number of keys strictly less than `key`, whether or not `key` is present.
    ///
    /// Contiguous collections (arrays, slices, buffers) are compared in place; others are copied
    /// into an array first.
    ///
    /// - Throws: `LarderError(.corruptValue)` when a node does not decode, `.corrupted` when the
    ///   nodes do not form a tree of the header's height.
    /// - Complexity: O(log n): the header and one node per level, parsed in place without
    ///   allocating.
    func rank(of key: some Collection<UInt8>) throws -> Int {
        if let rank = try key.withContiguousStorageIfAvailable({ try find($0).rank }) {
            return rank
        }
        return try Array(key).withUnsafeBufferPointer { try find($0).rank }
    }

    /// Whether `key` is present.
    ///
    /// - Throws: as ``rank(of:)``.
    /// - Complexity: O(log n).
    func contains(_ key: [UInt8]) throws -> Bool {
        try key.withUnsafeBufferPointer { try find($0).found }
    }

    /// The key at `rank` (0-based), or nil when `rank` is outside `0..<count()`.
    ///
    /// - Throws: as ``rank(of:)``.
    /// - Complexity: O(log n): the header and one node per level; the key is the only allocation
    ///   besides the storage's reads.
    func key(at rank: Int) throws -> [UInt8]? {
        let header = try readHeader()
        guard rank >= 0, rank < header.count else { return nil }
        var id = header.root
        var remaining = rank
        for _ in 1..<header.height {
            let branch = id
            (id, remaining) = try withBranch(branch) { _, slots in
                let (index, rankInChild) = try Self.locate(rank: remaining, in: slots, branch: branch)
                return (slots[index].child, rankInChild)
            }
        }
        return try withLeaf(id) { node, _, slots in
            guard remaining < slots.count else { throw Self.shortBranch(id) }
            return Array(UnsafeBufferPointer(rebasing: node[slots[remaining].bytes]))
        }
    }

    /// Up to `limit` keys starting at `rank` and going forward, or backward (`rank`, `rank - 1`,
    /// …) when `reversed`. Empty when `rank` is outside `0..<count()` or `limit` is not positive.
    ///
    /// - Throws: as ``rank(of:)``.
    /// - Complexity: O(log n + limit): the path to the first key, then each further leaf once,
    ///   stepping through the branches above it (branches are re-read only when the walk moves
    ///   on to another branch).
    func keys(from rank: Int, limit: Int, reversed: Bool) throws -> [[UInt8]] {
        let header = try readHeader()
        guard limit > 0, rank >= 0, rank < header.count else { return [] }
        let available = reversed ? rank + 1 : header.count - rank
        var result: [[UInt8]] = []
        result.reserveCapacity(min(limit, available, 4096))

        // The branches above the current leaf: their children's ids, and the index of the child
        // taken.
        var path: [(children: [UInt64], index: Int)] = []
        var id = header.root
        var position = rank
        for _ in 1..<header.height {
            let branch = id
            let (children, index, rankInChild) = try withBranch(branch) { _, slots in
                let (index, rankInChild) = try Self.locate(rank: position, in: slots, branch: branch)
                return (slots.map(\.child), index, rankInChild)
            }
            path.append((children, index))
            id = children[index]
            position = rankInChild
        }
        // The first leaf starts at `position`, which it must hold; the others at their edge.
        var start: Int? = position

        while true {
            try withLeaf(id) { node, _, slots in
                var position = start ?? (reversed ? slots.count - 1 : 0)
                guard position < slots.count else { throw Self.shortBranch(id) }
                while position >= 0, position < slots.count, result.count < limit {
                    result.append(Array(UnsafeBufferPointer(rebasing: node[slots[position].bytes])))
                    position += reversed ? -1 : 1
                }
            }
            if result.count == limit { break }

            // Climb to the nearest branch with another child in the direction of travel…
            while let last = path.last, reversed ? last.index == 0 : last.index + 1 == last.children.count {
                path.removeLast()
            }
            guard !path.isEmpty else { break }
            path[path.count - 1].index += reversed ? -1 : 1
            id = path[path.count - 1].children[path[path.count - 1].index]
            // …then down to that child's nearest leaf.
            while path.count < header.height - 1 {
                let children = try withBranch(id) { _, slots in slots.map(\.child) }
                let index = reversed ? children.count - 1 : 0
                path.append((children, index))
                id = children[index]
            }
            start = nil
        }
        return result
    }

    /// The rank of `key` (the keys left of its leaf plus those before it in the leaf), and
    /// whether it is present.
    private func find(_ key: UnsafeBufferPointer<UInt8>) throws -> (rank: Int, found: Bool) {
        let header = try readHeader()
        guard header.root != 0 else { return (0, false) }
        var id = header.root
        var rankBeforeLeaf = 0
        for _ in 1..<header.height {
            let choice = try withBranch(id) { node, slots in Self.choose(key, in: node, slots) }
            rankBeforeLeaf += choice.rankBefore
            id = choice.child
        }
        let (index, found) = try withLeaf(id) { node, _, slots in CountedTreeNodeLayout.search(key, in: node, slots) }
        return (rankBeforeLeaf + index, found)
    }
}

/// A tree is a storage handle and a number, so it crosses threads whenever its storage can.
extension CountedTree: Sendable where Storage: Sendable {}
