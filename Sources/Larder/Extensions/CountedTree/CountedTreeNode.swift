/// A decoded node: a leaf's keys or a branch's children.
///
/// Keys and separators are slices of the bytes read from storage, so decoding a node allocates
/// only its entry array. The tree decodes nodes only to reshape them (splits, rebalancing) and
/// to check them; reads and most writes work on the bytes through ``CountedTreeNodeLayout``.
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
}
