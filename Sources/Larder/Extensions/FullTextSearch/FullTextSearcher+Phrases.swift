extension FullTextSearcher {
    /// The documents where `terms` occur at consecutive positions of one column (`column`, or
    /// any), each with the weighted number of occurrences of the whole phrase.
    ///
    /// The terms' postings are walked side by side, one cursor each (``FullTextPostingCursor``):
    /// each moves to the largest document the others are at, skipping whole blocks where it
    /// can, and only documents that hold every term have their positions decoded. Each such
    /// document's sorted positions are then walked together.
    func phrase(_ terms: [[UInt8]], column: Int?) throws -> FullTextPostingList {
        var result = FullTextPostingList()
        let lastColumn = weights.count - 1
        let runs = statistics.runs
        try lmdb.withCursors(storage.postings, count: terms.count) { opened in
            var cursors = zip(opened, terms).map { FullTextPostingCursor($0, term: $1, runs: runs, lastColumn: lastColumn) }
            for index in cursors.indices { guard try cursors[index].start() else { return } }
            var current: [UInt64] = []
            var following: [UInt64] = []
            var kept: [UInt64] = []
            var target: UInt64 = 0
            while true {
                // Every cursor at the same document, or done.
                var aligned = false
                while !aligned {
                    aligned = true
                    for index in cursors.indices {
                        guard try cursors[index].advance(to: target), let id = cursors[index].id else { return }
                        if id > target {
                            target = id
                            aligned = false
                        }
                    }
                }
                current.removeAll(keepingCapacity: true)
                try cursors[0].positions(column: column, into: &current)
                for distance in 1..<cursors.count where !current.isEmpty {
                    following.removeAll(keepingCapacity: true)
                    try cursors[distance].positions(column: column, into: &following)
                    // Keep the starts whose word `distance` further on is the phrase's.
                    kept.removeAll(keepingCapacity: true)
                    var cursor = 0
                    for start in current {
                        let wanted = start + UInt64(distance)
                        while cursor < following.count, following[cursor] < wanted { cursor += 1 }
                        if cursor == following.count { break }
                        if following[cursor] == wanted { kept.append(start) }
                    }
                    swap(&current, &kept)
                }
                if !current.isEmpty {
                    // The starts are sorted by column: each column's count times its weight.
                    var frequency = 0.0
                    var index = 0
                    while index < current.count {
                        let entryColumn = current[index] >> 32
                        var end = index
                        while end < current.count, current[end] >> 32 == entryColumn { end += 1 }
                        frequency += weights[Int(entryColumn)] * Double(end - index)
                        index = end
                    }
                    result.append(id: target, frequency: frequency, length: cursors[0].length)
                }
                guard target < UInt64.max else { return }
                target += 1
            }
        }
        return result
    }
}
