import Testing
@testable import Larder

/// Nodes in a dictionary, counting every read and write, so a test can check how many nodes an
/// operation touches and plant damage by editing the bytes.
final class CountingTreeStorage: CountedTreeStorage {
    var nodes: [UInt64: [UInt8]] = [:]
    /// When false, the storage does not list its ids, as a storage that cannot would.
    var listsIDs = true
    private(set) var reads = 0
    private(set) var writes = 0
    private(set) var removals = 0

    func node(_ id: UInt64) -> [UInt8]? {
        reads += 1
        return nodes[id]
    }

    func setNode(_ id: UInt64, _ bytes: [UInt8]) {
        writes += 1
        nodes[id] = bytes
    }

    func removeNode(_ id: UInt64) {
        removals += 1
        nodes[id] = nil
    }

    func nodeIDs() -> [UInt64]? {
        listsIDs ? Array(nodes.keys) : nil
    }

    func resetCounters() {
        reads = 0
        writes = 0
        removals = 0
    }

    /// A storage holding the same nodes, to damage without touching this one.
    func copy() -> CountingTreeStorage {
        let copy = CountingTreeStorage()
        copy.nodes = nodes
        return copy
    }
}

extension SplitMix {
    /// A key of 0...40 bytes that often shares a prefix with other keys and is made mostly of the
    /// bytes where an order bug shows: 0x00, 0xFF, and neighbours of 0x80. Short keys repeat, so
    /// inserts of present keys and removals of absent ones happen too.
    mutating func key() -> [UInt8] {
        let alphabet: [UInt8] = [0x00, 0x01, 0x61, 0x62, 0x7F, 0x80, 0xFE, 0xFF]
        let prefixes: [[UInt8]] = [[], [0x61, 0x62, 0x63], [0x00, 0x00], [0xFF, 0xFF, 0xFF, 0xFF], [0x61, 0x62]]
        var key = prefixes[Int.random(in: 0..<prefixes.count, using: &self)]
        let length = Int.random(in: 0...40, using: &self)
        while key.count < length {
            key.append(Bool.random(using: &self) ? alphabet.randomElement(using: &self)! : UInt8.random(in: 0...255, using: &self))
        }
        return Array(key.prefix(length))
    }
}

/// The number of keys in the ascending `model` that are less than `key`, found without the
/// tree's own comparison code.
private func modelRank(of key: [UInt8], in model: [[UInt8]]) -> Int {
    var low = 0
    var high = model.count
    while low < high {
        let middle = (low + high) / 2
        if model[middle].lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
    }
    return low
}

/// Counts of present keys by index, for the expected ranks of removals from a large tree
/// without an O(n) array removal each time.
private struct FenwickCounts {
    private var tree: [Int]

    init(count: Int, present: Bool) {
        tree = Array(repeating: 0, count: count + 1)
        if present { for index in 0..<count { add(1, at: index) } }
    }

    mutating func add(_ delta: Int, at index: Int) {
        var position = index + 1
        while position < tree.count {
            tree[position] += delta
            position += position & -position
        }
    }

    /// The sum over indexes `0..<index`.
    func prefixSum(_ index: Int) -> Int {
        var position = index
        var sum = 0
        while position > 0 {
            sum += tree[position]
            position -= position & -position
        }
        return sum
    }
}

@Suite("Counted tree")
struct CountedTreeTests {
    /// `count` keys that sort in index order and share a prefix.
    static func orderedKey(_ index: Int) -> [UInt8] {
        Array("item/".utf8) + withUnsafeBytes(of: UInt32(index).bigEndian, Array.init)
    }

    /// A tree of fanout 8 holding 300 keys: three levels, so damage can go to any of them.
    static func smallTree() throws -> (CountedTree<CountingTreeStorage>, [[UInt8]]) {
        let tree = CountedTree(storage: CountingTreeStorage(), fanout: 8)
        var random = SplitMix(seed: 0xC0FFEE)
        var model: [[UInt8]] = []
        while model.count < 300 {
            let key = random.key()
            if try tree.insert(key) != nil { model.insert(key, at: modelRank(of: key, in: model)) }
        }
        try tree.checkStructure()
        #expect(try tree.height() >= 3)
        return (tree, model)
    }

    /// Runs `body` and checks that it throws a `LarderError` with `code`.
    func expectThrows(_ code: LarderError.Code, _ what: String, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("\(what): no error, expected \(code)")
        } catch let error as LarderError {
            #expect(error.code == code, "\(what): \(error)")
        } catch {
            Issue.record("\(what): \(error) is not a LarderError")
        }
    }

    @Test func anEmptyTreeAnswersWithoutNodes() throws {
        let storage = CountingTreeStorage()
        let tree = CountedTree(storage: storage)
        #expect(try tree.count() == 0)
        #expect(try tree.height() == 0)
        #expect(try tree.rank(of: [UInt8]()) == 0)
        #expect(try tree.rank(of: [0xFF]) == 0)
        #expect(try tree.key(at: 0) == nil)
        #expect(try tree.keys(from: 0, limit: 5, reversed: false).isEmpty)
        #expect(try tree.contains([]) == false)
        #expect(try tree.remove([1]) == nil)
        try tree.checkStructure()
        #expect(storage.nodes.isEmpty)
    }

    @Test func theEmptyKeyIsTheSmallest() throws {
        let tree = CountedTree(storage: CountingTreeStorage())
        #expect(try tree.insert([0x00]) == 0)
        #expect(try tree.insert([]) == 0)
        #expect(try tree.insert([]) == nil)
        #expect(try tree.insert([0x00, 0x00]) == 2)
        #expect(try tree.keys(from: 0, limit: 10, reversed: false) == [[], [0x00], [0x00, 0x00]])
        #expect(try tree.remove([]) == 0)
        #expect(try tree.key(at: 0) == [0x00])
    }

    /// The node bytes are the format the documentation states.
    @Test func nodesEncodeAsDocumented() throws {
        let leaf = CountedTreeNode.leaf(keys: [[], [0x61, 0x62]])
        #expect(leaf.encoded() == [1, 2, 0, 2, 0x61, 0x62])
        let branch = CountedTreeNode.branch(children: [
            CountedTreeChild(id: 7, count: 300, separator: []),
            CountedTreeChild(id: 9, count: 1, separator: [0x61]),
        ])
        #expect(branch.encoded() == [2, 2, 7, 0xAC, 0x02, 0, 9, 1, 1, 0x61])
        #expect(try CountedTreeNode(decoding: leaf.encoded(), id: 1) == leaf)
        #expect(try CountedTreeNode(decoding: branch.encoded(), id: 1) == branch)

        var header = CountedTreeHeader()
        header.root = 5
        header.height = 2
        header.count = 128
        header.nextID = 6
        #expect(header.encoded() == [1, 5, 2, 0x80, 0x01, 6])
        #expect(try CountedTreeHeader(decoding: header.encoded()) == header)
    }

    @Test func separatorsAreTheShortestPrefixThatSeparates() {
        #expect(CountedTreeBytes.shortestSeparator(after: [0x61, 0x62, 0x63], upTo: [0x61, 0x63, 0x00]) == [0x61, 0x63])
        #expect(CountedTreeBytes.shortestSeparator(after: [0x61], upTo: [0x61, 0x00, 0x05]) == [0x61, 0x00])
        #expect(CountedTreeBytes.shortestSeparator(after: [], upTo: [0x00]) == [0x00])
    }

    /// Random inserts and removals against a sorted array, growing the tree and shrinking it to
    /// (nearly) nothing, at fanouts that make trees deep (4, 5) and at the standard one.
    @Test(arguments: [(UInt64(0x5eed_0001), 4), (0x5eed_0002, 5), (0x5eed_0003, 8), (0x5eed_0004, 64)])
    func randomOperationsAgreeWithASortedArray(seed: UInt64, fanout: Int) throws {
        var random = SplitMix(seed: seed)
        let storage = CountingTreeStorage()
        let tree = CountedTree(storage: storage, fanout: fanout)
        var model: [[UInt8]] = []
        var largest = 0
        let operations = 3_000
        for step in 0..<operations {
            let context = "seed \(seed), fanout \(fanout), step \(step)"
            // Mostly inserts first, then an even mix, then mostly removals.
            let insertPercent = step < 1_200 ? 80 : step < 1_800 ? 50 : 10
            if Int.random(in: 0..<100, using: &random) < insertPercent {
                let key = random.key()
                let expected = modelRank(of: key, in: model)
                let present = expected < model.count && model[expected] == key
                let rank = try tree.insert(key)
                try #require(rank == (present ? nil : expected), "insert, \(context)")
                if !present { model.insert(key, at: expected) }
            } else {
                let key = model.isEmpty || Int.random(in: 0..<8, using: &random) == 0
                    ? random.key() : model.randomElement(using: &random)!
                let expected = modelRank(of: key, in: model)
                let present = expected < model.count && model[expected] == key
                let rank = try tree.remove(key)
                try #require(rank == (present ? expected : nil), "remove, \(context)")
                if present { model.remove(at: expected) }
            }
            largest = max(largest, model.count)
            try #require(try tree.count() == model.count, "count, \(context)")
            if step % 8 == 0 || step == operations - 1 {
                try expectAgreement(tree, model, &random, context: context)
            }
        }
        #expect(largest > 500)
        #expect(model.count < 100)

        // A last sweep over every rank and key.
        for (index, key) in model.enumerated() {
            try #require(try tree.key(at: index) == key, "seed \(seed): key(at: \(index))")
            try #require(try tree.rank(of: key) == index, "seed \(seed): rank of key \(index)")
        }
        #expect(try tree.keys(from: 0, limit: model.count, reversed: false) == model)
        #expect(try tree.keys(from: model.count - 1, limit: model.count + 5, reversed: true) == model.reversed())
        for key in model { try tree.remove(key) }
        try tree.checkStructure()
        #expect(Array(storage.nodes.keys) == [0])
    }

    /// Batches of changes applied at once (``CountedTree/apply(sorted:)``), as a write
    /// transaction applies a view's changes: small and large batches, runs of keys in one leaf
    /// and across many, leaves that must split or rebalance, keys removed that are absent and
    /// inserted that are present, down to an empty tree and up again.
    @Test(arguments: [(UInt64(0x5eed_1001), 4), (0x5eed_1002, 5), (0x5eed_1003, 8), (0x5eed_1004, 64)])
    func batchesAgreeWithASortedArray(seed: UInt64, fanout: Int) throws {
        var random = SplitMix(seed: seed)
        let storage = CountingTreeStorage()
        let tree = CountedTree(storage: storage, fanout: fanout)
        var model: [[UInt8]] = []
        var largest = 0
        for round in 0..<160 {
            let context = "seed \(seed), fanout \(fanout), round \(round)"
            // Growing, then mixed, then shrinking; now and then everything goes.
            let insertPercent = round < 60 ? 80 : round < 110 ? 50 : 15
            var batch: [[UInt8]: Bool] = [:]
            for _ in 0..<[1, 2, 3, 8, 40, 200][Int.random(in: 0..<6, using: &random)] {
                if round % 37 == 36, let present = model.randomElement(using: &random) {
                    batch[present] = false
                } else if Int.random(in: 0..<100, using: &random) < insertPercent {
                    batch[Int.random(in: 0..<6, using: &random) == 0 ? model.randomElement(using: &random) ?? random.key() : random.key()] = true
                } else {
                    batch[Int.random(in: 0..<6, using: &random) == 0 || model.isEmpty ? random.key() : model.randomElement(using: &random)!] = false
                }
            }
            if round % 37 == 36 { for key in model { batch[key] = false } }
            let changes = batch.map { CountedTreeChange(key: $0.key, present: $0.value) }
                .sorted { $0.key.lexicographicallyPrecedes($1.key) }
            try tree.apply(sorted: changes)
            for change in changes {
                let at = modelRank(of: change.key, in: model)
                let present = at < model.count && model[at] == change.key
                if change.present && !present { model.insert(change.key, at: at) }
                if !change.present && present { model.remove(at: at) }
            }
            largest = max(largest, model.count)
            try #require(try tree.count() == model.count, "count, \(context)")
            try #require(try tree.keys(from: 0, limit: model.count + 1, reversed: false) == model, "keys, \(context)")
            // Merged leaves are the bytes their keys encode to, as spliced ones are.
            for (id, bytes) in storage.nodes where id != 0 {
                try #require(try CountedTreeNode(decoding: bytes, id: id).encoded() == bytes, "node \(id), \(context)")
            }
            try expectAgreement(tree, model, &random, context: context)
        }
        #expect(largest > 400)
    }

    /// Compares every kind of query against the model, and checks the structure.
    private func expectAgreement(
        _ tree: CountedTree<CountingTreeStorage>, _ model: [[UInt8]], _ random: inout SplitMix, context: String
    ) throws {
        try tree.checkStructure()
        for _ in 0..<4 {
            if let present = model.randomElement(using: &random) {
                try #require(try tree.rank(of: present) == modelRank(of: present, in: model), "rank of present, \(context)")
                try #require(try tree.contains(present), "contains, \(context)")
            }
            let probe = random.key()
            let expected = modelRank(of: probe, in: model)
            let present = expected < model.count && model[expected] == probe
            try #require(try tree.rank(of: probe) == expected, "rank of probe, \(context)")
            try #require(try tree.rank(of: probe[...]) == expected, "rank of a slice, \(context)")
            try #require(try tree.contains(probe) == present, "contains probe, \(context)")
        }
        // Many ranks at once: present keys, absent ones and repeats, ascending.
        var probes = (0..<Int.random(in: 1...40, using: &random)).map { _ in
            Int.random(in: 0..<3, using: &random) == 0 || model.isEmpty ? random.key() : model.randomElement(using: &random)!
        }
        probes.sort { $0.lexicographicallyPrecedes($1) }
        try #require(try tree.ranks(ofSorted: probes) == probes.map { modelRank(of: $0, in: model) }, "ranks(ofSorted:), \(context)")
        let ranks = [-1, 0, model.count - 1, model.count, Int.random(in: 0...max(0, model.count - 1), using: &random)]
        for rank in ranks {
            let expected = model.indices.contains(rank) ? model[rank] : nil
            try #require(try tree.key(at: rank) == expected, "key(at: \(rank)), \(context)")
        }
        let start = Int.random(in: -1...model.count, using: &random)
        let limit = Int.random(in: 0...(3 * tree.fanout), using: &random)
        let inRange = model.indices.contains(start) && limit > 0
        let forward = inRange ? Array(model[start..<min(model.count, start + limit)]) : []
        let backward = inRange ? Array(model[max(0, start - limit + 1)...start].reversed()) : []
        try #require(try tree.keys(from: start, limit: limit, reversed: false) == forward, "keys from \(start), \(context)")
        try #require(try tree.keys(from: start, limit: limit, reversed: true) == backward, "keys back from \(start), \(context)")
    }

    /// Rank and select read the header and one node per level, however large the tree; an insert
    /// that splits nothing writes one node per level and the header.
    @Test func rankAndSelectReadOneNodePerLevel() throws {
        let storage = CountingTreeStorage()
        let tree = CountedTree(storage: storage)
        var random = SplitMix(seed: 20_000)
        var keys: [[UInt8]] = []
        while keys.count < 20_000 {
            let key = (0..<Int.random(in: 20...60, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            if try tree.insert(key) != nil { keys.append(key) }
        }
        let height = try tree.height()
        #expect(height == 3)
        keys.sort { $0.lexicographicallyPrecedes($1) }

        for _ in 0..<200 {
            let rank = Int.random(in: 0..<keys.count, using: &random)
            storage.resetCounters()
            #expect(try tree.key(at: rank) == keys[rank])
            #expect(storage.reads == height + 1)

            storage.resetCounters()
            #expect(try tree.rank(of: keys[rank]) == rank)
            #expect(storage.reads == height + 1)

            let absent = keys[rank] + [0x00]
            storage.resetCounters()
            #expect(try tree.rank(of: absent) == rank + 1)
            #expect(storage.reads == height + 1)
        }
        // Ranking every key at once reads each node once (and the header).
        storage.resetCounters()
        #expect(try tree.ranks(ofSorted: keys) == Array(keys.indices))
        #expect(storage.reads == storage.nodes.count)
        storage.resetCounters()
        #expect(try tree.count() == keys.count)
        #expect(storage.reads == 1)

        // A key already present changes nothing.
        storage.resetCounters()
        #expect(try tree.insert(keys[17]) == nil)
        #expect(try tree.remove(keys[17] + [0x00]) == nil)
        #expect(storage.writes == 0 && storage.removals == 0)

        var quietInserts = 0
        for _ in 0..<200 {
            let key = (0..<30).map { _ in UInt8.random(in: 0...255, using: &random) }
            storage.resetCounters()
            try tree.insert(key)
            #expect(storage.reads == height + 1)
            #expect(storage.writes <= 2 * height + 2)
            if storage.writes == height + 1 { quietInserts += 1 }
        }
        #expect(quietInserts > 150)
    }

    enum InsertionOrder: CaseIterable, Sendable {
        case ascending, descending, random
    }

    /// 10,000 keys in, then all out in random order: the tree grows to three levels and shrinks
    /// back to nothing but its header.
    @Test(arguments: InsertionOrder.allCases)
    func growsAndShrinksToNothing(order: InsertionOrder) throws {
        let count = 10_000
        let storage = CountingTreeStorage()
        let tree = CountedTree(storage: storage)
        var random = SplitMix(seed: 10_000)
        var indexes = Array(0..<count)
        switch order {
        case .ascending: break
        case .descending: indexes.reverse()
        case .random: indexes.shuffle(using: &random)
        }

        var present = FenwickCounts(count: count, present: false)
        for index in indexes {
            let rank = try tree.insert(Self.orderedKey(index))
            try #require(rank == present.prefixSum(index), "\(order): insert \(index)")
            present.add(1, at: index)
        }
        try tree.checkStructure()
        #expect(try tree.count() == count)
        #expect(try tree.height() == 3)
        #expect(try tree.keys(from: 4_990, limit: 20, reversed: false) == (4_990..<5_010).map(Self.orderedKey))

        indexes.shuffle(using: &random)
        for (step, index) in indexes.enumerated() {
            let rank = try tree.remove(Self.orderedKey(index))
            try #require(rank == present.prefixSum(index), "\(order): remove \(index)")
            present.add(-1, at: index)
            if step % 2_500 == 0 { try tree.checkStructure() }
        }
        try tree.checkStructure()
        #expect(try tree.count() == 0)
        #expect(try tree.height() == 0)
        #expect(Array(storage.nodes.keys) == [0])

        #expect(try tree.insert([1]) == 0)
        try tree.checkStructure()
    }

    @Test func removeAllLeavesNoNode() throws {
        for listsIDs in [true, false] {
            let (tree, _) = try Self.smallTree()
            tree.storage.listsIDs = listsIDs
            try tree.removeAll()
            #expect(tree.storage.nodes.isEmpty)
            #expect(try tree.count() == 0)
            #expect(try tree.insert([7]) == 0)
            try tree.checkStructure()
        }
    }

    /// Node bytes that do not decode make every operation that reads them throw `.corruptValue`.
    @Test func undecodableNodesThrowCorruptValue() throws {
        let (tree, model) = try Self.smallTree()
        let header = try CountedTreeHeader(decoding: try #require(tree.storage.nodes[0]))
        let root = try #require(tree.storage.nodes[header.root])
        let garbage: [(String, [UInt8])] = [
            ("empty", []),
            ("unknown kind", [9, 0]),
            ("kind only", [CountedTreeNode.branchKind]),
            ("count past the end", [CountedTreeNode.leafKind, 5, 1, 0x61]),
            ("key past the end", [CountedTreeNode.leafKind, 1, 10, 0x61]),
            ("separator past the end", [CountedTreeNode.branchKind, 1, 3, 4, 200, 0x61]),
            ("truncated varint", [CountedTreeNode.branchKind, 1, 0x80]),
            ("overflowing varint", [CountedTreeNode.branchKind, 1] + Array(repeating: 0xFF, count: 10) + [0x01, 0, 0]),
            ("trailing byte", root + [0]),
            ("truncated", Array(root.dropLast())),
        ]
        for (name, bytes) in garbage {
            tree.storage.nodes[header.root] = bytes
            expectThrows(.corruptValue, "\(name): rank") { _ = try tree.rank(of: model[10]) }
            expectThrows(.corruptValue, "\(name): contains") { _ = try tree.contains(model[10]) }
            expectThrows(.corruptValue, "\(name): key(at:)") { _ = try tree.key(at: 10) }
            expectThrows(.corruptValue, "\(name): keys(from:)") { _ = try tree.keys(from: 10, limit: 5, reversed: true) }
            expectThrows(.corruptValue, "\(name): insert") { _ = try tree.insert([0x42]) }
            expectThrows(.corruptValue, "\(name): remove") { _ = try tree.remove(model[10]) }
            expectThrows(.corruptValue, "\(name): checkStructure") { try tree.checkStructure() }
        }
        tree.storage.nodes[header.root] = root
        try tree.checkStructure()

        tree.storage.nodes[0] = [1, 5]
        expectThrows(.corruptValue, "truncated header") { _ = try tree.count() }
        tree.storage.nodes[0] = [1, 0, 2, 0, 1]
        expectThrows(.corruptValue, "height without root") { _ = try tree.count() }
        tree.storage.nodes[0] = [1, 3, 1, 1, 2]
        expectThrows(.corruptValue, "root beyond the next id") { _ = try tree.count() }
    }

    /// Damage that decodes is what checkStructure is for; operations that run into it throw.
    @Test func checkStructureFindsPlantedDamage() throws {
        let (tree, model) = try Self.smallTree()
        let header = try CountedTreeHeader(decoding: try #require(tree.storage.nodes[0]))
        guard case .branch(let rootChildren) = try CountedTreeNode(decoding: tree.storage.nodes[header.root]!, id: header.root) else {
            Issue.record("the root is not a branch")
            return
        }
        /// A tree over a copy of the storage, damaged by `plant`.
        func damaged(_ plant: (CountingTreeStorage) throws -> Void) rethrows -> CountedTree<CountingTreeStorage> {
            let storage = tree.storage.copy()
            try plant(storage)
            return CountedTree(storage: storage, fanout: tree.fanout)
        }
        func rewrite(_ storage: CountingTreeStorage, _ id: UInt64, _ edit: (inout CountedTreeNode) -> Void) throws {
            var node = try CountedTreeNode(decoding: storage.nodes[id]!, id: id)
            edit(&node)
            storage.nodes[id] = node.encoded()
        }
        func firstLeaf(_ storage: CountingTreeStorage) throws -> UInt64 {
            var id = header.root
            while case .branch(let children) = try CountedTreeNode(decoding: storage.nodes[id]!, id: id) { id = children[0].id }
            return id
        }

        let overcounted = try damaged { storage in
            try rewrite(storage, header.root) { node in
                guard case .branch(var children) = node else { return }
                children[1].count += 1
                node = .branch(children: children)
            }
        }
        expectThrows(.corrupted, "child count one too high") { try overcounted.checkStructure() }

        let headerOvercounted = damaged { storage in
            var wrong = header
            wrong.count += 1
            storage.nodes[0] = wrong.encoded()
        }
        expectThrows(.corrupted, "header count one too high") { try headerOvercounted.checkStructure() }
        expectThrows(.corrupted, "select past the real keys") { _ = try headerOvercounted.key(at: model.count) }

        let unsorted = try damaged { storage in
            try rewrite(storage, try firstLeaf(storage)) { node in
                guard case .leaf(var keys) = node else { return }
                keys.swapAt(0, 1)
                node = .leaf(keys: keys)
            }
        }
        expectThrows(.corrupted, "leaf out of order") { try unsorted.checkStructure() }

        let outOfBounds = try damaged { storage in
            try rewrite(storage, try firstLeaf(storage)) { node in
                guard case .leaf(var keys) = node else { return }
                keys[keys.count - 1] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
                node = .leaf(keys: keys)
            }
        }
        expectThrows(.corrupted, "key beyond its separator") { try outOfBounds.checkStructure() }

        let missing = damaged { storage in storage.nodes[rootChildren[1].id] = nil }
        expectThrows(.corrupted, "missing child") { try missing.checkStructure() }

        let stray = damaged { storage in storage.nodes[header.nextID - 1 + 100] = CountedTreeNode.leaf(keys: [[1]]).encoded() }
        expectThrows(.corrupted, "unreferenced node") { try stray.checkStructure() }

        let leafAsRoot = try damaged { storage in
            storage.nodes[header.root] = storage.nodes[try firstLeaf(storage)]
        }
        expectThrows(.corrupted, "leaf where a branch belongs") { try leafAsRoot.checkStructure() }
        expectThrows(.corrupted, "leaf where a branch belongs, on select") { _ = try leafAsRoot.key(at: 0) }

        // The copy left the original alone.
        try tree.checkStructure()
    }

    /// Randomly damaged node bytes: every operation either works or throws a LarderError.
    @Test func damagedNodesNeverCrash() throws {
        let (tree, model) = try Self.smallTree()
        var random = SplitMix(seed: 0xBAD)
        let ids = tree.storage.nodes.keys.sorted()
        var detected = 0
        for round in 0..<300 {
            let storage = tree.storage.copy()
            let id = ids.randomElement(using: &random)!
            var bytes = storage.nodes[id]!
            for _ in 0...Int.random(in: 0...2, using: &random) {
                let position = Int.random(in: 0..<max(1, bytes.count), using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0 where !bytes.isEmpty: bytes[position] ^= UInt8.random(in: 1...255, using: &random)
                case 1 where !bytes.isEmpty: bytes[position] = [0x00, 0x01, 0x02, 0x7F, 0x80, 0xFF].randomElement(using: &random)!
                case 2: bytes.insert(UInt8.random(in: 0...255, using: &random), at: min(position, bytes.count))
                default: if !bytes.isEmpty { bytes.remove(at: position) }
                }
            }
            storage.nodes[id] = bytes
            let damaged = CountedTree(storage: storage, fanout: tree.fanout)
            let operations: [(String, () throws -> Void)] = [
                ("checkStructure", { try damaged.checkStructure() }),
                ("rank", { _ = try damaged.rank(of: model.randomElement(using: &random)!) }),
                ("key(at:)", { _ = try damaged.key(at: Int.random(in: 0..<model.count, using: &random)) }),
                ("keys(from:)", { _ = try damaged.keys(from: Int.random(in: 0..<model.count, using: &random), limit: 40, reversed: Bool.random(using: &random)) }),
                ("insert", { _ = try damaged.insert(random.key()) }),
                ("remove", { _ = try damaged.remove(model.randomElement(using: &random)!) }),
                ("removeAll", { try damaged.removeAll() }),
            ]
            for (index, (name, operation)) in operations.enumerated() {
                do {
                    try operation()
                } catch let error as LarderError {
                    if index == 0 { detected += 1 }
                    #expect(error.code == .corrupted || error.code == .corruptValue, "round \(round), \(name): \(error)")
                } catch {
                    Issue.record("round \(round), \(name): \(error) is not a LarderError")
                }
            }
        }
        #expect(detected > 150)
    }

    /// Writes that change a leaf by one key splice its bytes and patch the counts above it in
    /// place; the bytes they leave must be exactly what encoding the decoded nodes gives, and
    /// counts must cross the one- to two-byte varint boundary (128) both ways.
    @Test func splicedAndPatchedNodesAreCanonical() throws {
        let storage = CountingTreeStorage()
        let tree = CountedTree(storage: storage, fanout: 8)
        var random = SplitMix(seed: 0x5111CE)
        var model: [[UInt8]] = []
        var crossings = 0
        /// The counts the root keeps, when it is a branch.
        func rootCounts() throws -> [Int] {
            guard let headerBytes = storage.nodes[0] else { return [] }
            let header = try CountedTreeHeader(decoding: headerBytes)
            guard header.root != 0, case .branch(let children) = try CountedTreeNode(decoding: storage.nodes[header.root]!, id: header.root)
            else { return [] }
            return children.map(\.count)
        }
        for step in 0..<1_500 {
            let before = try rootCounts()
            if step < 900 || Int.random(in: 0..<3, using: &random) == 0 {
                let key = random.key()
                if try tree.insert(key) != nil { model.insert(key, at: modelRank(of: key, in: model)) }
            } else if let key = model.randomElement(using: &random) {
                try tree.remove(key)
                model.remove(at: modelRank(of: key, in: model))
            }
            let after = try rootCounts()
            if before.count == after.count, zip(before, after).contains(where: { ($0 < 128) != ($1 < 128) }) { crossings += 1 }
            for (id, bytes) in storage.nodes where id != 0 {
                try #require(try CountedTreeNode(decoding: bytes, id: id).encoded() == bytes, "node \(id) at step \(step)")
            }
            if step % 50 == 0 { try tree.checkStructure() }
        }
        try tree.checkStructure()
        #expect(try tree.keys(from: 0, limit: model.count, reversed: false) == model)
        #expect(crossings >= 2)
    }

    /// A count that a removal would take below zero is damage, not a crash: removals that leave
    /// their leaf full enough patch the count and find it.
    @Test func aCountPatchedBelowZeroThrows() throws {
        let (tree, model) = try Self.smallTree()
        let header = try CountedTreeHeader(decoding: try #require(tree.storage.nodes[0]))
        var thrown = 0
        for key in model.prefix(20) {
            let storage = tree.storage.copy()
            guard case .branch(var children) = try CountedTreeNode(decoding: storage.nodes[header.root]!, id: header.root) else {
                Issue.record("the root is not a branch")
                return
            }
            children[0].count = 0
            storage.nodes[header.root] = CountedTreeNode.branch(children: children).encoded()
            do {
                try CountedTree(storage: storage, fanout: tree.fanout).remove(key)
            } catch let error as LarderError {
                #expect(error.code == .corrupted, "\(error)")
                thrown += 1
            }
        }
        #expect(thrown > 10)
    }

    /// A key that is not a contiguous collection is copied, and ranks the same.
    @Test func rankAcceptsAnyCollection() throws {
        let tree = CountedTree(storage: CountingTreeStorage())
        for byte in [UInt8(1), 3, 5] { try tree.insert([byte, 0]) }
        #expect(try tree.rank(of: [0, 4].reversed()) == 2)
        #expect(try tree.rank(of: [3, 0].lazy.map { $0 }) == 1)
    }
}
