/// Walks the postings of one term document by document, block after block, decoding in place
/// from the bytes LMDB lends: what a phrase needs to check several terms side by side without
/// gathering any of them first. A jump to a later document skips every block that ends before
/// it without decoding it (the next block's key says where it starts). The term's blocks come
/// first, then its blocks in each live run, oldest first (see `FullTextStorage+Runs`): its
/// documents in id order.
struct FullTextPostingCursor {
    private let cursor: Cursor
    /// The key prefix of the term's blocks, then of its blocks in each run.
    private let prefixes: [[UInt8]]
    /// Which of ``prefixes`` the LMDB cursor is in.
    private var part = 0
    private var prefix: [UInt8] { prefixes[part] }
    private let lastColumn: Int
    private var block = UnsafeRawBufferPointer(start: nil, count: 0)
    private var offset = 0
    /// Documents of the block after the current one.
    private var left = 0
    /// The block after the current one, once the LMDB cursor has moved to it.
    private var following: (first: UInt64, value: UnsafeRawBufferPointer)??
    /// Where the current document's column entries start, and whether they were read.
    private var entriesOffset = 0
    private var entriesRead = true
    /// The current document, and its length; `nil` once the term's postings are done.
    private(set) var id: UInt64?
    private(set) var length: UInt64 = 0

    /// A cursor on the postings of `term` (in the blocks, then in the live `runs`), before its
    /// first document; `lastColumn` is the largest column number a posting may name.
    init(_ cursor: Cursor, term: [UInt8], runs: Range<UInt64>, lastColumn: Int) {
        self.cursor = cursor
        var prefix = term
        prefix.append(0)
        prefixes = [prefix] + runs.map { FullTextStorage.runPrefix($0) + prefix }
        self.lastColumn = lastColumn
    }

    private func damaged(_ problem: String) -> LarderError {
        FullTextByteReader(block, what: "a postings block").damaged(problem)
    }

    /// The block whose key the LMDB cursor's `entry` is, if it is one of the term's.
    private func blockOf(_ entry: Cursor.Entry?) throws -> (first: UInt64, value: UnsafeRawBufferPointer)? {
        guard let (key, value) = entry, key.count == prefix.count + 8, key.starts(with: prefix) else { return nil }
        return (FullTextVarint.bigEndian(in: key, at: prefix.count), value)
    }

    /// Moves to the term's first document; `false` when it has none.
    mutating func start() throws -> Bool {
        part = 0
        var first = try prefix.withUnsafeBytes { try blockOf(try cursor.seek(atLeast: $0)) }
        if first == nil { first = try nextPart() }
        guard let first else {
            id = nil
            return false
        }
        return try enter(first)
    }

    /// The first block of the next part (run) that has one, the LMDB cursor moved to it; `nil`
    /// when no part is left.
    private mutating func nextPart() throws -> (first: UInt64, value: UnsafeRawBufferPointer)? {
        while part + 1 < prefixes.count {
            part += 1
            if let found = try prefix.withUnsafeBytes({ try blockOf(try cursor.seek(atLeast: $0)) }) { return found }
        }
        return nil
    }

    /// Starts reading `block` at its first document.
    private mutating func enter(_ entered: (first: UInt64, value: UnsafeRawBufferPointer)) throws -> Bool {
        block = entered.value
        following = nil
        var reader = FullTextByteReader(block, what: "a postings block")
        let count = try reader.int(upTo: block.count)
        guard count > 0 else { throw damaged("it holds no document") }
        offset = reader.offset
        left = count
        id = entered.first
        return try readHeader(first: true)
    }

    /// Reads the header of the next document of the block (its delta and length).
    private mutating func readHeader(first: Bool) throws -> Bool {
        var reader = FullTextByteReader(block, what: "a postings block")
        try reader.skip(to: offset)
        let delta = try reader.varint()
        if first {
            guard delta == 0 else { throw damaged("its first document is not the one its key names") }
        } else {
            guard let current = id, delta > 0, current <= UInt64.max - delta else { throw damaged("its document ids do not grow") }
            id = current + delta
        }
        length = try reader.varint()
        left -= 1
        entriesOffset = reader.offset
        entriesRead = false
        return true
    }

    /// The block after the current one (the LMDB cursor moves to it once).
    private mutating func nextBlock() throws -> (first: UInt64, value: UnsafeRawBufferPointer)? {
        if let following { return following }
        var found = try blockOf(try cursor.next())
        if found == nil { found = try nextPart() }
        if let found, let current = id, found.first <= current {
            throw damaged("a later run holds documents not newer than the ones before it")
        }
        following = .some(found)
        return found
    }

    /// Steps past the current document's column entries, unread.
    private mutating func skipEntries() throws {
        guard !entriesRead else { return }
        var reader = FullTextByteReader(block, what: "a postings block")
        try reader.skip(to: entriesOffset)
        let entries = try reader.int(upTo: block.count)
        for _ in 0..<entries {
            _ = try reader.varint()
            try reader.skipVarints(try reader.int(upTo: block.count))
        }
        offset = reader.offset
        entriesRead = true
    }

    /// Moves to the first document at or after `target`; `false` when there is none.
    mutating func advance(to target: UInt64) throws -> Bool {
        while let current = id {
            if current >= target { return true }
            // A later block that starts at or before the target: jump to it.
            if let next = try nextBlock(), next.first <= target {
                _ = try enter(next)
                continue
            }
            try skipEntries()
            if left > 0 {
                _ = try readHeader(first: false)
            } else if let next = try nextBlock() {
                _ = try enter(next)
            } else {
                id = nil
            }
        }
        return false
    }

    /// Appends the current document's positions in `column` (`nil`: all) to `positions`, each
    /// as `column << 32 | position`, sorted.
    mutating func positions(column: Int?, into positions: inout [UInt64]) throws {
        var reader = FullTextByteReader(block, what: "a postings block")
        try reader.skip(to: entriesOffset)
        let entries = try reader.int(upTo: block.count)
        for _ in 0..<entries {
            let entryColumn = try reader.int(upTo: lastColumn)
            let occurrences = try reader.int(upTo: block.count)
            guard column == nil || column == entryColumn else {
                try reader.skipVarints(occurrences)
                continue
            }
            var position: UInt64 = 0
            for occurrence in 0..<occurrences {
                let step = try reader.varint()
                position = occurrence == 0 ? step : position &+ step
                positions.append(UInt64(entryColumn) << 32 | min(position, 0xFFFF_FFFF))
            }
        }
        offset = reader.offset
        entriesRead = true
    }
}
