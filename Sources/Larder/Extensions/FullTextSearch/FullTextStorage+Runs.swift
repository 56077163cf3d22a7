import Synchronization

/// Runs: the postings of small transactions, written where they cost the fewest pages.
///
/// Appending a transaction's new postings to each term's last block rewrites, for a transaction
/// of a few hundred documents, a leaf page or an overflow page for nearly every term it uses:
/// its writes land all over the `postings` tree. So a flush of up to ``runByteLimit`` bytes of
/// postings is written instead as a **run**: the same blocks, keyed
/// `0xFF ‖ run number (UInt64 big-endian) ‖ term ‖ 0x00 ‖ first document id`. No term starts with
/// `0xFF` (a byte UTF-8 never uses), so runs sort after every term, and a run's keys, written in
/// term order with a number larger than any before, are appended at the end of the tree:
/// the transaction writes about as many pages as its postings fill.
///
/// The live runs are numbered `firstRun..<nextRun` in the statistics record (see
/// ``FullTextStatistics``). A run holds documents newer than every document of the blocks and of
/// the runs before it (new documents get growing ids), so a term's postings in id order are its
/// blocks, then its part of each run in run order: that is how every reader walks them.
///
/// The runs are **folded** into the blocks — each term's postings of all runs appended to its
/// last block at once, as a large transaction's are — when they reach ``runCountLimit`` runs or
/// ``runsByteLimit`` bytes (at the flush that would pass either), and before anything edits the
/// postings of an existing document (a change, a removal, clearing a collection), so that edits
/// only ever meet blocks. A transaction whose postings pass ``runByteLimit`` folds the runs and
/// appends to the blocks.
extension FullTextStorage {
    /// The first byte of every key of a run.
    static let runMarker: UInt8 = 0xFF
    /// A flush of at most this many bytes of postings is written as a run. Tests lower it.
    static let runByteLimit = Atomic<Int>(1 << 20)
    /// The most runs kept before they are folded. Tests lower it.
    static let runCountLimit = Atomic<Int>(16)
    /// The most bytes of postings the runs hold before they are folded. Tests lower it.
    static let runsByteLimit = Atomic<Int>(4 << 20)

    /// `0xFF ‖ run`: the start of the keys of run `run`.
    static func runPrefix(_ run: UInt64) -> [UInt8] {
        var prefix = [runMarker]
        FullTextVarint.appendBigEndian(run, to: &prefix)
        return prefix
    }

    /// The keys in [`lower`, `upper`) (`upper` nil: to the end of the terms) of the blocks, then of
    /// each live run, oldest first: where a reader finds the postings of the terms in that range
    /// in document id order (term by term within each part).
    static func postingRanges(from lower: [UInt8], to upper: [UInt8]?, runs: Range<UInt64>) -> [(lower: [UInt8], upper: [UInt8])] {
        let end = [runMarker]
        let blocksUpper = upper.map { $0.lexicographicallyPrecedes(end) ? $0 : end } ?? end
        var ranges = [(lower, blocksUpper)]
        for run in runs {
            let prefix = runPrefix(run)
            ranges.append((prefix + lower, upper.map { prefix + $0 } ?? runPrefix(run + 1)))
        }
        return ranges
    }

    /// The live runs as the stored statistics record says.
    /// - Throws: ``LarderError/Code/corruptValue`` for a damaged record; LMDB failures.
    func runs(in lmdb: LMDBTransaction) throws -> Range<UInt64> {
        try FullTextStatistics.read(from: documents, columns: columnCount, in: lmdb).runs
    }

    /// Whether a flush of `bytes` bytes of postings goes to a new run (rather than folding the
    /// runs and appending to the blocks).
    static func writesRun(_ bytes: Int, after statistics: FullTextStatistics) -> Bool {
        bytes <= runByteLimit.load(ordering: .relaxed)
            && statistics.runs.count < runCountLimit.load(ordering: .relaxed)
            && statistics.runBytes + bytes <= runsByteLimit.load(ordering: .relaxed)
    }

    /// Writes `waiting` (one flush's postings, in term order) as run `statistics.nextRun`, and
    /// raises the store's format to the first with runs.
    /// - Throws: LMDB failures.
    func writeRun(_ waiting: [FullTextPendingPostings.Term], bytes: Int, statistics: inout FullTextStatistics, in lmdb: LMDBTransaction) throws {
        try Environment.raiseFormatVersion(to: StoreFormat.fullTextRuns, in: lmdb)
        let prefix = Self.runPrefix(statistics.nextRun)
        var editor = FullTextPostingsEditor(lmdb: lmdb, postings: postings)
        for term in waiting {
            var termPrefix = prefix
            termPrefix.append(contentsOf: term.term.utf8)
            termPrefix.append(0)
            try editor.writeBlocks(term, prefix: termPrefix)
        }
        statistics.nextRun += 1
        statistics.runBytes += bytes
    }

    /// Folds the live runs into the blocks: each term's postings of every run, in run order,
    /// appended to its last block at once; the runs are then gone.
    /// - Throws: ``LarderError/Code/corruptValue`` for a damaged run; ``LarderError/Code/extensionInconsistent``
    ///   when a run's postings are not newer than the term's blocks; LMDB failures.
    func foldRuns(_ statistics: inout FullTextStatistics, in lmdb: LMDBTransaction) throws {
        guard !statistics.runs.isEmpty else { return }
        var merged: [[UInt8]: FullTextPendingPostings.Term] = [:]
        try lmdb.forEachEntry(in: postings, withPrefix: [Self.runMarker]) { key, value in
            guard key.count >= 19, key[key.count - 9] == 0 else { throw FullTextSearcher.damagedKey() }
            let run = FullTextVarint.bigEndian(in: key, at: 1)
            guard statistics.runs.contains(run) else {
                throw FullTextByteReader(key, what: "a postings key").damaged("it names run \(run), not one of the live runs \(statistics.runs)")
            }
            let term = [UInt8](key[9..<(key.count - 9)])
            let first = FullTextVarint.bigEndian(in: key, at: key.count - 8)
            try Self.append(block: value, first: first, to: &merged[term, default: FullTextPendingPostings.Term(term: String(decoding: term, as: UTF8.self))])
            return true
        }
        try lmdb.removeAll(in: postings, withPrefix: [Self.runMarker])
        var editor = FullTextPostingsEditor(lmdb: lmdb, postings: postings)
        for (term, waiting) in merged.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            guard try editor.append(waiting, to: term) else {
                throw LarderError(.extensionInconsistent, "the full-text index holds a posting of a document of one of its runs: register it with a new versionTag to rebuild it", operation: "fullTextSearch", extensionName: name)
            }
        }
        statistics.firstRun = statistics.nextRun
        statistics.runBytes = 0
    }

    /// Appends the postings of the block `value` (first document `first`) to `waiting`, whose
    /// documents must all be older.
    private static func append(block value: UnsafeRawBufferPointer, first: UInt64, to waiting: inout FullTextPendingPostings.Term) throws {
        var reader = FullTextByteReader(value, what: "a postings block")
        let count = try reader.int(upTo: value.count)
        guard count > 0 else { throw reader.damaged("it holds no document") }
        var id = first
        for number in 0..<count {
            let delta = try reader.varint()
            if number == 0 {
                guard delta == 0 else { throw reader.damaged("its first document is not the one its key names") }
            } else {
                guard delta > 0, id <= UInt64.max - delta else { throw reader.damaged("its document ids do not grow") }
                id += delta
            }
            let start = reader.offset
            try FullTextPostingsEditor.skipPosting(&reader, limit: value.count)
            if waiting.count == 0 {
                waiting.firstID = id
            } else {
                guard id > waiting.lastID else { throw reader.damaged("its document ids are not newer than the run before") }
                FullTextVarint.append(id - waiting.lastID, to: &waiting.bytes)
            }
            waiting.bytes.append(contentsOf: value[start..<reader.offset])
            waiting.lastID = id
            waiting.count += 1
        }
        guard reader.isAtEnd else { throw reader.damaged("it has bytes after its last document") }
    }
}
