/// One document's texts tokenized: each indexed term with the posting it has in the document,
/// as it is stored in a `postings` block after the document id's delta.
///
/// A posting is: the document's total length in tokens, the number of columns where the term
/// occurs, then per column its number, the number of positions and the positions (the first as
/// it is, the others as the difference from the one before), every field a varint.
struct FullTextDocumentTerms: Equatable {
    /// The indexed terms, sorted byte-wise, each once.
    private(set) var terms: [[UInt8]] = []
    /// Where each term's posting lies in ``postingBytes``.
    private(set) var postingRanges: [Range<Int>] = []
    /// The postings of every term, one after the other.
    private(set) var postingBytes: [UInt8] = []
    /// The number of tokens in each column.
    private(set) var columnLengths: [Int] = []

    /// The number of tokens in all columns.
    var length: Int { columnLengths.reduce(0, +) }

    /// The posting of the term at `offset` in ``terms``.
    func posting(at offset: Int) -> ArraySlice<UInt8> { postingBytes[postingRanges[offset]] }

    /// The terms of `texts`, one per column, as `tokenizer` reads them.
    /// - Complexity: O(t log u) for t tokens of which u are distinct.
    init(texts: [String], tokenizer: FullTextTokenizer) {
        // Each distinct term string gets a slot; each token an occurrence of its slot.
        var slotOfTerm: [String: Int] = [:]
        var slotBytes: [[UInt8]?] = []
        var occurrences: [(slot: Int, column: Int, position: Int)] = []
        for (column, text) in texts.enumerated() {
            var count = 0
            tokenizer.forEachToken(in: text) { token in
                count += 1
                let slot: Int
                if let known = slotOfTerm[token.term] {
                    slot = known
                } else {
                    slot = slotBytes.count
                    slotOfTerm[token.term] = slot
                    slotBytes.append(FullTextTerm.bytes(of: token.term))
                }
                if slotBytes[slot] != nil { occurrences.append((slot, column, max(0, token.position))) }
            }
            columnLengths.append(count)
        }

        // Slots whose bytes are equal (terms cut to the same first 255 bytes) share a rank.
        let sortedSlots = slotBytes.indices.filter { slotBytes[$0] != nil }.sorted {
            slotBytes[$0]!.lexicographicallyPrecedes(slotBytes[$1]!)
        }
        var rankOfSlot = [Int](repeating: -1, count: slotBytes.count)
        for slot in sortedSlots {
            if terms.last != slotBytes[slot]! { terms.append(slotBytes[slot]!) }
            rankOfSlot[slot] = terms.count - 1
        }

        // A counting sort by rank keeps each term's occurrences in (column, position) order.
        var starts = [Int](repeating: 0, count: terms.count + 1)
        for occurrence in occurrences { starts[rankOfSlot[occurrence.slot] + 1] += 1 }
        for rank in 0..<terms.count { starts[rank + 1] += starts[rank] }
        var next = starts
        var ordered = [(column: Int, position: Int)](repeating: (0, 0), count: occurrences.count)
        for occurrence in occurrences {
            let rank = rankOfSlot[occurrence.slot]
            ordered[next[rank]] = (occurrence.column, occurrence.position)
            next[rank] += 1
        }

        let length = self.length
        postingBytes.reserveCapacity(occurrences.count * 2 + terms.count * 4)
        for rank in 0..<terms.count {
            let start = postingBytes.count
            let mine = ordered[starts[rank]..<starts[rank + 1]]
            FullTextVarint.append(length, to: &postingBytes)
            var columns = 0
            var previousColumn = -1
            for entry in mine where entry.column != previousColumn {
                columns += 1
                previousColumn = entry.column
            }
            FullTextVarint.append(columns, to: &postingBytes)
            var index = mine.startIndex
            while index < mine.endIndex {
                let column = mine[index].column
                var end = index
                while end < mine.endIndex, mine[end].column == column { end += 1 }
                FullTextVarint.append(column, to: &postingBytes)
                FullTextVarint.append(end - index, to: &postingBytes)
                var previous = 0
                for (number, entry) in mine[index..<end].enumerated() {
                    // Positions grow; a tokenizer that broke that would get a delta of 0, never a trap.
                    FullTextVarint.append(number == 0 ? entry.position : max(0, entry.position - previous), to: &postingBytes)
                    previous = entry.position
                }
                index = end
            }
            postingRanges.append(start..<postingBytes.count)
        }
    }
}
