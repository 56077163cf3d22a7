/// Runs resolved queries (``FullTextPlan``) against the stored index in one transaction: reads
/// each leaf's postings block by block from the bytes LMDB lends, then combines the sorted
/// document-id lists (intersection for AND, union for OR, difference for NOT).
struct FullTextSearcher {
    let storage: FullTextStorage
    let lmdb: LMDBTransaction
    /// Each column's weight (see ``FullTextSearch/columnWeights``).
    let weights: [Double]
    /// The statistics record as the transaction sees it, read once: what ranking needs, and the
    /// live runs every read of postings walks after the blocks.
    let statistics: FullTextStatistics
    /// The postings blocks the query's prefixes have read, against
    /// ``FullTextQuery/maximumPrefixBlocks``.
    private let prefixBlocks = PrefixBlocks()
    /// The cap on ``prefixBlocksRead`` (``FullTextQuery/maximumPrefixBlocks``; tests lower it).
    var prefixBlockLimit = FullTextQuery.maximumPrefixBlocks
    /// The postings blocks the prefixes read so far.
    var prefixBlocksRead: Int { prefixBlocks.read }

    /// A count shared by the copies of a searcher (its reads are not `mutating`).
    private final class PrefixBlocks {
        var read = 0
    }

    /// A searcher of `storage` in `lmdb`, whose pending writes are settled.
    /// - Throws: ``LarderError/Code/corruptValue`` for a damaged statistics record; LMDB failures.
    init(storage: FullTextStorage, lmdb: LMDBTransaction, weights: [Double]) throws {
        self.storage = storage
        self.lmdb = lmdb
        self.weights = weights
        statistics = try FullTextStatistics.read(from: storage.documents, columns: storage.columnCount, in: lmdb)
    }

    /// The documents `plan` matches, in id order, and the postings of the leaves read on the way
    /// (by leaf number; a leaf not needed to find the documents is not read).
    /// - Throws: ``LarderError/Code/corruptValue`` for damaged blocks; LMDB failures.
    func matches(_ plan: FullTextPlan, lists: inout [FullTextPostingList?]) throws -> [UInt64] {
        if lists.count < plan.leaves.count { lists = [FullTextPostingList?](repeating: nil, count: plan.leaves.count) }
        return try matches(plan.root, plan: plan, lists: &lists)
    }

    /// One node of the plan being matched: what its children matched so far (an OR keeps the
    /// union of them, an AND and a NOT each list), and how many have been matched.
    private struct Pending {
        let node: FullTextPlan.Node
        var found: [[UInt64]] = []
        var done = 0
    }

    /// The documents `node` matches, its nodes walked with a stack of their own rather than by
    /// recursion. An AND stops at its first child that matches nothing, and a NOT does not read
    /// what it excludes when nothing is left to exclude from.
    private func matches(_ node: FullTextPlan.Node, plan: FullTextPlan, lists: inout [FullTextPostingList?]) throws -> [UInt64] {
        var stack = [Pending(node: node)]
        // What the node just finished matched, for the one below it on the stack.
        var finished: [UInt64] = []
        var hasFinished = false
        while !stack.isEmpty {
            let top = stack.count - 1
            if hasFinished {
                if case .or = stack[top].node {
                    stack[top].found = [Self.union(stack[top].found.first ?? [], finished)]
                } else {
                    stack[top].found.append(finished)
                }
                stack[top].done += 1
                hasFinished = false
            }
            let pending = stack[top]
            var child: FullTextPlan.Node?
            var result: [UInt64] = []
            switch pending.node {
            case .leaf(let leaf):
                result = try postings(ofLeaf: leaf, in: plan, lists: &lists).ids
            case .and(let children):
                if pending.found.last?.isEmpty == true {
                    result = []
                } else if pending.done < children.count {
                    child = children[pending.done]
                } else {
                    let found = pending.found.sorted { $0.count < $1.count }
                    result = found.first.map { shortest in found.dropFirst().reduce(shortest) { Self.intersection($0, $1) } } ?? []
                }
            case .or(let children):
                if pending.done < children.count {
                    child = children[pending.done]
                } else {
                    result = pending.found.first ?? []
                }
            case .not(let kept, let excluded):
                if pending.done == 0 {
                    child = kept
                } else if pending.found[0].isEmpty {
                    result = []
                } else if pending.done == 1 {
                    child = excluded
                } else {
                    result = Self.difference(pending.found[0], pending.found[1])
                }
            }
            if let child {
                stack.append(Pending(node: child))
            } else {
                stack.removeLast()
                finished = result
                hasFinished = true
            }
        }
        return finished
    }

    /// The postings of leaf number `leaf`, read once.
    func postings(ofLeaf leaf: Int, in plan: FullTextPlan, lists: inout [FullTextPostingList?]) throws -> FullTextPostingList {
        if let known = lists[leaf] { return known }
        let source = plan.source[leaf]
        if let known = lists[source] {
            lists[leaf] = known
            return known
        }
        let read = try postings(of: plan.leaves[source])
        lists[source] = read
        lists[leaf] = read
        return read
    }

    private func postings(of leaf: FullTextPlan.Leaf) throws -> FullTextPostingList {
        var list = FullTextPostingList()
        switch leaf.match {
        case .nothing:
            break
        case .term(let term):
            try read(from: term + [0], to: term + [1], column: leaf.column, into: &list)
        case .prefix(let start):
            try read(from: start, to: LMDBTransaction.keyAfterPrefix(start), column: leaf.column, into: &list, countingBlocks: true)
            list.sortAndMerge()
        case .phrase(let terms):
            list = try phrase(terms, column: leaf.column)
        }
        return list
    }

    static func damagedKey() -> LarderError {
        LarderError(.corruptValue, "a postings key of a full-text search is not term, NUL, document id; register it with a new versionTag to rebuild it", operation: "fullTextSearch")
    }

    /// Appends to `list` every posting of the terms in [`lower`, `upper`) (`upper` nil: every term
    /// from `lower` on) that has an occurrence in `column` (`nil`: any), with its weighted
    /// frequency: from the blocks, then from each live run (see `FullTextStorage+Runs`), so that a
    /// term's postings come in document id order.
    private func read(from lower: [UInt8], to upper: [UInt8]?, column: Int?, into list: inout FullTextPostingList, countingBlocks: Bool = false) throws {
        for range in FullTextStorage.postingRanges(from: lower, to: upper, runs: statistics.runs) {
            try readBlocks(from: range.lower, to: range.upper, column: column, into: &list, countingBlocks: countingBlocks)
        }
    }

    /// Appends to `list` the postings of the blocks with keys in [`lower`, `upper`) that have an
    /// occurrence in `column` (`nil`: any).
    private func readBlocks(from lower: [UInt8], to upper: [UInt8], column: Int?, into list: inout FullTextPostingList, countingBlocks: Bool) throws {
        let weights = self.weights
        let lastColumn = weights.count - 1
        let prefixBlocks = self.prefixBlocks
        let limit = prefixBlockLimit
        try lmdb.forEachEntry(in: storage.postings, from: lower, to: upper) { key, value in
            if countingBlocks {
                prefixBlocks.read += 1
                guard prefixBlocks.read <= limit else {
                    throw LarderError(.invalidQuery, "the query's prefixes match terms whose postings fill more than \(limit) blocks (FullTextQuery.maximumPrefixBlocks); use longer prefixes, or fewer of them", operation: "fullTextSearch")
                }
            }
            guard key.count >= 9, key[key.count - 9] == 0 else { throw Self.damagedKey() }
            var id = FullTextVarint.bigEndian(in: key, at: key.count - 8)
            var reader = FullTextByteReader(value, what: "a postings block")
            let count = try reader.int(upTo: value.count)
            for number in 0..<count {
                let delta = try reader.varint()
                if number > 0 {
                    guard delta > 0, id <= UInt64.max - delta else { throw reader.damaged("its document ids do not grow") }
                    id += delta
                }
                let length = try reader.varint()
                let entries = try reader.int(upTo: value.count)
                var frequency = 0.0
                var found = false
                for _ in 0..<entries {
                    let entryColumn = try reader.int(upTo: lastColumn)
                    let occurrences = try reader.int(upTo: value.count)
                    try reader.skipVarints(occurrences)
                    if column == nil || column == entryColumn {
                        frequency += weights[entryColumn] * Double(occurrences)
                        found = true
                    }
                }
                if found { list.append(id: id, frequency: frequency, length: length) }
            }
            guard reader.isAtEnd else { throw reader.damaged("it has bytes after its last document") }
            return true
        }
    }

    // MARK: Sorted id lists

    static func intersection(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var result: [UInt64] = []
        result.reserveCapacity(min(a.count, b.count))
        var i = 0
        var j = 0
        while i < a.count, j < b.count {
            if a[i] < b[j] {
                i += 1
            } else if a[i] > b[j] {
                j += 1
            } else {
                result.append(a[i])
                i += 1
                j += 1
            }
        }
        return result
    }

    static func union(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        var result: [UInt64] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && a[i] < b[j]) {
                result.append(a[i])
                i += 1
            } else if i == a.count || b[j] < a[i] {
                result.append(b[j])
                j += 1
            } else {
                result.append(a[i])
                i += 1
                j += 1
            }
        }
        return result
    }

    static func difference(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        if b.isEmpty { return a }
        var result: [UInt64] = []
        result.reserveCapacity(a.count)
        var j = 0
        for id in a {
            while j < b.count, b[j] < id { j += 1 }
            if j == b.count || b[j] != id { result.append(id) }
        }
        return result
    }
}
