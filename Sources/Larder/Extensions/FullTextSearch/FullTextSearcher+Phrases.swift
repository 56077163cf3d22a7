extension FullTextSearcher {
    /// The documents where `terms` occur at consecutive positions of one column (`column`, or
    /// any), each with the weighted number of occurrences of the whole phrase.
    ///
    /// The terms are read in order, each restricted to the documents that hold every term read
    /// before it, so the positions of a common term are kept only for the few documents that
    /// can still match.
    func phrase(_ terms: [[UInt8]], column: Int?) throws -> FullTextPostingList {
        var lists: [FullTextPositionList] = []
        var candidates: [UInt64]?
        for term in terms {
            let list = try positions(of: term, column: column, among: candidates)
            if list.count == 0 { return FullTextPostingList() }
            candidates = list.ids
            lists.append(list)
        }
        var result = FullTextPostingList()
        guard let candidates else { return result }
        var cursors = [Int](repeating: 0, count: lists.count)
        var others: [ArraySlice<UInt32>] = []
        candidates: for id in candidates {
            for list in lists.indices {
                let ids = lists[list].ids
                while cursors[list] < ids.count, ids[cursors[list]] < id { cursors[list] += 1 }
                // Every list holds the candidates; only damaged blocks (ids that do not grow
                // from one block to the next) could make one miss.
                guard cursors[list] < ids.count, ids[cursors[list]] == id else { continue candidates }
            }
            let first = lists[0]
            let document = cursors[0]
            var frequency = 0.0
            var found = false
            for entry in first.columnStarts[document]..<first.columnStarts[document + 1] {
                let entryColumn = first.columns[entry]
                others.removeAll(keepingCapacity: true)
                for list in 1..<lists.count { others.append(lists[list].positions(ofDocumentAt: cursors[list], column: entryColumn)) }
                if others.contains(where: \.isEmpty) { continue }
                var occurrences = 0
                for position in first.positions[first.positionStarts[entry]..<first.positionStarts[entry + 1]] {
                    var consecutive = true
                    for (distance, positions) in others.enumerated() {
                        let wanted = UInt64(position) + UInt64(distance + 1)
                        if !Self.contains(positions, wanted) {
                            consecutive = false
                            break
                        }
                    }
                    if consecutive { occurrences += 1 }
                }
                if occurrences > 0 {
                    frequency += weights[entryColumn] * Double(occurrences)
                    found = true
                }
            }
            if found { result.append(id: id, frequency: frequency, length: first.lengths[document]) }
        }
        return result
    }

    /// Whether the sorted `positions` hold `wanted` (a binary search).
    private static func contains(_ positions: ArraySlice<UInt32>, _ wanted: UInt64) -> Bool {
        var low = positions.startIndex
        var high = positions.endIndex
        while low < high {
            let middle = (low + high) / 2
            let found = UInt64(positions[middle])
            if found == wanted { return true }
            if found < wanted { low = middle + 1 } else { high = middle }
        }
        return false
    }

    /// The postings of `term` with their positions in `column` (`nil`: all), for the documents
    /// among `candidates` (sorted; `nil`: all).
    private func positions(of term: [UInt8], column: Int?, among candidates: [UInt64]?) throws -> FullTextPositionList {
        var list = FullTextPositionList()
        var cursor = 0
        let lastColumn = weights.count - 1
        try lmdb.forEachEntry(in: storage.postings, from: term + [0], to: term + [1]) { key, value in
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
                var wanted = true
                if let candidates {
                    while cursor < candidates.count, candidates[cursor] < id { cursor += 1 }
                    wanted = cursor < candidates.count && candidates[cursor] == id
                }
                let entries = try reader.int(upTo: value.count)
                var added = false
                for _ in 0..<entries {
                    let entryColumn = try reader.int(upTo: lastColumn)
                    let occurrences = try reader.int(upTo: value.count)
                    guard wanted, column == nil || column == entryColumn else {
                        try reader.skipVarints(occurrences)
                        continue
                    }
                    var position: UInt64 = 0
                    for occurrence in 0..<occurrences {
                        let step = try reader.varint()
                        position = occurrence == 0 ? step : position &+ step
                        list.positions.append(UInt32(clamping: position))
                    }
                    list.columns.append(entryColumn)
                    list.positionStarts.append(list.positions.count)
                    added = true
                }
                if added {
                    list.ids.append(id)
                    list.lengths.append(length)
                    list.columnStarts.append(list.columns.count)
                }
            }
            guard reader.isAtEnd else { throw reader.damaged("it has bytes after its last document") }
            return candidates.map { cursor < $0.count } ?? true
        }
        return list
    }
}
