/// Applying many changes at once, in key order.
///
/// A write transaction that changes a view collects its items' changes and applies them here
/// once (see `ListRuntime`): the changes that fall in one leaf are merged into it with one
/// descent, one write of the leaf and one count patch per branch above it, where one at a time
/// they would cost one of each per change.
extension CountedTree {
    /// Applies `changes`: afterwards each key is in the tree when its `present` is true and not
    /// in it when false, and every other key is as it was.
    ///
    /// - Precondition: the keys are distinct and ascending (byte-wise).
    /// - Throws: as ``insert(_:)``.
    /// - Complexity: one descent per leaf the keys fall in (O(log n) each), plus the keys; a
    ///   change that would make its leaf split or fall below ``minimumFill`` goes alone, as
    ///   ``insert(_:)`` or ``remove(_:)``, and the changes after it descend again. A run that
    ///   follows a merged run under the same lowest branch starts there (``CountedTreeFinger``):
    ///   the branches above are neither read nor parsed again.
    func apply(sorted changes: [CountedTreeChange]) throws {
        var start = 0
        // The branches above the last run's leaf, while only counts have changed in them.
        var finger: CountedTreeFinger?
        while start < changes.count {
            var header = try readHeader()
            guard header.root != 0 else {
                // The first insertion makes the root; a removal from an empty tree does nothing.
                if changes[start].present { try insert(changes[start].key) }
                start += 1
                continue
            }
            var descent: CountedTreeDescent
            let fromFinger = finger?.holds(changes[start].key) ?? false
            if let finger, fromFinger {
                descent = finger.descent(to: changes[start].key)
                try changes[start].key.withUnsafeBufferPointer { try readLeaf(of: &descent, key: $0) }
            } else {
                descent = try changes[start].key.withUnsafeBufferPointer { try descend(to: $0, header: header) }
            }
            // The run of changes whose keys fall in this leaf: from the first (which descended
            // here) to the last below the leaf's upper bound, cut where the leaf would outgrow
            // the fanout or fall below the minimum (the change there goes alone, splitting or
            // rebalancing as it always does, and the next descent starts after it).
            let bound = descent.leafUpperBound
            let lowest = descent.path.isEmpty ? 1 : minimumFill
            var insertions = changes[start].present ? 1 : 0
            var removals = 1 - insertions
            var end = start + 1
            while end < changes.count {
                if let bound, CountedTreeBytes.compare(changes[end].key[...], bound) >= 0 { break }
                let moreInsertions = insertions + (changes[end].present ? 1 : 0)
                let moreRemovals = removals + (changes[end].present ? 0 : 1)
                guard descent.leafCount + moreInsertions <= fanout, descent.leafCount - moreRemovals >= lowest else { break }
                (insertions, removals) = (moreInsertions, moreRemovals)
                end += 1
            }
            if end - start == 1 {
                // It may reshape the branches: the next run descends from the root.
                finger = nil
                let change = changes[start]
                _ = change.present ? try insert(change.key, at: &descent, header: &header) : try remove(at: &descent, header: &header)
            } else if let delta = try merge(changes[start..<end], into: &descent, header: &header) {
                if fromFinger, var kept = finger, let lowest = descent.path.last {
                    kept.path = descent.path
                    kept.slots[lowest.index].count += delta
                    finger = kept
                } else {
                    finger = try CountedTreeFinger(descent)
                }
            } else {
                finger = nil
            }
            start = end
        }
    }

    /// Merges `changes` (ascending, all within the leaf `descent` reached, and too few to make it
    /// outgrow ``fanout`` or fall below ``minimumFill``) into that leaf: the leaf's bytes are
    /// copied in runs around the entries removed and the entries inserted, without decoding it.
    /// Returns the change in the leaf's key count when the branches' counts were patched in place
    /// (`descent.path` then holds them as they are now), nil when a count changed length and
    /// `descent.path` was written out and emptied.
    private func merge(_ changes: ArraySlice<CountedTreeChange>, into descent: inout CountedTreeDescent, header: inout CountedTreeHeader) throws -> Int? {
        // Set by the closure (a result of tuple type would have its metadata made on every call).
        var merged: [UInt8]?
        var delta = 0
        try Self.withLeaf(descent.leafBytes, id: descent.leafID) { node, bodyStart, slots in
            // What the new leaf is made of, in order: runs of the old bytes, and new entries.
            var pieces: [CountedTreeMergePiece] = []
            pieces.reserveCapacity(2 * changes.count + 1)
            var copyFrom = bodyStart
            var next = 0
            for position in changes.indices {
                let key = changes[position].key
                let (offset, stored) = key.withUnsafeBufferPointer {
                    CountedTreeNodeLayout.search($0, in: node, UnsafeBufferPointer(rebasing: slots[next...]))
                }
                next += offset
                if stored {
                    if !changes[position].present {
                        pieces.append(.copy(copyFrom..<slots[next].entry.lowerBound))
                        copyFrom = slots[next].entry.upperBound
                        delta -= 1
                    }
                    next += 1
                } else if changes[position].present {
                    let at = next < slots.count ? slots[next].entry.lowerBound : node.count
                    pieces.append(.copy(copyFrom..<at))
                    pieces.append(.insert(position))
                    copyFrom = at
                    delta += 1
                }
            }
            guard !pieces.isEmpty else { return }
            pieces.append(.copy(copyFrom..<node.count))
            let count = slots.count + delta
            var size = 1 + CountedTreeByteWriter.varintSize(UInt64(count))
            for piece in pieces {
                switch piece {
                case .copy(let range): size += range.count
                case .insert(let position): size += CountedTreeByteWriter.varintSize(UInt64(changes[position].key.count)) + changes[position].key.count
                }
            }
            merged = CountedTreeByteWriter.bytes(count: size) { writer in
                writer.put(node[0])
                writer.putVarint(UInt64(count))
                for piece in pieces {
                    switch piece {
                    case .copy(let range):
                        writer.put(UnsafeBufferPointer(rebasing: node[range]))
                    case .insert(let position):
                        writer.putVarint(UInt64(changes[position].key.count))
                        writer.put(changes[position].key)
                    }
                }
            }
        }
        guard let merged else { return 0 }
        try storage.setNode(descent.leafID, merged)
        guard delta != 0 else { return 0 }
        let kept = try patchCountsKeepingPath(&descent.path, by: delta)
        header.count += delta
        try writeHeader(header)
        return kept ? delta : nil
    }

    /// ``patchCounts(along:by:)`` that keeps `path`: when every count keeps its varint's length,
    /// each is patched in place, written, and updated in its step, and the result is true; else
    /// the counts are patched as ``patchCounts(along:by:)`` does, `path` is emptied, and the
    /// result is false.
    private func patchCountsKeepingPath(_ path: inout [CountedTreeDescent.Step], by delta: Int) throws -> Bool {
        for step in path {
            let count = step.count + delta
            guard count >= 0, CountedTreeByteWriter.varintSize(UInt64(count)) == step.countField.count else {
                try patchCounts(along: &path, by: delta)
                return false
            }
        }
        for index in path.indices.reversed() {
            let count = path[index].count + delta
            try patchCountInPlace(of: &path[index], to: count)
        }
        return true
    }
}
