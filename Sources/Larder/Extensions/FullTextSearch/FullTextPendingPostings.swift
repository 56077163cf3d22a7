import Synchronization

/// The postings of the documents a write transaction added, held in memory per term until the
/// transaction commits, reads the search, edits one of those terms otherwise, or holds more
/// than ``byteLimit``; then each term's postings are appended to its last block at once (see
/// ``FullTextPostingsEditor/append(_:to:)``). A bulk write of n documents thus reads and writes
/// each term's last block once per flush, not once per document.
///
/// A new document is tokenized straight into it (``addDocument(_:texts:tokenizer:)``): each
/// token costs one lookup of its term in a table kept for the whole transaction, and the
/// document's postings are encoded onto their terms' waiting bytes, with no sorting and no
/// table of the document's own.
///
/// It also holds the statistics record while the transaction changes it.
///
/// A value: each search keeps one in its ``FullTextWriteState`` for each write attempt, copied
/// for each caller of a group commit, so a caller that fails takes its postings with it.
struct FullTextPendingPostings {
    /// One term's waiting postings, in document id order: the first document's posting, then
    /// for each next one the difference of its id from the one before and its posting, as a
    /// block lays them out after its first document. `count` 0: none wait.
    struct Term {
        var term: String
        var firstID: UInt64 = 0
        var lastID: UInt64 = 0
        var count = 0
        var bytes: [UInt8] = []
    }

    /// What the table keeps of a term's slot besides its postings, side by side so that a
    /// token's lookup touches one place: the term, whether it can be indexed
    /// (``FullTextTerm/indexed(_:)``), the last document that used it and its rank there.
    private struct Slot {
        var key: String
        var indexable: Bool
        var lastDocument: UInt64 = 0
        var rank = 0
    }

    /// Beyond this many bytes of waiting postings, they are written at once, so that a bulk
    /// write does not hold them all in memory. Tests lower it.
    static let byteLimit = Atomic<Int>(64 << 20)

    /// Each term's slot, for the whole transaction, by the term as the tokenizer gives it (a
    /// term over 255 bytes is looked up cut).
    private var table = FullTextTermTable()
    private var slots: [Slot] = []
    /// By slot: the term's waiting postings.
    private var terms: [Term] = []
    /// The number of slots with waiting postings.
    private var waitingTerms = 0
    /// The document being added: its terms' slots by rank, its occurrences, and the occurrences
    /// ordered by rank (kept between documents to reuse their storage).
    private var documentSlots: [Int] = []
    private var occurrences: [(rank: Int, column: Int, position: Int)] = []
    private var ordered: [(column: Int, position: Int)] = []
    private var scratch: [UInt8] = []
    /// The bytes of the waiting postings, and a little for each term.
    private(set) var byteCount = 0
    /// The statistics as this transaction left them, when it read them.
    var statistics: FullTextStatistics?
    /// Whether ``statistics`` differs from the stored record.
    var statisticsChanged = false

    var hasPostings: Bool { waitingTerms > 0 }

    var isOverLimit: Bool { byteCount > Self.byteLimit.load(ordering: .relaxed) }

    /// The slot of `term`, made when it is new.
    @inline(__always)
    private mutating func slot(of term: String) -> Int {
        let key = term.utf8.count > FullTextTerm.maximumBytes ? FullTextTerm.indexed(term) ?? term : term
        let hash = FullTextTermTable.hash(key)
        if let known = table.slot(hash: hash, isTerm: { ExactString.bytesEqual(slots[$0].key, key) }) { return known }
        let slot = slots.count
        table.insert(hash: hash, slot: slot)
        let indexed = FullTextTerm.indexed(key)
        slots.append(Slot(key: key, indexable: indexed != nil))
        terms.append(Term(term: indexed ?? key))
        byteCount += key.utf8.count + 96
        return slot
    }

    /// Tokenizes `texts` (one per column) of the new document `id`, which is larger than every
    /// document id so far, and adds its postings; returns its number of tokens per column.
    /// - Complexity: O(t) for the t tokens of the texts (one table lookup each).
    mutating func addDocument(_ id: UInt64, texts: [String], tokenizer: FullTextTokenizer) -> [Int] {
        documentSlots.removeAll(keepingCapacity: true)
        occurrences.removeAll(keepingCapacity: true)
        var lengths: [Int] = []
        lengths.reserveCapacity(texts.count)
        for (column, text) in texts.enumerated() {
            var count = 0
            tokenizer.forEachToken(in: text) { token in
                count += 1
                let slot = slot(of: token.term)
                guard slots[slot].indexable else { return }
                if slots[slot].lastDocument != id {
                    slots[slot].lastDocument = id
                    slots[slot].rank = documentSlots.count
                    documentSlots.append(slot)
                }
                occurrences.append((slots[slot].rank, column, max(0, token.position)))
            }
            lengths.append(count)
        }
        let length = lengths.reduce(0, +)

        // A counting sort by rank keeps each term's occurrences in (column, position) order.
        var starts = [Int](repeating: 0, count: documentSlots.count + 1)
        for occurrence in occurrences { starts[occurrence.rank + 1] += 1 }
        for rank in 0..<documentSlots.count { starts[rank + 1] += starts[rank] }
        var next = starts
        ordered.removeAll(keepingCapacity: true)
        ordered.append(contentsOf: repeatElement((column: 0, position: 0), count: occurrences.count))
        for occurrence in occurrences {
            ordered[next[occurrence.rank]] = (occurrence.column, occurrence.position)
            next[occurrence.rank] += 1
        }

        // Each posting is encoded in a scratch buffer, then copied onto its term's bytes at once.
        var posting = scratch
        scratch = []
        defer { scratch = posting }
        for (rank, slot) in documentSlots.enumerated() {
            posting.removeAll(keepingCapacity: true)
            if terms[slot].count == 0 {
                terms[slot].firstID = id
                waitingTerms += 1
            } else {
                FullTextVarint.append(id &- terms[slot].lastID, to: &posting)
            }
            Self.encodePosting(ordered[starts[rank]..<starts[rank + 1]], length: length, into: &posting)
            terms[slot].lastID = id
            terms[slot].count += 1
            terms[slot].bytes.append(contentsOf: posting)
            byteCount += posting.count
        }
        return lengths
    }

    /// Appends the posting of occurrences `mine` (sorted by column, then position) in a
    /// document of `length` tokens (see ``FullTextDocumentTerms``).
    static func encodePosting(_ mine: ArraySlice<(column: Int, position: Int)>, length: Int, into bytes: inout [UInt8]) {
        FullTextVarint.append(length, to: &bytes)
        var columns = 0
        var previousColumn = -1
        for entry in mine where entry.column != previousColumn {
            columns += 1
            previousColumn = entry.column
        }
        FullTextVarint.append(columns, to: &bytes)
        var index = mine.startIndex
        while index < mine.endIndex {
            let column = mine[index].column
            var last = index
            while last < mine.endIndex, mine[last].column == column { last += 1 }
            FullTextVarint.append(column, to: &bytes)
            FullTextVarint.append(last - index, to: &bytes)
            var previous = 0
            for entry in index..<last {
                let position = mine[entry].position
                // Positions grow; a tokenizer that broke that would get a delta of 0, never a trap.
                FullTextVarint.append(entry == index ? position : max(0, position - previous), to: &bytes)
                previous = position
            }
            index = last
        }
    }

    /// Takes the waiting postings of `term` out, if it has any.
    mutating func take(_ term: String) -> Term? {
        let key = term.utf8.count > FullTextTerm.maximumBytes ? FullTextTerm.indexed(term) ?? term : term
        guard let slot = table.slot(hash: FullTextTermTable.hash(key), isTerm: { ExactString.bytesEqual(slots[$0].key, key) }), terms[slot].count > 0 else { return nil }
        let taken = terms[slot]
        terms[slot] = Term(term: taken.term)
        waitingTerms -= 1
        byteCount -= taken.bytes.count
        return taken
    }

    /// Takes every term's waiting postings out, in term order.
    mutating func takeAll() -> [Term] {
        guard waitingTerms > 0 else { return [] }
        var taken: [Term] = []
        taken.reserveCapacity(waitingTerms)
        for slot in terms.indices where terms[slot].count > 0 {
            taken.append(terms[slot])
            terms[slot] = Term(term: terms[slot].term)
        }
        waitingTerms = 0
        byteCount = slots.reduce(0) { $0 + $1.key.utf8.count + 96 }
        return taken.sorted { ExactString.bytesPrecede($0.term, $1.term) }
    }
}
