extension FullTextPostingsEditor {
    /// Appends a transaction's waiting postings of `term` (documents added by it, whose ids are
    /// larger than every id the term has) to the term's last block, as many as fit, and the rest
    /// as new full blocks: one read of the last block, one write per block written.
    /// - Returns: `false` when a waiting posting is not past the term's last one (the index is
    ///   damaged or inconsistent).
    /// - Throws: ``LarderError/Code/corruptValue`` for a damaged block; LMDB failures.
    mutating func append(_ waiting: FullTextPendingPostings.Term, to term: [UInt8]) throws -> Bool {
        var prefix = term
        prefix.append(0)
        var after = term
        after.append(1)
        var first: UInt64?
        try lmdb.forEachEntry(in: postings, from: prefix, to: after, reversed: true) { found, bytes in
            first = try Self.blockID(of: found, prefixLength: prefix.count)
            block.removeAll(keepingCapacity: true)
            block.append(contentsOf: bytes)
            return false
        }
        try parseWaiting(waiting)
        var next = 0  // the first waiting posting not written yet
        if let first {
            let countEnd = try parse(first: first)
            guard let last = entries.last?.id else {
                throw FullTextByteReader(UnsafeRawBufferPointer(start: nil, count: 0), what: "a postings block").damaged("it holds no document")
            }
            guard waiting.firstID > last else {
                // Not an append (only a damaged or inconsistent index gets here): one by one.
                for entry in waitingEntries {
                    guard try edit(term: term, id: entry.id, posting: waiting.bytes[entry.posting], existing: false) else { return false }
                }
                return true
            }
            // As many as fit in the last block.
            var size = block.count - countEnd + FullTextVarint.size(of: waiting.firstID - last)
            var count = entries.count
            while next < waitingEntries.count {
                let entry = waitingEntries[next]
                let added = (next == 0 ? 0 : entry.posting.lowerBound - entry.start) + entry.posting.count
                guard count + 1 <= Self.maximumBlockDocuments,
                      size + added + FullTextVarint.size(of: UInt64(count + 1)) <= Self.maximumBlockBytes else { break }
                size += added
                count += 1
                next += 1
            }
            if next > 0 {
                value.removeAll(keepingCapacity: true)
                FullTextVarint.append(count, to: &value)
                value.append(contentsOf: block[countEnd...])
                FullTextVarint.append(waiting.firstID - last, to: &value)
                value.append(contentsOf: waiting.bytes[waitingEntries[0].posting.lowerBound..<waitingEntries[next - 1].posting.upperBound])
                key = prefix
                FullTextVarint.appendBigEndian(first, to: &key)
                try put(key: key, value: value)
            }
        }
        // The rest in new blocks, each as full as the caps allow.
        try writeNewBlocks(waiting, from: next, prefix: prefix)
        return true
    }

    /// Writes a transaction's waiting postings of a term as new blocks under `prefix` (`term ‖
    /// 0x00`, or a run's prefix of it, see `FullTextStorage+Runs`), each as full as the caps allow.
    /// - Throws: LMDB failures.
    mutating func writeBlocks(_ waiting: FullTextPendingPostings.Term, prefix: [UInt8]) throws {
        try parseWaiting(waiting)
        try writeNewBlocks(waiting, from: 0, prefix: prefix)
    }

    /// Writes ``waitingEntries`` from `next` on as new blocks under `prefix`.
    private mutating func writeNewBlocks(_ waiting: FullTextPendingPostings.Term, from next: Int, prefix: [UInt8]) throws {
        var next = next
        while next < waitingEntries.count {
            let start = next
            var size = waitingEntries[start].posting.count + 1
            next += 1
            while next < waitingEntries.count {
                let entry = waitingEntries[next]
                let added = entry.posting.upperBound - entry.start
                guard next - start + 1 <= Self.maximumBlockDocuments,
                      size + added + FullTextVarint.size(of: UInt64(next - start + 1)) <= Self.maximumBlockBytes else { break }
                size += added
                next += 1
            }
            value.removeAll(keepingCapacity: true)
            FullTextVarint.append(next - start, to: &value)
            value.append(0)
            value.append(contentsOf: waiting.bytes[waitingEntries[start].posting.lowerBound..<waitingEntries[next - 1].posting.upperBound])
            key = prefix
            FullTextVarint.appendBigEndian(waitingEntries[start].id, to: &key)
            try putNew(key: key, value: value)
        }
    }

    /// Reads where each waiting posting lies in `waiting.bytes` into ``waitingEntries``.
    private mutating func parseWaiting(_ waiting: FullTextPendingPostings.Term) throws {
        waitingEntries.removeAll(keepingCapacity: true)
        try waiting.bytes.withUnsafeBytes { bytes in
            var reader = FullTextByteReader(bytes, what: "a waiting posting")
            var id = waiting.firstID
            for number in 0..<waiting.count {
                let start = reader.offset
                if number > 0 { id &+= try reader.varint() }
                let postingStart = reader.offset
                try Self.skipPosting(&reader, limit: bytes.count)
                waitingEntries.append((id, start, postingStart..<reader.offset))
            }
        }
    }
}
