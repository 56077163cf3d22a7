#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a counted tree keeps its nodes: bytes by node id.
///
/// Node id 0 is reserved for the tree's header (root id, height, count, next free id), which the
/// tree writes itself. The tree never holds on to bytes a storage returns across a write: it
/// decodes what it needs into values it owns first, so a storage may hand out copies of pages that
/// a later write invalidates.
///
/// Removing a node that is not stored is not an error.
protocol CountedTreeStorage {
    /// The bytes of node `id`, or nil when there is no such node.
    func node(_ id: UInt64) throws -> [UInt8]?
    /// Stores `bytes` as node `id`, replacing what was there.
    func setNode(_ id: UInt64, _ bytes: [UInt8]) throws
    /// Removes node `id`; does nothing when it is absent.
    func removeNode(_ id: UInt64) throws
    /// Every stored node id, the header's included, or nil when the storage cannot list them.
    ///
    /// Only ``CountedTree/checkStructure()`` (to find nodes that nothing references) and
    /// ``CountedTree/removeAll()`` (to clear a tree even when its structure is damaged) use it;
    /// the default answers nil.
    func nodeIDs() throws -> [UInt64]?
}

extension CountedTreeStorage {
    func nodeIDs() throws -> [UInt64]? { nil }
}

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
    /// - Complexity: O(log n): the header and one node per level.
    func rank(of key: some Collection<UInt8>) throws -> Int {
        if let rank = try key.withContiguousStorageIfAvailable({ try rank(ofKeyIn: $0) }) {
            return rank
        }
        return try Array(key).withUnsafeBufferPointer { try rank(ofKeyIn: $0) }
    }

    /// Whether `key` is present.
    ///
    /// - Throws: as ``rank(of:)``.
    /// - Complexity: O(log n).
    func contains(_ key: [UInt8]) throws -> Bool {
        let header = try readHeader()
        guard header.root != 0 else { return false }
        return try key.withUnsafeBufferPointer { key in
            let descent = try descend(to: key, header: header, recordingPath: false)
            return CountedTreeNode.search(key, in: descent.keys).found
        }
    }

    /// The key at `rank` (0-based), or nil when `rank` is outside `0..<count()`.
    ///
    /// - Throws: as ``rank(of:)``.
    /// - Complexity: O(log n): the header and one node per level.
    func key(at rank: Int) throws -> [UInt8]? {
        let header = try readHeader()
        guard rank >= 0, rank < header.count else { return nil }
        var id = header.root
        var remaining = rank
        for _ in 1..<header.height {
            let children = try readBranch(id)
            let (index, rankInChild) = try locate(rank: remaining, in: children, branch: id)
            id = children[index].id
            remaining = rankInChild
        }
        let keys = try readLeaf(id)
        guard remaining < keys.count else { throw Self.shortBranch(id) }
        return Array(keys[remaining])
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

        // The branches above the current leaf, each with the index of the child taken.
        var path: [(children: [CountedTreeChild], index: Int)] = []
        var id = header.root
        var position = rank
        for _ in 1..<header.height {
            let children = try readBranch(id)
            let (index, rankInChild) = try locate(rank: position, in: children, branch: id)
            path.append((children, index))
            id = children[index].id
            position = rankInChild
        }
        var keys = try readLeaf(id)
        guard position < keys.count else { throw Self.shortBranch(id) }

        while true {
            if reversed {
                while position >= 0, result.count < limit {
                    result.append(Array(keys[position]))
                    position -= 1
                }
            } else {
                while position < keys.count, result.count < limit {
                    result.append(Array(keys[position]))
                    position += 1
                }
            }
            if result.count == limit { break }

            // Climb to the nearest branch with another child in the direction of travel…
            while let last = path.last, reversed ? last.index == 0 : last.index + 1 == last.children.count {
                path.removeLast()
            }
            guard !path.isEmpty else { break }
            path[path.count - 1].index += reversed ? -1 : 1
            id = path[path.count - 1].children[path[path.count - 1].index].id
            // …then down to that child's nearest leaf.
            while path.count < header.height - 1 {
                let children = try readBranch(id)
                let index = reversed ? children.count - 1 : 0
                path.append((children, index))
                id = children[index].id
            }
            keys = try readLeaf(id)
            position = reversed ? keys.count - 1 : 0
        }
        return result
    }

    // MARK: - Writing

    /// Inserts `key`; returns its rank (the number of keys before it) after the insertion, or nil
    /// when it was already present, and then nothing changes.
    ///
    /// - Throws: as ``rank(of:)``, and whatever the storage throws on a write. After a throw the
    ///   tree may be partly updated; run it inside a transaction that the throw rolls back.
    /// - Complexity: O(log n): one read and one write per level, plus the header.
    @discardableResult
    func insert(_ key: [UInt8]) throws -> Int? {
        var header = try readHeader()
        guard header.root != 0 else {
            let id = header.allocateID()
            try storage.setNode(id, CountedTreeNode.leaf(keys: [key[...]]).encoded())
            header.root = id
            header.height = 1
            header.count = 1
            try writeHeader(header)
            return 0
        }
        var descent = try key.withUnsafeBufferPointer { try descend(to: $0, header: header, recordingPath: true) }
        let (index, found) = key.withUnsafeBufferPointer { CountedTreeNode.search($0, in: descent.keys) }
        guard !found else { return nil }

        var keys = descent.keys
        keys.insert(key[...], at: index)
        var pending = CountedTreeNode.leaf(keys: keys)
        var pendingID = descent.leafID
        // Write the changed node of each level, bottom up; a split hands its right half to the
        // level above, and a split root gets a new root above it.
        while true {
            let (count, split) = try store(pending, as: pendingID, header: &header)
            guard let step = descent.path.popLast() else {
                if let split {
                    let rootID = header.allocateID()
                    let left = CountedTreeChild(id: pendingID, count: count, separator: [])
                    try storage.setNode(rootID, CountedTreeNode.branch(children: [left, split]).encoded())
                    header.root = rootID
                    header.height += 1
                }
                break
            }
            var children = step.children
            children[step.index].count = count
            if let split { children.insert(split, at: step.index + 1) }
            pending = .branch(children: children)
            pendingID = step.id
        }
        header.count += 1
        try writeHeader(header)
        return descent.rankBeforeLeaf + index
    }

    /// Removes `key`; returns the rank it had, or nil when it was absent.
    ///
    /// - Throws: as ``insert(_:)``.
    /// - Complexity: O(log n): per level one read and one write, and when the node there fell
    ///   below ``minimumFill``, one more read and up to one more write or removal for a sibling.
    @discardableResult
    func remove(_ key: [UInt8]) throws -> Int? {
        var header = try readHeader()
        guard header.root != 0 else { return nil }
        var descent = try key.withUnsafeBufferPointer { try descend(to: $0, header: header, recordingPath: true) }
        let (index, found) = key.withUnsafeBufferPointer { CountedTreeNode.search($0, in: descent.keys) }
        guard found else { return nil }
        guard header.count > 0 else {
            throw LarderError(.corrupted, "counted tree header counts no keys, yet leaf \(descent.leafID) holds one")
        }

        var keys = descent.keys
        keys.remove(at: index)
        var pending = CountedTreeNode.leaf(keys: keys)
        var pendingID = descent.leafID
        while let step = descent.path.popLast() {
            var children = step.children
            try settle(pending, as: pendingID, at: step.index, in: &children)
            pending = .branch(children: children)
            pendingID = step.id
        }
        try storeRoot(pending, as: pendingID, header: &header)
        header.count -= 1
        try writeHeader(header)
        return descent.rankBeforeLeaf + index
    }

    /// Removes every key and node, the header included.
    ///
    /// When the storage lists its node ids, they are removed without reading a node, so this
    /// also clears a tree whose structure is damaged.
    ///
    /// - Throws: as ``insert(_:)``.
    /// - Complexity: O(n / fanout) removals, and reads of every branch when the storage cannot
    ///   list its ids.
    func removeAll() throws {
        if let ids = try storage.nodeIDs() {
            for id in ids { try storage.removeNode(id) }
            return
        }
        let header = try readHeader()
        if header.root != 0 {
            try removeSubtree(header.root, height: header.height)
        }
        try storage.removeNode(CountedTreeHeader.id)
    }

    // MARK: - Checking

    /// Checks every invariant, and throws on the first one that does not hold.
    ///
    /// It checks that keys ascend within leaves and stay within the bounds that the separators
    /// above them set; that separators ascend and the first one is empty; that every subtree
    /// count equals the keys below it and the header's count equals them all; that all leaves are
    /// at the header's height; that nodes hold at most ``fanout`` entries, and at least
    /// ``minimumFill`` except the root; that no node is referenced twice or lies outside the ids
    /// handed out; and, when the storage lists its ids, that every stored node is reachable.
    ///
    /// - Throws: `LarderError(.corrupted)` naming the first violation, `.corruptValue` when a node
    ///   does not decode.
    /// - Complexity: O(n): reads every node.
    func checkStructure() throws {
        guard let headerBytes = try storage.node(CountedTreeHeader.id) else {
            if let ids = try storage.nodeIDs(), let stray = ids.first {
                throw LarderError(.corrupted, "counted tree has no header, yet stores node \(stray)")
            }
            return
        }
        let header = try CountedTreeHeader(decoding: headerBytes)
        var visited = Set<UInt64>()
        var total = 0
        if header.root != 0 {
            total = try checkSubtree(header.root, depth: 0, header: header, lower: nil, upper: nil, visited: &visited)
        }
        guard total == header.count else {
            throw LarderError(.corrupted, "counted tree header counts \(header.count) keys, but its leaves hold \(total)")
        }
        if let ids = try storage.nodeIDs() {
            for id in ids where id != CountedTreeHeader.id && !visited.contains(id) {
                throw LarderError(.corrupted, "counted tree stores node \(id), which no branch references")
            }
        }
    }

    /// Checks the subtree under node `id` (see ``checkStructure()``) and returns its key count.
    ///
    /// - Parameters:
    ///   - lower: the inclusive lower bound of its keys, nil on the leftmost path.
    ///   - upper: the exclusive upper bound of its keys, nil on the rightmost path.
    private func checkSubtree(
        _ id: UInt64, depth: Int, header: CountedTreeHeader,
        lower: ArraySlice<UInt8>?, upper: ArraySlice<UInt8>?, visited: inout Set<UInt64>
    ) throws -> Int {
        guard id != CountedTreeHeader.id, id < header.nextID else {
            throw LarderError(.corrupted, "counted tree references node \(id), outside the ids handed out (below \(header.nextID))")
        }
        guard visited.insert(id).inserted else {
            throw LarderError(.corrupted, "counted tree references node \(id) twice")
        }
        let node = try readNode(id)
        let isRoot = depth == 0
        guard node.entryCount <= fanout else {
            throw LarderError(.corrupted, "counted tree node \(id) holds \(node.entryCount) entries, more than \(fanout)")
        }
        guard isRoot || node.entryCount >= minimumFill else {
            throw LarderError(.corrupted, "counted tree node \(id) holds \(node.entryCount) entries, fewer than \(minimumFill)")
        }

        switch node {
        case .leaf(let keys):
            guard depth == header.height - 1 else {
                throw LarderError(.corrupted, "counted tree leaf \(id) is at depth \(depth) of a tree of height \(header.height)")
            }
            guard !keys.isEmpty else {
                throw LarderError(.corrupted, "counted tree leaf \(id) is empty")
            }
            for index in 1..<keys.count where CountedTreeBytes.compare(keys[index - 1], keys[index]) >= 0 {
                throw LarderError(.corrupted, "counted tree leaf \(id) does not ascend at entry \(index)")
            }
            if let lower, CountedTreeBytes.compare(keys[0], lower) < 0 {
                throw LarderError(.corrupted, "counted tree leaf \(id) holds a key below its separator")
            }
            if let upper, CountedTreeBytes.compare(keys[keys.count - 1], upper) >= 0 {
                throw LarderError(.corrupted, "counted tree leaf \(id) holds a key at or above the next separator")
            }
            return keys.count

        case .branch(let children):
            guard depth < header.height - 1 else {
                throw LarderError(.corrupted, "counted tree branch \(id) is at leaf depth \(depth) of a tree of height \(header.height)")
            }
            guard children.count >= (isRoot ? 2 : 1) else {
                throw LarderError(.corrupted, "counted tree branch \(id) has \(children.count) children")
            }
            guard children[0].separator.isEmpty else {
                throw LarderError(.corrupted, "counted tree branch \(id) has a non-empty first separator")
            }
            var total = 0
            for (index, child) in children.enumerated() {
                var childLower = lower
                if index > 0 {
                    if index > 1, CountedTreeBytes.compare(children[index - 1].separator, child.separator) >= 0 {
                        throw LarderError(.corrupted, "counted tree branch \(id) has separators that do not ascend at entry \(index)")
                    }
                    if let lower, CountedTreeBytes.compare(child.separator, lower) <= 0 {
                        throw LarderError(.corrupted, "counted tree branch \(id) has a separator at or below its own lower bound")
                    }
                    if let upper, CountedTreeBytes.compare(child.separator, upper) >= 0 {
                        throw LarderError(.corrupted, "counted tree branch \(id) has a separator at or above its own upper bound")
                    }
                    childLower = child.separator
                }
                let childUpper = index + 1 < children.count ? children[index + 1].separator : upper
                let actual = try checkSubtree(
                    child.id, depth: depth + 1, header: header, lower: childLower, upper: childUpper, visited: &visited)
                guard actual == child.count else {
                    throw LarderError(
                        .corrupted, "counted tree branch \(id) counts \(child.count) keys under child \(child.id), which holds \(actual)")
                }
                total += actual
            }
            return total
        }
    }

    // MARK: - Private

    /// The branches passed on the way to a leaf, and the leaf.
    private struct Descent {
        /// One branch passed: its id, its entries, and the index of the child taken.
        struct Step {
            var id: UInt64
            var children: [CountedTreeChild]
            var index: Int
        }

        /// Root first; empty unless recorded.
        var path: [Step] = []
        var leafID: UInt64
        var keys: [ArraySlice<UInt8>] = []
        /// The number of keys in the leaves left of this one.
        var rankBeforeLeaf = 0
    }

    /// Follows `key` from the root to the leaf whose range holds it, adding up the counts of the
    /// subtrees passed on the left. Records the branches passed when a write will rebuild them.
    ///
    /// - Precondition: the tree is not empty (`header.root != 0`).
    private func descend(to key: UnsafeBufferPointer<UInt8>, header: CountedTreeHeader, recordingPath: Bool) throws -> Descent {
        var descent = Descent(leafID: header.root)
        if recordingPath { descent.path.reserveCapacity(header.height) }
        for _ in 1..<header.height {
            let children = try readBranch(descent.leafID)
            let index = CountedTreeNode.childIndex(for: key, in: children)
            for child in children[..<index] { descent.rankBeforeLeaf += child.count }
            if recordingPath { descent.path.append(Descent.Step(id: descent.leafID, children: children, index: index)) }
            descent.leafID = children[index].id
        }
        descent.keys = try readLeaf(descent.leafID)
        return descent
    }

    /// The rank of `key`: the keys left of its leaf plus those before it in the leaf.
    private func rank(ofKeyIn key: UnsafeBufferPointer<UInt8>) throws -> Int {
        let header = try readHeader()
        guard header.root != 0 else { return 0 }
        let descent = try descend(to: key, header: header, recordingPath: false)
        return descent.rankBeforeLeaf + CountedTreeNode.search(key, in: descent.keys).index
    }

    /// The child of a branch that holds the key at `rank` within the branch, and that key's rank
    /// within the child.
    private func locate(rank: Int, in children: [CountedTreeChild], branch id: UInt64) throws -> (index: Int, rank: Int) {
        var remaining = rank
        for (index, child) in children.enumerated() {
            if remaining < child.count { return (index, remaining) }
            remaining -= child.count
        }
        throw Self.shortBranch(id)
    }

    /// Writes `node` as node `id`, first splitting it in two when it holds more than ``fanout``
    /// entries. Returns the key count left under `id` and, after a split, the entry the parent
    /// needs for the new right half.
    private func store(
        _ node: CountedTreeNode, as id: UInt64, header: inout CountedTreeHeader
    ) throws -> (count: Int, split: CountedTreeChild?) {
        guard node.entryCount > fanout else {
            try storage.setNode(id, node.encoded())
            return (node.subtreeCount, nil)
        }
        let (left, right, separator) = node.split(at: node.entryCount / 2)
        let rightID = header.allocateID()
        try storage.setNode(id, left.encoded())
        try storage.setNode(rightID, right.encoded())
        return (left.subtreeCount, CountedTreeChild(id: rightID, count: right.subtreeCount, separator: separator))
    }

    /// Writes `node`, which lost an entry and is entry `index` of its parent's `children`, and
    /// updates `children` to match.
    ///
    /// When the node fell below ``minimumFill`` and has a sibling, the two become one node when
    /// their entries fit in one (the right one is removed), or else share their entries evenly
    /// (the right one's separator moves). Either way each node written is at least a quarter full.
    private func settle(_ node: CountedTreeNode, as id: UInt64, at index: Int, in children: inout [CountedTreeChild]) throws {
        guard node.entryCount < minimumFill, children.count > 1 else {
            if node.entryCount == 0 {
                // An only child that emptied: the parent empties too, and its parent deals with it.
                try storage.removeNode(id)
                children.remove(at: index)
            } else {
                try storage.setNode(id, node.encoded())
                children[index].count = node.subtreeCount
            }
            return
        }

        let leftIndex = index > 0 ? index - 1 : index
        let rightIndex = leftIndex + 1
        let sibling = try readNode(children[index > 0 ? leftIndex : rightIndex].id)
        let (left, right) = index > 0 ? (sibling, node) : (node, sibling)
        guard let joined = left.joined(with: right, separator: children[rightIndex].separator) else {
            throw LarderError(
                .corrupted, "counted tree nodes \(children[leftIndex].id) and \(children[rightIndex].id) are siblings of different kinds")
        }

        if joined.entryCount <= fanout {
            try storage.setNode(children[leftIndex].id, joined.encoded())
            try storage.removeNode(children[rightIndex].id)
            children[leftIndex].count = joined.subtreeCount
            children.remove(at: rightIndex)
        } else {
            let (newLeft, newRight, separator) = joined.split(at: joined.entryCount / 2)
            try storage.setNode(children[leftIndex].id, newLeft.encoded())
            try storage.setNode(children[rightIndex].id, newRight.encoded())
            children[leftIndex].count = newLeft.subtreeCount
            children[rightIndex].count = newRight.subtreeCount
            children[rightIndex].separator = separator
        }
    }

    /// Writes the root after a removal, shrinking the tree where it can: an empty root goes (the
    /// tree is empty), and a root branch with one child gives way to that child, as many levels
    /// down as that holds.
    private func storeRoot(_ node: CountedTreeNode, as id: UInt64, header: inout CountedTreeHeader) throws {
        guard case .branch(let children) = node, children.count == 1 else {
            if node.entryCount == 0 {
                try storage.removeNode(id)
                header.root = 0
                header.height = 0
            } else {
                try storage.setNode(id, node.encoded())
            }
            return
        }
        // The child is stored already; only the levels above it go.
        try storage.removeNode(id)
        var root = children[0].id
        header.height -= 1
        while header.height > 1, case .branch(let grandchildren) = try readNode(root), grandchildren.count == 1 {
            try storage.removeNode(root)
            root = grandchildren[0].id
            header.height -= 1
        }
        header.root = root
    }

    /// Removes node `id` and, when it is a branch (`height > 1`), everything below it.
    private func removeSubtree(_ id: UInt64, height: Int) throws {
        if height > 1 {
            for child in try readBranch(id) {
                try removeSubtree(child.id, height: height - 1)
            }
        }
        try storage.removeNode(id)
    }

    /// The header, or a fresh one when the tree has never been written.
    private func readHeader() throws -> CountedTreeHeader {
        guard let bytes = try storage.node(CountedTreeHeader.id) else { return CountedTreeHeader() }
        return try CountedTreeHeader(decoding: bytes)
    }

    private func writeHeader(_ header: CountedTreeHeader) throws {
        try storage.setNode(CountedTreeHeader.id, header.encoded())
    }

    /// Node `id`, which a branch or the header references, so its absence is damage.
    private func readNode(_ id: UInt64) throws -> CountedTreeNode {
        guard id != CountedTreeHeader.id, let bytes = try storage.node(id) else {
            throw LarderError(.corrupted, "counted tree node \(id) is referenced but not stored")
        }
        return try CountedTreeNode(decoding: bytes, id: id)
    }

    /// The keys of leaf `id`, which the tree's height says is a leaf.
    private func readLeaf(_ id: UInt64) throws -> [ArraySlice<UInt8>] {
        guard case .leaf(let keys) = try readNode(id) else {
            throw LarderError(.corrupted, "counted tree node \(id) is a branch where the tree's height puts a leaf")
        }
        return keys
    }

    /// The entries of branch `id`, which the tree's height says is a branch; never empty.
    private func readBranch(_ id: UInt64) throws -> [CountedTreeChild] {
        guard case .branch(let children) = try readNode(id) else {
            throw LarderError(.corrupted, "counted tree node \(id) is a leaf where the tree's height puts a branch")
        }
        guard !children.isEmpty else {
            throw LarderError(.corrupted, "counted tree branch \(id) has no children")
        }
        return children
    }

    /// The error for a node that holds fewer keys than the count its parent keeps for it.
    private static func shortBranch(_ id: UInt64) -> LarderError {
        LarderError(.corrupted, "counted tree node \(id) holds fewer keys than its parent counts")
    }
}

/// A tree is a storage handle and a number, so it crosses threads whenever its storage can.
extension CountedTree: Sendable where Storage: Sendable {}

// MARK: - Header

/// Node 0 of a counted tree: where the root is, and what is known about the whole tree without
/// reading it.
///
/// Format: a version byte (1), then four LEB128 varints: root id (0 when empty), height (0 when
/// empty, 1 when the root is a leaf), key count, and the next node id to hand out.
struct CountedTreeHeader: Equatable {
    /// The node id the header is stored under.
    static let id: UInt64 = 0
    static let formatVersion: UInt8 = 1
    /// More levels than any real tree has (a fanout-4 tree of this height holds 4^40 keys); a
    /// header claiming more is damaged, and would make descents loop that long.
    static let maximumHeight = 40

    var root: UInt64 = 0
    var height = 0
    var count = 0
    var nextID: UInt64 = 1

    /// The header of a tree never written.
    init() {}

    /// Decodes a stored header.
    ///
    /// - Throws: `LarderError(.corruptValue)` when the bytes are not a header, or one whose fields
    ///   contradict each other (a root without height, a count without root).
    init(decoding bytes: [UInt8]) throws {
        self = try bytes.withUnsafeBufferPointer { buffer in
            var reader = CountedTreeByteReader(buffer, node: nil)
            guard try reader.byte() == Self.formatVersion else { throw reader.malformed("has an unknown version") }
            var header = CountedTreeHeader()
            header.root = try reader.varint()
            header.height = try reader.int(upTo: Self.maximumHeight)
            header.count = try reader.int(upTo: CountedTreeByteReader.maximumCount)
            header.nextID = try reader.varint()
            try reader.expectEnd()
            guard (header.root == 0) == (header.height == 0), header.root != 0 || header.count == 0,
                  header.root < header.nextID else {
                throw reader.malformed("has fields that contradict each other")
            }
            return header
        }
    }

    func encoded() -> [UInt8] {
        let fields = [root, UInt64(height), UInt64(count), nextID]
        var size = 1
        for field in fields { size += CountedTreeByteWriter.varintSize(field) }
        return CountedTreeByteWriter.bytes(count: size) { writer in
            writer.put(Self.formatVersion)
            for field in fields { writer.putVarint(field) }
        }
    }

    /// Hands out a fresh node id.
    mutating func allocateID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }
}

// MARK: - Nodes

/// One entry of a branch: a child, the number of keys below it, and its separator.
struct CountedTreeChild: Equatable {
    var id: UInt64
    var count: Int
    /// A lower bound of the keys below this child and a strict upper bound of those below the
    /// previous one; empty for a branch's first child. Usually a slice of the bytes the node was
    /// decoded from, so decoding does not copy it.
    var separator: ArraySlice<UInt8>
}

/// A decoded node: a leaf's keys or a branch's children.
///
/// Keys and separators are slices of the bytes read from storage, so decoding a node allocates
/// only its entry array, and keys are compared where they lie.
///
/// Format: a kind byte (1 leaf, 2 branch), the number of entries as a LEB128 varint, then the
/// entries. A leaf entry is a key: its length as a varint, then its bytes. A branch entry is the
/// child's id and key count as varints, then the separator as a length and bytes (the first
/// separator is always empty, so it costs one byte).
enum CountedTreeNode: Equatable {
    case leaf(keys: [ArraySlice<UInt8>])
    case branch(children: [CountedTreeChild])

    static let leafKind: UInt8 = 1
    static let branchKind: UInt8 = 2

    /// Decodes node `id` (the id only names it in errors).
    ///
    /// - Throws: `LarderError(.corruptValue)` when the bytes are truncated, have an unknown kind,
    ///   claim more entries or longer keys than they hold, or have bytes left over.
    init(decoding bytes: [UInt8], id: UInt64) throws {
        self = try bytes.withUnsafeBufferPointer { buffer in
            var reader = CountedTreeByteReader(buffer, node: id)
            let kind = try reader.byte()
            // Every entry takes at least one byte, so a count beyond the bytes left is damage,
            // caught before it sizes an allocation.
            let entryCount = try reader.int(upTo: reader.remaining)
            let node: CountedTreeNode
            switch kind {
            case Self.leafKind:
                var keys: [ArraySlice<UInt8>] = []
                keys.reserveCapacity(entryCount)
                for _ in 0..<entryCount {
                    keys.append(bytes[try reader.skip(try reader.int(upTo: reader.remaining))])
                }
                node = .leaf(keys: keys)
            case Self.branchKind:
                var children: [CountedTreeChild] = []
                children.reserveCapacity(entryCount)
                for _ in 0..<entryCount {
                    let child = try reader.varint()
                    let count = try reader.int(upTo: CountedTreeByteReader.maximumCount)
                    let separator = bytes[try reader.skip(try reader.int(upTo: reader.remaining))]
                    children.append(CountedTreeChild(id: child, count: count, separator: separator))
                }
                node = .branch(children: children)
            default:
                throw reader.malformed("has unknown kind \(kind)")
            }
            try reader.expectEnd()
            return node
        }
    }

    func encoded() -> [UInt8] {
        switch self {
        case .leaf(let keys):
            var size = 1 + CountedTreeByteWriter.varintSize(UInt64(keys.count))
            for key in keys { size += CountedTreeByteWriter.varintSize(UInt64(key.count)) + key.count }
            return CountedTreeByteWriter.bytes(count: size) { writer in
                writer.put(Self.leafKind)
                writer.putVarint(UInt64(keys.count))
                for key in keys {
                    writer.putVarint(UInt64(key.count))
                    writer.put(key)
                }
            }
        case .branch(let children):
            var size = 1 + CountedTreeByteWriter.varintSize(UInt64(children.count))
            for child in children {
                size += CountedTreeByteWriter.varintSize(child.id) + CountedTreeByteWriter.varintSize(UInt64(child.count))
                size += CountedTreeByteWriter.varintSize(UInt64(child.separator.count)) + child.separator.count
            }
            return CountedTreeByteWriter.bytes(count: size) { writer in
                writer.put(Self.branchKind)
                writer.putVarint(UInt64(children.count))
                for child in children {
                    writer.putVarint(child.id)
                    writer.putVarint(UInt64(child.count))
                    writer.putVarint(UInt64(child.separator.count))
                    writer.put(child.separator)
                }
            }
        }
    }

    /// Keys in a leaf, children in a branch.
    var entryCount: Int {
        switch self {
        case .leaf(let keys): keys.count
        case .branch(let children): children.count
        }
    }

    /// The number of keys in the subtree: what the parent's entry counts.
    var subtreeCount: Int {
        switch self {
        case .leaf(let keys):
            return keys.count
        case .branch(let children):
            var total = 0
            for child in children { total += child.count }
            return total
        }
    }

    /// The node cut before entry `index` (which must be within `1..<entryCount`), and the
    /// separator the parent keeps for the right part.
    func split(at index: Int) -> (left: CountedTreeNode, right: CountedTreeNode, separator: ArraySlice<UInt8>) {
        switch self {
        case .leaf(let keys):
            let separator = CountedTreeBytes.shortestSeparator(after: keys[index - 1], upTo: keys[index])
            return (.leaf(keys: Array(keys[..<index])), .leaf(keys: Array(keys[index...])), separator)
        case .branch(var children):
            // The right part's first separator moves up to the parent; within the part, its first
            // child needs no lower bound.
            let separator = children[index].separator
            children[index].separator = []
            return (.branch(children: Array(children[..<index])), .branch(children: Array(children[index...])), separator)
        }
    }

    /// This node's entries followed by those of `right`, its right sibling, whose separator in the
    /// parent is `separator`; nil when the two are of different kinds.
    func joined(with right: CountedTreeNode, separator: ArraySlice<UInt8>) -> CountedTreeNode? {
        switch (self, right) {
        case (.leaf(let leftKeys), .leaf(let rightKeys)):
            return .leaf(keys: leftKeys + rightKeys)
        case (.branch(let leftChildren), .branch(var rightChildren)):
            // The right node's first child gets its lower bound back from the parent, and the
            // joined node's first child (the right one's, when the left is empty) needs none.
            if !rightChildren.isEmpty { rightChildren[0].separator = separator }
            var children = leftChildren + rightChildren
            if !children.isEmpty { children[0].separator = [] }
            return .branch(children: children)
        default:
            return nil
        }
    }

    /// Where `key` is in the ascending `keys`: its index when found, else the index it would be
    /// inserted at (the number of keys less than it).
    static func search(_ key: UnsafeBufferPointer<UInt8>, in keys: [ArraySlice<UInt8>]) -> (index: Int, found: Bool) {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = low + (high - low) / 2
            let order = CountedTreeBytes.compare(keys[middle], key)
            if order < 0 {
                low = middle + 1
            } else if order > 0 {
                high = middle
            } else {
                return (middle, true)
            }
        }
        return (low, false)
    }

    /// The index of the child whose range holds `key`: the last one whose separator is at most
    /// `key` (the first child's empty separator is at most every key).
    static func childIndex(for key: UnsafeBufferPointer<UInt8>, in children: [CountedTreeChild]) -> Int {
        var low = 1
        var high = children.count
        while low < high {
            let middle = low + (high - low) / 2
            if CountedTreeBytes.compare(children[middle].separator, key) <= 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low - 1
    }
}

// MARK: - Bytes

/// The byte order counted tree keys follow, and the separators cut from them.
enum CountedTreeBytes {
    /// Compares as `memcmp` does, a prefix first: negative, zero or positive.
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let shared = min(a.count, b.count)
        if shared > 0, let left = a.baseAddress, let right = b.baseAddress {
            let order = memcmp(left, right, shared)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    static func compare(_ a: ArraySlice<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        a.withUnsafeBufferPointer { compare($0, b) }
    }

    static func compare(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int {
        a.withUnsafeBufferPointer { left in b.withUnsafeBufferPointer { compare(left, $0) } }
    }

    /// The shortest prefix of `right` that is greater than `left`, given `left < right`: a
    /// separator between the two that is often much shorter than either key.
    static func shortestSeparator(after left: ArraySlice<UInt8>, upTo right: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var shared = 0
        while shared < left.count, shared < right.count,
              left[left.startIndex + shared] == right[right.startIndex + shared] {
            shared += 1
        }
        return right.prefix(shared + 1)
    }
}

/// Reads the fields of a stored node or header in place, throwing `LarderError(.corruptValue)`
/// on anything that does not fit, never trapping.
struct CountedTreeByteReader {
    /// Larger than any real key count; keeps sums of counts along any path far from overflow.
    static let maximumCount = 1 << 48

    private let buffer: UnsafeBufferPointer<UInt8>
    /// The node read, for error messages; nil for the header.
    private let node: UInt64?
    private(set) var offset = 0

    init(_ buffer: UnsafeBufferPointer<UInt8>, node: UInt64?) {
        self.buffer = buffer
        self.node = node
    }

    var remaining: Int { buffer.count - offset }

    func malformed(_ problem: String) -> LarderError {
        LarderError(.corruptValue, (node.map { "counted tree node \($0)" } ?? "counted tree header") + " " + problem)
    }

    mutating func byte() throws -> UInt8 {
        guard offset < buffer.count else { throw malformed("is truncated") }
        offset += 1
        return buffer[offset - 1]
    }

    /// An unsigned LEB128 varint: seven bits a byte, low bits first, high bit set on all but the
    /// last byte.
    mutating func varint() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < buffer.count {
            let byte = buffer[offset]
            offset += 1
            guard shift < 63 || byte <= 1 else { throw malformed("has a varint that overflows 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        throw malformed("is truncated")
    }

    /// A varint that must be at most `limit`, as an `Int`.
    mutating func int(upTo limit: Int) throws -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw malformed("has a count or length that runs past its end or limit") }
        return Int(value)
    }

    /// Steps over the next `count` bytes and returns where they are.
    mutating func skip(_ count: Int) throws -> Range<Int> {
        guard count <= remaining else { throw malformed("is truncated") }
        offset += count
        return offset - count..<offset
    }

    func expectEnd() throws {
        guard remaining == 0 else { throw malformed("has \(remaining) bytes after its end") }
    }
}

/// Writes a node or header into an array sized exactly beforehand, so encoding allocates once
/// and copies each key with one `memcpy`.
struct CountedTreeByteWriter {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private var offset = 0

    /// The array of `count` bytes that `body` writes, which must be exactly `count`.
    static func bytes(count: Int, _ body: (inout CountedTreeByteWriter) -> Void) -> [UInt8] {
        Array(unsafeUninitializedCapacity: count) { buffer, initializedCount in
            var writer = CountedTreeByteWriter(buffer: buffer)
            body(&writer)
            precondition(writer.offset == count, "CountedTreeByteWriter wrote \(writer.offset) bytes, sized for \(count)")
            initializedCount = count
        }
    }

    /// The length of `value` as a varint.
    static func varintSize(_ value: UInt64) -> Int {
        var size = 1
        var rest = value >> 7
        while rest != 0 {
            size += 1
            rest >>= 7
        }
        return size
    }

    private init(buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    mutating func put(_ byte: UInt8) {
        buffer[offset] = byte
        offset += 1
    }

    /// Writes `value` as an unsigned LEB128 varint (see ``CountedTreeByteReader/varint()``).
    mutating func putVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            put(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        put(UInt8(rest))
    }

    mutating func put(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress, let target = buffer.baseAddress else { return }
            assert(offset + source.count <= buffer.count, "CountedTreeByteWriter writes past the size it was given")
            (target + offset).initialize(from: base, count: source.count)
            offset += source.count
        }
    }
}
