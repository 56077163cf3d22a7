/// The documents one leaf of a query matches, in id order, each with the leaf's weighted
/// frequency in it and its length: what scoring needs, gathered in three flat arrays (no
/// allocation per posting).
struct FullTextPostingList {
    var ids: [UInt64] = []
    /// The weighted number of occurrences: each column's count times its weight, summed.
    var frequencies: [Double] = []
    /// The document's length in tokens, all columns.
    var lengths: [UInt64] = []

    var count: Int { ids.count }

    mutating func append(id: UInt64, frequency: Double, length: UInt64) {
        ids.append(id)
        frequencies.append(frequency)
        lengths.append(length)
    }

    /// Puts the postings in id order and merges those of one document (a prefix gathers the
    /// postings of several terms, each in id order, one term after the other).
    mutating func sortAndMerge() {
        guard ids.count > 1 else { return }
        var ordered = true
        for index in 1..<ids.count where ids[index - 1] >= ids[index] {
            ordered = false
            break
        }
        if ordered { return }
        let order = ids.indices.sorted { ids[$0] < ids[$1] || (ids[$0] == ids[$1] && $0 < $1) }
        var merged = FullTextPostingList()
        merged.ids.reserveCapacity(ids.count)
        merged.frequencies.reserveCapacity(ids.count)
        merged.lengths.reserveCapacity(ids.count)
        for index in order {
            if merged.ids.last == ids[index] {
                merged.frequencies[merged.frequencies.count - 1] += frequencies[index]
            } else {
                merged.append(id: ids[index], frequency: frequencies[index], length: lengths[index])
            }
        }
        self = merged
    }
}
