extension CountedTree {
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
}
