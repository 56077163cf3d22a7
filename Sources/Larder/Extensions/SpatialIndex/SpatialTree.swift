/// A spatial index's R-tree (Guttman's, with the quadratic split) kept in one LMDB database:
/// node id (`UInt64`, big-endian) → ``SpatialNode`` bytes; id 0 holds the header (the root's id,
/// the next free id and the height). Every leaf is at the same depth; every node but the root
/// holds ``minimumEntries`` to ``maximumEntries`` entries.
///
/// Removing an entry that leaves a node under the minimum takes the node out and inserts its
/// leaf entries again (the "condense" step), so the tree stays balanced whatever the order of
/// writes.
struct SpatialTree {
    static let maximumEntries = 32
    static let minimumEntries = 12
    static let maximumHeight = 24

    let lmdb: LMDBTransaction
    let nodes: DatabaseHandle

    struct Header {
        var root: UInt64 = 0
        var nextID: UInt64 = 1
        /// Levels from the root to the leaves; 0 for an empty tree.
        var height = 0
    }

    // MARK: Storage

    func header() throws -> Header {
        guard let bytes = try key(0, { try lmdb.get(nodes, key: $0) }) else { return Header() }
        guard bytes.count == 20 else { throw LarderError(.corrupted, "the spatial index's header is damaged", operation: "spatialIndex") }
        let header = Header(root: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)),
                            nextID: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                            height: Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt32.self))))
        // A tree of 12-entry nodes this high would hold more entries than a store can.
        guard header.height <= Self.maximumHeight, (header.height == 0) == (header.root == 0), header.root < header.nextID else {
            throw LarderError(.corrupted, "the spatial index's header is damaged", operation: "spatialIndex")
        }
        return header
    }

    func write(_ header: Header) throws {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: header.root.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: header.nextID.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt32(header.height).littleEndian) { bytes += $0 }
        try key(0) { key in try bytes.withUnsafeBytes { try lmdb.put(nodes, key: key, value: $0) } }
    }

    /// Node `id`, which the path from the root reaches at `depth` (the root's is 1) of a tree
    /// `height` high: a leaf exactly at the bottom, a branch above it. A damaged tree whose
    /// pointers loop or skip levels fails here instead of sending a walk round forever.
    /// - Throws: ``LarderError/Code/corrupted``.
    func node(_ id: UInt64, depth: Int, of height: Int) throws -> SpatialNode {
        let node = try node(id)
        guard depth <= height, node.isLeaf == (depth == height) else {
            throw LarderError(.corrupted, "spatial index node \(id) is a \(node.isLeaf ? "leaf" : "branch") at depth \(depth) of \(height)", operation: "spatialIndex")
        }
        return node
    }

    func node(_ id: UInt64) throws -> SpatialNode {
        guard let node = try key(id, { key in try lmdb.get(nodes, key: key).map { try SpatialNode(decoding: $0, id: id) } }) else {
            throw LarderError(.corrupted, "spatial index node \(id) is missing", operation: "spatialIndex")
        }
        return node
    }

    func write(_ node: SpatialNode, at id: UInt64) throws {
        let bytes = node.encoded()
        try key(id) { key in try bytes.withUnsafeBytes { try lmdb.put(nodes, key: key, value: $0) } }
    }

    func delete(_ id: UInt64) throws {
        _ = try key(id) { try lmdb.delete(nodes, key: $0) }
    }

    private func key<R>(_ id: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: id.bigEndian, body)
    }

    // MARK: Inserting

    /// Adds the leaf entry (`box`, `objectKey`).
    func insert(_ box: SpatialBox, _ objectKey: [UInt8]) throws {
        var header = try header()
        if header.height == 0 {
            header.root = header.nextID
            header.nextID += 1
            header.height = 1
            try write(SpatialNode(isLeaf: true), at: header.root)
        }
        // The path from the root to the leaf with the least enlargement at each level.
        var path: [(id: UInt64, node: SpatialNode, position: Int)] = []
        var id = header.root
        var node = try self.node(id, depth: 1, of: header.height)
        while !node.isLeaf {
            let position = Self.choose(box, in: node)
            path.append((id, node, position))
            id = node.children[position]
            node = try self.node(id, depth: path.count + 1, of: header.height)
        }
        node.boxes.append(box)
        node.keys.append(objectKey)
        // Up the path: split what overflows, widen the parents' boxes.
        var split: (id: UInt64, box: SpatialBox)?
        while true {
            if node.count > Self.maximumEntries {
                let (kept, moved) = Self.split(node)
                node = kept
                let sibling = header.nextID
                header.nextID += 1
                try write(moved, at: sibling)
                split = (sibling, moved.bounds!)
            } else {
                split = nil
            }
            try write(node, at: id)
            guard let (parentID, parent, position) = path.popLast() else { break }
            var updated = parent
            updated.boxes[position] = node.bounds!
            if let split {
                updated.boxes.append(split.box)
                updated.children.append(split.id)
            }
            id = parentID
            node = updated
        }
        if let split {
            // The root split: a new root above the two halves.
            var root = SpatialNode(isLeaf: false)
            root.boxes = [node.bounds!, split.box]
            root.children = [id, split.id]
            header.root = header.nextID
            header.nextID += 1
            header.height += 1
            try write(root, at: header.root)
        }
        try write(header)
    }

    /// The child whose box grows least to hold `box` (ties: the smaller box).
    private static func choose(_ box: SpatialBox, in node: SpatialNode) -> Int {
        var best = 0
        var bestGrowth = Double.infinity
        var bestArea = Double.infinity
        for (position, child) in node.boxes.enumerated() {
            let growth = child.enlargement(toHold: box)
            if growth < bestGrowth || (growth == bestGrowth && child.area < bestArea) {
                (best, bestGrowth, bestArea) = (position, growth, child.area)
            }
        }
        return best
    }

    /// Guttman's quadratic split: the two entries that would waste the most area together seed
    /// two groups; each other entry goes where it grows the box least, until a group must take
    /// the rest to reach the minimum.
    private static func split(_ node: SpatialNode) -> (SpatialNode, SpatialNode) {
        let boxes = node.boxes
        var seeds = (0, 1)
        var worst = -Double.infinity
        for a in boxes.indices {
            for b in (a + 1)..<boxes.count {
                let waste = boxes[a].union(boxes[b]).area - boxes[a].area - boxes[b].area
                if waste > worst { (worst, seeds) = (waste, (a, b)) }
            }
        }
        var groups = [[seeds.0], [seeds.1]]
        var bounds = [boxes[seeds.0], boxes[seeds.1]]
        var left = boxes.indices.filter { $0 != seeds.0 && $0 != seeds.1 }
        while !left.isEmpty {
            for group in 0...1 where groups[group].count + left.count == minimumEntries {
                groups[group] += left
                left = []
            }
            guard !left.isEmpty else { break }
            // The entry with the strongest preference goes first.
            var pick = 0
            var strongest = -Double.infinity
            for (offset, entry) in left.enumerated() {
                let preference = abs(bounds[0].enlargement(toHold: boxes[entry]) - bounds[1].enlargement(toHold: boxes[entry]))
                if preference > strongest { (strongest, pick) = (preference, offset) }
            }
            let entry = left.remove(at: pick)
            let growth = (bounds[0].enlargement(toHold: boxes[entry]), bounds[1].enlargement(toHold: boxes[entry]))
            let group = growth.0 != growth.1 ? (growth.0 < growth.1 ? 0 : 1)
                : (bounds[0].area != bounds[1].area ? (bounds[0].area < bounds[1].area ? 0 : 1) : (groups[0].count <= groups[1].count ? 0 : 1))
            groups[group].append(entry)
            bounds[group] = bounds[group].union(boxes[entry])
        }
        func made(_ positions: [Int]) -> SpatialNode {
            var half = SpatialNode(isLeaf: node.isLeaf)
            for position in positions {
                half.boxes.append(boxes[position])
                if node.isLeaf { half.keys.append(node.keys[position]) } else { half.children.append(node.children[position]) }
            }
            return half
        }
        return (made(groups[0]), made(groups[1]))
    }

    // MARK: Removing

    /// Removes the leaf entry (`box`, `objectKey`); returns `false` when the tree has none.
    func remove(_ box: SpatialBox, _ objectKey: [UInt8]) throws -> Bool {
        var header = try header()
        guard header.height > 0 else { return false }
        guard var path = try pathToLeaf(holding: box, objectKey, in: header) else { return false }
        var (id, node, position) = path.removeLast()
        node.remove(at: position)
        // Up the path: a node under the minimum leaves the tree and its leaf entries go back in.
        var orphans: [(SpatialBox, [UInt8])] = []
        while let (parentID, parent, childPosition) = path.popLast() {
            var updated = parent
            if node.count < Self.minimumEntries {
                try collectLeafEntries(of: node, depth: path.count + 2, of: header.height, into: &orphans)
                try deleteSubtree(id, node: node, depth: path.count + 2, of: header.height)
                updated.remove(at: childPosition)
            } else {
                try write(node, at: id)
                updated.boxes[childPosition] = node.bounds!
            }
            (id, node) = (parentID, updated)
        }
        // `node` is the root.
        if !node.isLeaf && node.count == 1 {
            try delete(id)
            header.root = node.children[0]
            header.height -= 1
        } else if node.count == 0 {
            try delete(id)
            header = Header(root: 0, nextID: header.nextID, height: 0)
        } else {
            try write(node, at: id)
        }
        try write(header)
        for (orphanBox, orphanKey) in orphans { try insert(orphanBox, orphanKey) }
        return true
    }

    /// The path from the root to the leaf that holds (`box`, `objectKey`): each node on it, with
    /// the position of the next one (of the entry, in the leaf).
    private func pathToLeaf(holding box: SpatialBox, _ objectKey: [UInt8], in header: Header) throws -> [(UInt64, SpatialNode, Int)]? {
        var path: [(UInt64, SpatialNode, Int)] = []
        func search(_ id: UInt64) throws -> Bool {
            let node = try self.node(id, depth: path.count + 1, of: header.height)
            if node.isLeaf {
                guard let position = node.keys.indices.first(where: { node.keys[$0] == objectKey && node.boxes[$0] == box }) else { return false }
                path.append((id, node, position))
                return true
            }
            for position in node.boxes.indices where node.boxes[position].contains(box) {
                path.append((id, node, position))
                if try search(node.children[position]) { return true }
                path.removeLast()
            }
            return false
        }
        return try search(header.root) ? path : nil
    }

    /// The leaf entries under `node`, which is at `depth`.
    private func collectLeafEntries(of node: SpatialNode, depth: Int, of height: Int, into entries: inout [(SpatialBox, [UInt8])]) throws {
        if node.isLeaf {
            for position in node.boxes.indices { entries.append((node.boxes[position], node.keys[position])) }
        } else {
            for child in node.children {
                try collectLeafEntries(of: try self.node(child, depth: depth + 1, of: height), depth: depth + 1, of: height, into: &entries)
            }
        }
    }

    /// Deletes node `id` and every node below it.
    private func deleteSubtree(_ id: UInt64, node: SpatialNode, depth: Int, of height: Int) throws {
        if !node.isLeaf {
            for child in node.children { try deleteSubtree(child, node: try self.node(child, depth: depth + 1, of: height), depth: depth + 1, of: height) }
        }
        try delete(id)
    }

    // MARK: Searching

    /// Calls `body` with each leaf entry whose box `descend` and `accept` let through: `descend`
    /// is asked of each branch entry's box, `accept` of each leaf entry's.
    func search(descend: (SpatialBox) -> Bool, accept: (SpatialBox) -> Bool, _ body: (SpatialBox, [UInt8]) throws -> Void) throws {
        let header = try header()
        guard header.height > 0 else { return }
        var stack = [(id: header.root, depth: 1)]
        while let (id, depth) = stack.popLast() {
            let node = try self.node(id, depth: depth, of: header.height)
            for position in node.boxes.indices {
                if node.isLeaf {
                    if accept(node.boxes[position]) { try body(node.boxes[position], node.keys[position]) }
                } else if descend(node.boxes[position]) {
                    stack.append((node.children[position], depth + 1))
                }
            }
        }
    }

    /// The `count` leaf entries nearest to (`x`, `y`), nearest first (ties in no set order), by
    /// best-first search: nodes and entries come out of one queue ordered by their distance.
    func nearest(toX x: Double, y: Double, count: Int) throws -> [(box: SpatialBox, key: [UInt8], distanceSquared: Double)] {
        let header = try header()
        guard header.height > 0, count > 0 else { return [] }
        enum Item {
            case node(UInt64, depth: Int)
            case entry(SpatialBox, [UInt8])
        }
        var queue = SpatialQueue<Item>()
        queue.push(.node(header.root, depth: 1), priority: 0)
        var found: [(box: SpatialBox, key: [UInt8], distanceSquared: Double)] = []
        while found.count < count, let (item, distance) = queue.pop() {
            switch item {
            case .entry(let box, let key):
                found.append((box, key, distance))
            case .node(let id, let depth):
                let node = try self.node(id, depth: depth, of: header.height)
                for position in node.boxes.indices {
                    let box = node.boxes[position]
                    let distance = box.distanceSquared(toX: x, y: y)
                    queue.push(node.isLeaf ? .entry(box, node.keys[position]) : .node(node.children[position], depth: depth + 1), priority: distance)
                }
            }
        }
        return found
    }

    /// Checks the tree's shape: every leaf at the same depth, every node but the root within the
    /// entry limits, every branch box the bounds of its child. Returns the leaf entries.
    /// - Throws: ``LarderError/Code/extensionInconsistent`` at the first fault.
    func checkedLeafEntries() throws -> [(SpatialBox, [UInt8])] {
        let header = try header()
        guard header.height > 0 else { return [] }
        var entries: [(SpatialBox, [UInt8])] = []
        func fault(_ what: String) -> LarderError { LarderError(.extensionInconsistent, "the spatial index's tree is malformed: \(what)", operation: "spatialIndex") }
        func walk(_ id: UInt64, depth: Int, bounds: SpatialBox?) throws {
            let node = try self.node(id, depth: depth, of: header.height)
            if id != header.root && !(Self.minimumEntries...Self.maximumEntries).contains(node.count) { throw fault("node \(id) holds \(node.count) entries") }
            if let bounds, node.bounds != bounds { throw fault("the box of node \(id) in its parent is not its bounds") }
            if node.isLeaf != (depth == header.height) { throw fault("node \(id) is at depth \(depth) of \(header.height)") }
            if node.isLeaf {
                for position in node.boxes.indices { entries.append((node.boxes[position], node.keys[position])) }
            } else {
                for position in node.boxes.indices { try walk(node.children[position], depth: depth + 1, bounds: node.boxes[position]) }
            }
        }
        try walk(header.root, depth: 1, bounds: nil)
        return entries
    }
}
