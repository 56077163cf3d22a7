/// One document's texts tokenized: each indexed term with the posting it has in the document,
/// as it is stored in a `postings` block after the document id's delta.
///
/// A posting is: the document's total length in tokens, the number of columns where the term
/// occurs, then per column its number, the number of positions and the positions (the first as
/// it is, the others as the difference from the one before), every field a varint.
struct FullTextDocumentTerms: Equatable {
    /// The indexed terms (see ``FullTextTerm/indexed(_:)``), each once, in UTF-8 byte order (any
    /// fixed order serves: it only lines up two documents' terms). Terms are told apart by their
    /// bytes, as the `postings` database keys them (the tokenizer gives them in NFC, where
    /// bytes and `String ==` agree, but nothing here relies on it).
    private(set) var terms: [String] = []
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
    /// - Complexity: O(t + u log u) for t tokens of which u are distinct.
    init(texts: [String], tokenizer: FullTextTokenizer) {
        // Each distinct term string gets a slot; each token an occurrence of its slot.
        var slotOfTerm: [ExactString: Int] = [:]
        var slotTerms: [String?] = []
        var occurrences: [(slot: Int, column: Int, position: Int)] = []
        for (column, text) in texts.enumerated() {
            var count = 0
            tokenizer.forEachToken(in: text) { token in
                count += 1
                let slot: Int
                if let known = slotOfTerm[ExactString(token.term)] {
                    slot = known
                } else {
                    slot = slotTerms.count
                    slotOfTerm[ExactString(token.term)] = slot
                    slotTerms.append(FullTextTerm.indexed(token.term))
                }
                if slotTerms[slot] != nil { occurrences.append((slot, column, max(0, token.position))) }
            }
            columnLengths.append(count)
        }

        // Slots whose indexed terms are equal (terms cut to the same first 255 bytes) share a rank.
        var sortedSlots: [(term: String, slot: Int)] = []
        sortedSlots.reserveCapacity(slotTerms.count)
        for (slot, term) in slotTerms.enumerated() { if let term { sortedSlots.append((term, slot)) } }
        sortedSlots.sort { ExactString.bytesPrecede($0.term, $1.term) }
        var rankOfSlot = [Int](repeating: -1, count: slotTerms.count)
        terms.reserveCapacity(sortedSlots.count)
        for (term, slot) in sortedSlots {
            if !(terms.last.map { ExactString.bytesEqual($0, term) } ?? false) { terms.append(term) }
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
        postingBytes.reserveCapacity(occurrences.count * 2 + terms.count * 5)
        postingRanges.reserveCapacity(terms.count)
        for rank in 0..<terms.count {
            let start = postingBytes.count
            FullTextPendingPostings.encodePosting(ordered[starts[rank]..<starts[rank + 1]], length: length, into: &postingBytes)
            postingRanges.append(start..<postingBytes.count)
        }
    }
}
