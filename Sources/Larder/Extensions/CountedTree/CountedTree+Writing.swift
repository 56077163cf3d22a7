/// Inserting and removing keys.
///
/// Most writes change one leaf by one entry and the count of one entry in each branch above it.
/// Those take the fast path: the leaf is spliced (the bytes before and after the entry copied
/// around the new one, or closed over the old one) and each branch's count is patched where it
/// lies, in place when the varint keeps its length. Only a leaf that must split, or fell below
/// ``minimumFill``, is decoded into a ``CountedTreeNode``, and with it the levels whose entries
/// change as a result; the levels above those are patched again.
extension CountedTree {
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
        var descent = try key.withUnsafeBufferPointer { try descend(to: $0, header: header) }
        return try insert(key, at: &descent, header: &header)
    }

    /// Inserts `key` where `descent` (a descent to it from the root `header` names) found its
    /// place; returns what ``insert(_:)`` returns.
    func insert(_ key: [UInt8], at descent: inout CountedTreeDescent, header: inout CountedTreeHeader) throws -> Int? {
        guard !descent.found else { return nil }

        if descent.leafCount < fanout {
            let size = CountedTreeByteWriter.varintSize(UInt64(key.count)) + key.count
            let leaf = descent.leafBytes.withUnsafeBufferPointer { node in
                CountedTreeNodeLayout.splice(
                    node, bodyStart: descent.bodyStart, entryCount: descent.leafCount + 1,
                    replacing: descent.entry, size: size
                ) { writer in
                    writer.putVarint(UInt64(key.count))
                    writer.put(key)
                }
            }
            try storage.setNode(descent.leafID, leaf)
            try patchCounts(along: &descent.path, by: 1)
        } else {
            var keys = try Self.decodeLeaf(descent.leafBytes, id: descent.leafID)
            keys.insert(key[...], at: descent.index)
            var pending = CountedTreeNode.leaf(keys: keys)
            var pendingID = descent.leafID
            // Write the changed node of each level, bottom up; a split hands its right half to the
            // level above, and a split root gets a new root above it. Above the first level that
            // does not split, only counts change.
            while true {
                let (count, split) = try store(pending, as: pendingID, header: &header)
                guard let split else {
                    try patchCounts(along: &descent.path, by: 1)
                    break
                }
                guard let step = descent.path.popLast() else {
                    let rootID = header.allocateID()
                    let left = CountedTreeChild(id: pendingID, count: count, separator: [])
                    try storage.setNode(rootID, CountedTreeNode.branch(children: [left, split]).encoded())
                    header.root = rootID
                    header.height += 1
                    break
                }
                var children = try Self.decodeBranch(step.bytes, id: step.id)
                children[step.index].count = count
                children.insert(split, at: step.index + 1)
                pending = .branch(children: children)
                pendingID = step.id
            }
        }
        header.count += 1
        try writeHeader(header)
        return descent.rankBeforeLeaf + descent.index
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
        var descent = try key.withUnsafeBufferPointer { try descend(to: $0, header: header) }
        return try remove(at: &descent, header: &header)
    }

    /// Removes the key `descent` found (a descent from the root `header` names); returns what
    /// ``remove(_:)`` returns.
    func remove(at descent: inout CountedTreeDescent, header: inout CountedTreeHeader) throws -> Int? {
        guard descent.found else { return nil }
        guard header.count > 0 else {
            throw LarderError(.corrupted, "counted tree header counts no keys, yet leaf \(descent.leafID) holds one")
        }

        let remaining = descent.leafCount - 1
        if descent.path.isEmpty ? remaining > 0 : remaining >= minimumFill {
            let leaf = descent.leafBytes.withUnsafeBufferPointer { node in
                CountedTreeNodeLayout.splice(
                    node, bodyStart: descent.bodyStart, entryCount: remaining, replacing: descent.entry, size: 0) { _ in }
            }
            try storage.setNode(descent.leafID, leaf)
            try patchCounts(along: &descent.path, by: -1)
        } else {
            var keys = try Self.decodeLeaf(descent.leafBytes, id: descent.leafID)
            keys.remove(at: descent.index)
            var pending: CountedTreeNode? = .leaf(keys: keys)
            var pendingID = descent.leafID
            while let node = pending, let step = descent.path.last {
                guard node.entryCount < minimumFill else {
                    // Full enough to stay as it is: the levels above change only their counts.
                    try storage.setNode(pendingID, node.encoded())
                    try patchCounts(along: &descent.path, by: -1)
                    pending = nil
                    break
                }
                descent.path.removeLast()
                var children = try Self.decodeBranch(step.bytes, id: step.id)
                try settle(node, as: pendingID, at: step.index, in: &children)
                pending = .branch(children: children)
                pendingID = step.id
            }
            if let root = pending {
                try storeRoot(root, as: pendingID, header: &header)
            }
        }
        header.count -= 1
        try writeHeader(header)
        return descent.rankBeforeLeaf + descent.index
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

    // MARK: - Private

    /// Follows `key` from the root to the leaf whose range holds it, keeping the bytes of the
    /// nodes passed, since a write changes them all.
    ///
    /// - Precondition: the tree is not empty (`header.root != 0`).
    func descend(to key: UnsafeBufferPointer<UInt8>, header: CountedTreeHeader) throws -> CountedTreeDescent {
        var descent = CountedTreeDescent(leafID: header.root)
        descent.path.reserveCapacity(header.height)
        for _ in 1..<header.height {
            let id = descent.leafID
            let bytes = try nodeBytes(id)
            let choice = try Self.withBranch(bytes, id: id) { node, slots in Self.choose(key, in: node, slots) }
            descent.rankBeforeLeaf += choice.rankBefore
            descent.path.append(CountedTreeDescent.Step(id: id, bytes: bytes, index: choice.index, count: choice.count, countField: choice.countField,
                                                        nextSeparator: choice.nextSeparator))
            descent.leafID = choice.child
        }
        try readLeaf(of: &descent, key: key)
        return descent
    }

    /// Reads the leaf `descent` reached and finds `key`'s place in it.
    func readLeaf(of descent: inout CountedTreeDescent, key: UnsafeBufferPointer<UInt8>) throws {
        descent.leafBytes = try nodeBytes(descent.leafID)
        try Self.withLeaf(descent.leafBytes, id: descent.leafID) { node, bodyStart, slots in
            (descent.index, descent.found) = CountedTreeNodeLayout.search(key, in: node, slots)
            descent.leafCount = slots.count
            descent.bodyStart = bodyStart
            if descent.found {
                descent.entry = slots[descent.index].entry
            } else {
                let start = descent.index < slots.count ? slots[descent.index].entry.lowerBound : node.count
                descent.entry = start..<start
            }
        }
    }

    /// Adds `delta` to the count of the child taken in each branch of `path`, writes them, and
    /// empties `path`. A count whose varint keeps its length is patched in place.
    ///
    /// - Throws: `LarderError(.corrupted)` when a count would go negative, and what the storage
    ///   throws.
    func patchCounts(along path: inout [CountedTreeDescent.Step], by delta: Int) throws {
        // Popping hands over each step's bytes uniquely referenced, so patching does not copy them.
        while var step = path.popLast() {
            let count = step.count + delta
            guard count >= 0 else {
                throw LarderError(.corrupted, "counted tree branch \(step.id) counts no keys under a child that holds one")
            }
            if CountedTreeByteWriter.varintSize(UInt64(count)) == step.countField.count {
                try patchCountInPlace(of: &step, to: count)
            } else {
                let bytes = step.bytes.withUnsafeBufferPointer { node in
                    CountedTreeNodeLayout.splice(
                        node, bodyStart: 1, entryCount: nil, replacing: step.countField,
                        size: CountedTreeByteWriter.varintSize(UInt64(count))
                    ) { writer in writer.putVarint(UInt64(count)) }
                }
                try storage.setNode(step.id, bytes)
            }
        }
    }

    /// Sets the count `step` keeps for its child to `count`, whose varint has the length of the
    /// one it replaces, in the step's bytes and in the storage.
    func patchCountInPlace(of step: inout CountedTreeDescent.Step, to count: Int) throws {
        let field = step.countField.lowerBound
        step.bytes.withUnsafeMutableBufferPointer { bytes in
            var writer = CountedTreeByteWriter(overwriting: bytes, at: field)
            writer.putVarint(UInt64(count))
        }
        step.count = count
        try storage.setNode(step.id, step.bytes)
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

}
