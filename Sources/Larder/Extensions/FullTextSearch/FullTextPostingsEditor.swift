/// Changes the postings of one term in the `postings` database: finds the block that holds (or
/// should hold) a document, and inserts, replaces or removes the document's posting there.
///
/// A block is keyed by `term ‖ 0x00 ‖ first document id (UInt64 big-endian)` and holds the
/// postings of up to ``maximumBlockDocuments`` documents in id order, within about
/// ``maximumBlockBytes`` bytes (a single posting larger than that has a block to itself). Its
/// value: the number of documents, then per document the difference of its id from the one before
/// (the first: from the key's id, so 0) followed by its posting (see ``FullTextDocumentTerms``);
/// every number a varint.
///
/// Each edit reads the block once and writes it once; one that keeps the block within its caps
/// splices the block's bytes, stepping over the postings before the document only. Document ids
/// grow, so the postings of new documents are appended to the term's last block (``append(_:to:)``, for all the documents a
/// transaction added at once) without decoding the postings before them beyond their
/// boundaries; a full block gets new blocks after it. An insert into a full block in the middle
/// splits it; a block left empty is deleted; a block whose first document is removed (or that
/// gets one before it) is stored again under its new first id. Blocks are not merged when they
/// shrink.
struct FullTextPostingsEditor {
    /// The size a block may reach before a posting appended to it starts a new one: a full block
    /// fills one 4 KiB LMDB overflow page exactly (4,080 bytes and the page's 16-byte header),
    /// where it wastes nothing and grows without splitting leaf pages, while a block under about
    /// 2 KiB stays on a B-tree leaf page beside others. Measured on 20 k documents of 50 to 250
    /// words (3 M tokens, 17.6 MB of postings): with blocks of at most 1 KiB, all on leaf pages
    /// that splits leave about 60% full, the postings took 29 MB; with this cap, 21 MB.
    static let maximumBlockBytes = 4_080
    /// The number of documents a block may hold: a bound on the work of an edit in the middle of
    /// a block; the byte cap is reached first unless postings are tiny.
    static let maximumBlockDocuments = 1_024

    let lmdb: LMDBTransaction
    let postings: DatabaseHandle

    /// The block being edited, copied out of the map (a write would invalidate the lent bytes).
    var block: [UInt8] = []
    /// The block's postings: each document's id and its posting's range in ``block``, or, with
    /// `new`, in the posting being written.
    var entries: [(id: UInt64, range: Range<Int>, new: Bool)] = []
    /// The postings being appended (``append(_:to:)``): each one's id, where it starts (its
    /// delta) and where its posting lies in the waiting bytes.
    var waitingEntries: [(id: UInt64, start: Int, posting: Range<Int>)] = []
    var key: [UInt8] = []
    var value: [UInt8] = []
    /// The last key of `postings` when an append of waiting postings began (`nil`: it was
    /// empty): a new block with a larger key is written at the end of the tree
    /// (``LMDBTransaction/putAtEnd(_:key:value:)``), which keeps its pages full.
    var lastKey: [UInt8]?
    /// Whether ``lastKey`` is known.
    var knowsLastKey = false

    init(lmdb: LMDBTransaction, postings: DatabaseHandle) {
        self.lmdb = lmdb
        self.postings = postings
    }

    /// Stores `posting` as document `id`'s posting of `term`, or removes it (`posting` nil).
    /// `existing` says whether the document has a posting of the term now (the previous value
    /// says so). Returns `false`, changing nothing, when the postings disagree: a posting to
    /// replace or remove is not there, or a posting to insert is there already.
    /// - Throws: ``LarderError/Code/corruptValue`` for a damaged block; LMDB failures.
    mutating func edit(term: [UInt8], id: UInt64, posting: ArraySlice<UInt8>?, existing: Bool) throws -> Bool {
        var prefix = term
        prefix.append(0)
        key = prefix
        FullTextVarint.appendBigEndian(id, to: &key)
        var upper = key
        upper.append(0)  // just after `key`: the blocks whose first id is at most `id`
        var first: UInt64?
        try lmdb.forEachEntry(in: postings, from: prefix, to: upper, reversed: true) { found, bytes in
            first = try Self.blockID(of: found, prefixLength: prefix.count)
            block.removeAll(keepingCapacity: true)
            block.append(contentsOf: bytes)
            return false
        }
        if first == nil {
            guard !existing, let posting else { return false }
            // Before the term's first block, if it has any.
            var after = term
            after.append(1)
            try lmdb.forEachEntry(in: postings, from: prefix, to: after) { found, bytes in
                first = try Self.blockID(of: found, prefixLength: prefix.count)
                block.removeAll(keepingCapacity: true)
                block.append(contentsOf: bytes)
                return false
            }
            guard first != nil else {
                value.removeAll(keepingCapacity: true)
                value.append(1)
                value.append(0)
                value.append(contentsOf: posting)
                try put(key: key, value: value)
                return true
            }
        }
        guard let first else { return false }
        // Most edits fit the block: its bytes are spliced (``splice(id:posting:existing:prefix:first:)``).
        if let done = try splice(id: id, posting: posting, existing: existing, prefix: prefix, first: first) { return done }
        let countEnd = try parse(first: first)
        let position = entries.firstIndex { $0.id >= id } ?? entries.endIndex
        let present = position < entries.endIndex && entries[position].id == id
        guard present == existing else { return false }

        if let posting, position == entries.endIndex {
            return try appendAtEnd(posting, id: id, prefix: prefix, first: first, countEnd: countEnd)
        }
        let range = posting.map { $0.startIndex..<$0.endIndex }
        switch (present, range) {
        case (true, let range?): entries[position] = (id, range, true)
        case (true, nil): entries.remove(at: position)
        case (false, let range?): entries.insert((id, range, true), at: position)
        case (false, nil): return false
        }
        try store(prefix: prefix, oldFirst: first, posting: posting)
        return true
    }

    /// The document id a `postings` key ends with.
    static func blockID(of key: UnsafeRawBufferPointer, prefixLength: Int) throws(LarderError) -> UInt64 {
        guard key.count == prefixLength + 8 else {
            throw LarderError(.corruptValue, "a postings key of a full-text search is not term, NUL, document id; register it with a new versionTag to rebuild it", operation: "fullTextSearch")
        }
        return FullTextVarint.bigEndian(in: key, at: prefixLength)
    }

    /// Reads ``block`` into ``entries``; returns where its document count ends.
    mutating func parse(first: UInt64) throws -> Int {
        entries.removeAll(keepingCapacity: true)
        return try block.withUnsafeBytes { bytes throws(LarderError) -> Int in
            var reader = FullTextByteReader(bytes, what: "a postings block")
            let count = try reader.int(upTo: bytes.count)
            let countEnd = reader.offset
            var id = first
            for number in 0..<count {
                let delta = try reader.varint()
                if number > 0 {
                    guard delta > 0, id <= UInt64.max - delta else { throw reader.damaged("its document ids do not grow") }
                    id += delta
                } else {
                    guard delta == 0 else { throw reader.damaged("its first document is not the one its key names") }
                }
                let start = reader.offset
                try Self.skipPosting(&reader, limit: bytes.count)
                entries.append((id, start..<reader.offset, false))
            }
            guard reader.isAtEnd else { throw reader.damaged("it has bytes after its last document") }
            return countEnd
        }
    }

    /// Steps over one posting (the document's length and its column entries).
    @inline(__always)
    static func skipPosting(_ reader: inout FullTextByteReader, limit: Int) throws(LarderError) {
        _ = try reader.varint()
        let columns = try reader.int(upTo: limit)
        for _ in 0..<columns {
            _ = try reader.varint()
            try reader.skipVarints(try reader.int(upTo: limit))
        }
    }

    /// Appends `posting` of document `id`, after every document of the block, to the block, or
    /// starts a new block with it when the block is full.
    private mutating func appendAtEnd(_ posting: ArraySlice<UInt8>, id: UInt64, prefix: [UInt8], first: UInt64, countEnd: Int) throws -> Bool {
        let count = entries.count
        let delta = id - entries[count - 1].id
        let size = block.count - countEnd + FullTextVarint.size(of: UInt64(count + 1)) + FullTextVarint.size(of: delta) + posting.count
        value.removeAll(keepingCapacity: true)
        if count + 1 <= Self.maximumBlockDocuments, size <= Self.maximumBlockBytes {
            FullTextVarint.append(count + 1, to: &value)
            value.append(contentsOf: block[countEnd...])
            FullTextVarint.append(delta, to: &value)
            value.append(contentsOf: posting)
            key = prefix
            FullTextVarint.appendBigEndian(first, to: &key)
        } else {
            value.append(1)
            value.append(0)
            value.append(contentsOf: posting)
            key = prefix
            FullTextVarint.appendBigEndian(id, to: &key)
        }
        try put(key: key, value: value)
        return true
    }

    /// Writes ``entries`` back as one block, or as several when they no longer fit one, and
    /// deletes the block's old key when its first id changed.
    private mutating func store(prefix: [UInt8], oldFirst: UInt64, posting: ArraySlice<UInt8>?) throws {
        var oldKey = prefix
        FullTextVarint.appendBigEndian(oldFirst, to: &oldKey)
        guard !entries.isEmpty else {
            try oldKey.withUnsafeBytes { _ = try lmdb.delete(postings, key: $0) }
            return
        }
        var total = 0
        for entry in entries { total += entry.range.count + 2 }
        let pieces = max((total + Self.maximumBlockBytes - 1) / Self.maximumBlockBytes,
                         (entries.count + Self.maximumBlockDocuments - 1) / Self.maximumBlockDocuments, 1)
        var cuts: [Int] = []
        // Each posting's bytes in a block: its delta, then the posting.
        var sizes: [Int] = []
        if pieces == 2 {
            sizes.reserveCapacity(entries.count)
            var previous = entries[0].id
            for entry in entries {
                sizes.append(entry.range.count + FullTextVarint.size(of: entry.id - previous))
                previous = entry.id
            }
        }
        if pieces == 2, let cut = Self.unevenCut(sizes, total: sizes.reduce(0, +)),
           cut <= Self.maximumBlockDocuments, entries.count - cut <= Self.maximumBlockDocuments {
            // A block that grew just past the cap: two halves of about 2 KiB would each take a
            // 4 KiB overflow page; a nearly full block and a small one take one page and a node.
            cuts.append(cut)
        } else {
            // Cut where the running size passes each piece's share, never leaving a piece empty.
            var running = 0
            for (offset, entry) in entries.enumerated() {
                if cuts.count < pieces - 1, offset > (cuts.last ?? 0), running >= total * (cuts.count + 1) / pieces {
                    cuts.append(offset)
                }
                running += entry.range.count + 2
            }
        }
        cuts.append(entries.count)
        if entries[0].id != oldFirst { try oldKey.withUnsafeBytes { _ = try lmdb.delete(postings, key: $0) } }
        var start = 0
        for end in cuts {
            value.removeAll(keepingCapacity: true)
            FullTextVarint.append(end - start, to: &value)
            var previous = entries[start].id
            for entry in entries[start..<end] {
                FullTextVarint.append(entry.id - previous, to: &value)
                previous = entry.id
                if entry.new, let posting {
                    value.append(contentsOf: posting[entry.range])
                } else {
                    value.append(contentsOf: block[entry.range])
                }
            }
            key = prefix
            FullTextVarint.appendBigEndian(entries[start].id, to: &key)
            try put(key: key, value: value)
            start = end
        }
    }

    /// Room left in the first piece of an uneven split, for the postings later edits add.
    static let splitHeadroom = 512

    /// Where to cut a block of postings of `sizes` (`total` in all, just over the cap) into a
    /// nearly full first piece, which keeps its overflow page, and a small second one, which
    /// stays on a leaf page: after the first posting that fills the first piece to within
    /// ``splitHeadroom`` of the cap. `nil` when the second piece would not fit a block.
    static func unevenCut(_ sizes: some Sequence<Int>, total: Int) -> Int? {
        var running = 0
        for (offset, size) in sizes.enumerated() {
            if offset > 0, running + size > maximumBlockBytes - splitHeadroom {
                return total - running <= maximumBlockBytes ? offset : nil
            }
            running += size
        }
        return nil
    }

    func put(key: [UInt8], value: [UInt8]) throws {
        try key.withUnsafeBytes { key in try value.withUnsafeBytes { try lmdb.put(postings, key: key, value: $0) } }
    }

    /// Writes a new block: at the end of the tree when its key is past ``lastKey``.
    mutating func putNew(key: [UInt8], value: [UInt8]) throws {
        if !knowsLastKey {
            lastKey = try lmdb.lastKey(in: postings)
            knowsLastKey = true
        }
        if lastKey.map({ $0.lexicographicallyPrecedes(key) }) ?? true {
            let appended = try key.withUnsafeBytes { key in try value.withUnsafeBytes { try lmdb.putAtEnd(postings, key: key, value: $0) } }
            if appended {
                lastKey = key
                return
            }
        }
        try put(key: key, value: value)
    }
}
