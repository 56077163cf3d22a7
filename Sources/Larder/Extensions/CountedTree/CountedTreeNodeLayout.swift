/// Where the entries of a stored node lie in its bytes: what the tree's reads and the common
/// writes work from, instead of a decoded ``CountedTreeNode``.
///
/// Parsing a node this way validates all of it, as decoding does, but allocates nothing: the
/// entries' positions go to a temporary (stack) buffer, and keys and separators are compared
/// where they lie. Only splits and rebalancing, which reshape nodes, decode them.
enum CountedTreeNodeLayout {
    /// One entry of a node, by position in the node's bytes.
    struct Slot {
        /// Where the entry begins (its first varint) and ends.
        var entry: Range<Int>
        /// Where the key (leaf) or separator (branch) bytes lie.
        var bytes: Range<Int>
        /// Branch entries only: the child's id.
        var child: UInt64 = 0
        /// Branch entries only: the number of keys below the child.
        var count = 0
        /// Branch entries only: where the count's varint lies, so it can be patched.
        var countField: Range<Int> = 0..<0
    }

    /// Parses node `id` (the id only names it in errors) and calls `body` with its kind, the
    /// offset where its entries begin (after the kind and entry count), and its entries.
    ///
    /// - Throws: `LarderError(.corruptValue)` where ``CountedTreeNode/init(decoding:id:)`` throws,
    ///   and whatever `body` throws.
    static func withSlots<R>(
        _ buffer: UnsafeBufferPointer<UInt8>, node id: UInt64,
        _ body: (_ kind: UInt8, _ bodyStart: Int, _ slots: UnsafeBufferPointer<Slot>) throws -> R
    ) throws -> R {
        var reader = CountedTreeByteReader(buffer, node: id)
        let kind = try reader.byte()
        // Every entry takes at least one byte, so a count beyond the bytes left is damage,
        // caught before it sizes an allocation.
        let entryCount = try reader.int(upTo: reader.remaining)
        let bodyStart = reader.offset
        guard kind == CountedTreeNode.leafKind || kind == CountedTreeNode.branchKind else {
            throw reader.malformed("has unknown kind \(kind)")
        }
        return try withUnsafeTemporaryAllocation(of: Slot.self, capacity: entryCount) { slots in
            if kind == CountedTreeNode.leafKind {
                for index in 0..<entryCount {
                    let start = reader.offset
                    let bytes = try reader.skip(try reader.int(upTo: reader.remaining))
                    slots.initializeElement(at: index, to: Slot(entry: start..<bytes.upperBound, bytes: bytes))
                }
            } else {
                for index in 0..<entryCount {
                    let start = reader.offset
                    let child = try reader.varint()
                    let countStart = reader.offset
                    let count = try reader.int(upTo: CountedTreeByteReader.maximumCount)
                    let countField = countStart..<reader.offset
                    let bytes = try reader.skip(try reader.int(upTo: reader.remaining))
                    slots.initializeElement(
                        at: index,
                        to: Slot(entry: start..<bytes.upperBound, bytes: bytes, child: child, count: count, countField: countField))
                }
            }
            try reader.expectEnd()
            // Slot is a trivial type: the slots need no deinitialization.
            return try body(kind, bodyStart, UnsafeBufferPointer(rebasing: slots[0..<entryCount]))
        }
    }

    /// Where `key` is among the ascending keys of a leaf: its index when found, else the index it
    /// would be inserted at.
    static func search(
        _ key: UnsafeBufferPointer<UInt8>, in node: UnsafeBufferPointer<UInt8>, _ slots: UnsafeBufferPointer<Slot>
    ) -> (index: Int, found: Bool) {
        var low = 0
        var high = slots.count
        while low < high {
            let middle = low + (high - low) / 2
            let order = CountedTreeBytes.compare(UnsafeBufferPointer(rebasing: node[slots[middle].bytes]), key)
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

    /// The index of the branch entry whose range holds `key`: the last one whose separator is at
    /// most `key` (the first, whatever its separator, when none is).
    static func childIndex(
        for key: UnsafeBufferPointer<UInt8>, in node: UnsafeBufferPointer<UInt8>, _ slots: UnsafeBufferPointer<Slot>
    ) -> Int {
        var low = 1
        var high = slots.count
        while low < high {
            let middle = low + (high - low) / 2
            if CountedTreeBytes.compare(UnsafeBufferPointer(rebasing: node[slots[middle].bytes]), key) <= 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low - 1
    }

    /// The node `bytes` with `range` replaced by the `size` bytes that `write` puts, and, when
    /// `entryCount` is given, with that entry count in place of the stored one, which ends at
    /// `bodyStart`. One allocation and a copy of each unchanged part.
    static func splice(
        _ bytes: UnsafeBufferPointer<UInt8>, bodyStart: Int, entryCount: Int?,
        replacing range: Range<Int>, size: Int, _ write: (inout CountedTreeByteWriter) -> Void
    ) -> [UInt8] {
        precondition(0 < bodyStart && bodyStart <= range.lowerBound && range.upperBound <= bytes.count,
                     "CountedTreeNodeLayout.splice got a range outside the node's entries")
        var total = bytes.count - range.count + size
        if let entryCount { total += 1 + CountedTreeByteWriter.varintSize(UInt64(entryCount)) - bodyStart }
        return CountedTreeByteWriter.bytes(count: total) { writer in
            if let entryCount {
                writer.put(bytes[0])
                writer.putVarint(UInt64(entryCount))
                writer.put(UnsafeBufferPointer(rebasing: bytes[bodyStart..<range.lowerBound]))
            } else {
                writer.put(UnsafeBufferPointer(rebasing: bytes[..<range.lowerBound]))
            }
            write(&writer)
            writer.put(UnsafeBufferPointer(rebasing: bytes[range.upperBound...]))
        }
    }
}
