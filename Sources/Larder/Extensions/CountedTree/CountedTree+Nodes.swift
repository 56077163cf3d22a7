/// Reading the header and nodes, for the tree's own operations.
extension CountedTree {
    typealias Slot = CountedTreeNodeLayout.Slot

    /// The header, or a fresh one when the tree has never been written.
    func readHeader() throws -> CountedTreeHeader {
        guard let bytes = try storage.node(CountedTreeHeader.id) else { return CountedTreeHeader() }
        return try CountedTreeHeader(decoding: bytes)
    }

    func writeHeader(_ header: CountedTreeHeader) throws {
        try storage.setNode(CountedTreeHeader.id, header.encoded())
    }

    /// The bytes of node `id`, which a branch or the header references, so its absence is damage.
    func nodeBytes(_ id: UInt64) throws -> [UInt8] {
        guard id != CountedTreeHeader.id, let bytes = try storage.node(id) else {
            throw LarderError(.corrupted, "counted tree node \(id) is referenced but not stored")
        }
        return bytes
    }

    /// Node `id` decoded, for the operations that reshape nodes.
    func readNode(_ id: UInt64) throws -> CountedTreeNode {
        try CountedTreeNode(decoding: try nodeBytes(id), id: id)
    }

    /// The entries of branch `id`, which the tree's height says is a branch; never empty.
    func readBranch(_ id: UInt64) throws -> [CountedTreeChild] {
        try Self.decodeBranch(try nodeBytes(id), id: id)
    }

    /// The keys of `bytes`, node `id`, which the tree's height says is a leaf.
    static func decodeLeaf(_ bytes: [UInt8], id: UInt64) throws -> [ArraySlice<UInt8>] {
        guard case .leaf(let keys) = try CountedTreeNode(decoding: bytes, id: id) else { throw notLeaf(id) }
        return keys
    }

    /// The entries of `bytes`, node `id`, which the tree's height says is a branch; never empty.
    static func decodeBranch(_ bytes: [UInt8], id: UInt64) throws -> [CountedTreeChild] {
        guard case .branch(let children) = try CountedTreeNode(decoding: bytes, id: id) else { throw notBranch(id) }
        guard !children.isEmpty else { throw noChildren(id) }
        return children
    }

    /// Reads leaf `id` and calls `body` with its bytes, the offset of its first entry and its
    /// entries (see ``CountedTreeNodeLayout``).
    func withLeaf<R>(
        _ id: UInt64, _ body: (UnsafeBufferPointer<UInt8>, Int, UnsafeBufferPointer<Slot>) throws -> R
    ) throws -> R {
        try Self.withLeaf(try nodeBytes(id), id: id, body)
    }

    /// Calls `body` with `bytes`, which the tree's height says are a leaf, the offset of the
    /// first entry, and the entries.
    static func withLeaf<R>(
        _ bytes: [UInt8], id: UInt64, _ body: (UnsafeBufferPointer<UInt8>, Int, UnsafeBufferPointer<Slot>) throws -> R
    ) throws -> R {
        try bytes.withUnsafeBufferPointer { node in
            try CountedTreeNodeLayout.withSlots(node, node: id) { kind, bodyStart, slots in
                guard kind == CountedTreeNode.leafKind else { throw notLeaf(id) }
                return try body(node, bodyStart, slots)
            }
        }
    }

    /// Reads branch `id` and calls `body` with its bytes and its entries, which are never empty.
    func withBranch<R>(_ id: UInt64, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<Slot>) throws -> R) throws -> R {
        try Self.withBranch(try nodeBytes(id), id: id, body)
    }

    /// Calls `body` with `bytes`, which the tree's height says are a branch, and its entries,
    /// which are never empty.
    static func withBranch<R>(
        _ bytes: [UInt8], id: UInt64, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<Slot>) throws -> R
    ) throws -> R {
        try bytes.withUnsafeBufferPointer { node in
            try CountedTreeNodeLayout.withSlots(node, node: id) { kind, _, slots in
                guard kind == CountedTreeNode.branchKind else { throw notBranch(id) }
                guard !slots.isEmpty else { throw noChildren(id) }
                return try body(node, slots)
            }
        }
    }

    /// The child of a branch (`node`, with entries `slots`, never empty) whose range holds `key`.
    static func choose(
        _ key: UnsafeBufferPointer<UInt8>, in node: UnsafeBufferPointer<UInt8>, _ slots: UnsafeBufferPointer<Slot>
    ) -> CountedTreeChoice {
        let index = CountedTreeNodeLayout.childIndex(for: key, in: node, slots)
        var rankBefore = 0
        for slot in slots[..<index] { rankBefore += slot.count }
        let slot = slots[index]
        return CountedTreeChoice(index: index, child: slot.child, count: slot.count, countField: slot.countField, rankBefore: rankBefore,
                                 nextSeparator: index + 1 < slots.count ? slots[index + 1].bytes : nil)
    }

    /// The entry of a branch whose child holds the key at `rank` within the branch, and that
    /// key's rank within the child.
    static func locate(rank: Int, in slots: UnsafeBufferPointer<Slot>, branch id: UInt64) throws -> (index: Int, rank: Int) {
        var remaining = rank
        for (index, slot) in slots.enumerated() {
            if remaining < slot.count { return (index, remaining) }
            remaining -= slot.count
        }
        throw shortBranch(id)
    }

    /// The error for a node that holds fewer keys than the count its parent keeps for it.
    static func shortBranch(_ id: UInt64) -> LarderError {
        LarderError(.corrupted, "counted tree node \(id) holds fewer keys than its parent counts")
    }

    private static func notLeaf(_ id: UInt64) -> LarderError {
        LarderError(.corrupted, "counted tree node \(id) is a branch where the tree's height puts a leaf")
    }

    private static func notBranch(_ id: UInt64) -> LarderError {
        LarderError(.corrupted, "counted tree node \(id) is a leaf where the tree's height puts a branch")
    }

    private static func noChildren(_ id: UInt64) -> LarderError {
        LarderError(.corrupted, "counted tree branch \(id) has no children")
    }
}
