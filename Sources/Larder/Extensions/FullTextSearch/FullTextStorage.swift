/// The stored state of one full-text search, independent of the types it reads: its three
/// parts and the changes a write makes to them.
///
/// - `postings`: `term ‖ 0x00 ‖ first document id` → a block of postings (see
///   ``FullTextPostingsEditor``); then the runs of recent postings, `0xFF ‖ run ‖ term ‖ 0x00 ‖
///   first document id` → a block (see `FullTextStorage+Runs`).
/// - `documents`: document id (`UInt64` big-endian) → the object's index and its columns' lengths
///   (``FullTextDocumentRecord``); id 0 holds the ``FullTextStatistics``.
/// - `ids`: the object's storage key (`collection ‖ 0x00 ‖ key`) → its document id (8 bytes,
///   big-endian). An object keeps its id while it stays indexed.
///
/// No part lists an object's terms: a write finds the postings to remove by tokenizing the
/// object's previous texts again.
struct FullTextStorage: Sendable {
    static let partNames = ["postings", "documents", "ids"]

    let name: String
    let parts: ExtensionParts
    let columnCount: Int
    let tokenizer: FullTextTokenizer

    var postings: DatabaseHandle { parts["postings"] }
    var documents: DatabaseHandle { parts["documents"] }
    var ids: DatabaseHandle { parts["ids"] }

    // MARK: Writing

    /// Runs `body` with the postings `txn` added to this search and has not written yet (see
    /// ``FullTextPendingPostings``), kept for the rest of the transaction afterwards.
    func withPending<R>(in txn: ReadWriteTransaction, _ body: (inout FullTextPendingPostings) throws -> R) rethrows -> R {
        try txn.extensionWork.state(of: parts) { FullTextWriteState() }.withPending(body)
    }

    /// Forgets the waiting postings and statistics of `txn` (the parts were emptied).
    func discardPending(in txn: ReadWriteTransaction) {
        txn.extensionWork.existingState(of: parts, as: FullTextWriteState.self)?.discard()
    }

    /// Writes what `transaction` has waiting, when it is a write transaction, so that reads see
    /// its writes.
    /// - Throws: as ``flush(_:in:)``.
    func settle(_ transaction: ReadTransaction) throws {
        guard let txn = transaction as? ReadWriteTransaction else { return }
        try withPending(in: txn) { try flush(&$0, in: txn.lmdb) }
    }

    /// Writes every waiting posting, each term's at once, in term order, and the statistics: a
    /// few as a new run, more (or when the runs are full) appended to the blocks after the runs
    /// are folded into them (see `FullTextStorage+Runs`).
    /// - Throws: ``LarderError/Code/extensionInconsistent`` when a waiting posting is there
    ///   already; ``LarderError/Code/corruptValue`` for damaged blocks; LMDB failures.
    func flush(_ pending: inout FullTextPendingPostings, in lmdb: LMDBTransaction) throws {
        if pending.hasPostings {
            var statistics = try self.statistics(&pending, in: lmdb)
            let waiting = pending.takeAll()
            let bytes = waiting.reduce(0) { $0 + $1.bytes.count }
            if Self.writesRun(bytes, after: statistics) {
                try writeRun(waiting, bytes: bytes, statistics: &statistics, in: lmdb)
            } else {
                try foldRuns(&statistics, in: lmdb)
                var editor = FullTextPostingsEditor(lmdb: lmdb, postings: postings)
                for term in waiting {
                    guard try editor.append(term, to: Array(term.term.utf8)) else {
                        throw LarderError(.extensionInconsistent, "the full-text index holds a posting of a document being added: register it with a new versionTag to rebuild it", operation: "fullTextSearch", extensionName: name)
                    }
                }
            }
            if pending.statistics != statistics {
                pending.statistics = statistics
                pending.statisticsChanged = true
            }
        }
        if pending.statisticsChanged, let statistics = pending.statistics {
            try statistics.write(to: documents, in: lmdb)
            pending.statisticsChanged = false
        }
    }

    /// Writes the waiting postings of `term`, if it has any, before an edit of its blocks.
    private func flush(_ term: String, _ pending: inout FullTextPendingPostings, editor: inout FullTextPostingsEditor) throws {
        guard let waiting = pending.take(term) else { return }
        guard try editor.append(waiting, to: Array(term.utf8)) else {
            throw LarderError(.extensionInconsistent, "the full-text index holds a posting of a document being added: register it with a new versionTag to rebuild it", operation: "fullTextSearch", extensionName: name)
        }
    }

    /// The statistics as the transaction has them.
    func statistics(_ pending: inout FullTextPendingPostings, in lmdb: LMDBTransaction) throws -> FullTextStatistics {
        if let known = pending.statistics { return known }
        let read = try FullTextStatistics.read(from: documents, columns: columnCount, in: lmdb)
        pending.statistics = read
        return read
    }

    /// Brings the index up to date with the object at `index` changing from the texts `old`
    /// (`nil`: it was not indexed) to the texts `new` (`nil`: it is not). A new document's
    /// postings wait in `pending`; others are edited at once, from the terms of both texts.
    /// - Throws: ``LarderError/Code/extensionInconsistent`` when the stored postings are not what
    ///   `old` says they are; ``LarderError/Code/corruptValue`` for damaged records; LMDB failures.
    func update(_ index: YapDB.Index, from old: [String]?, to new: [String]?, pending: inout FullTextPendingPostings, in txn: ReadWriteTransaction) throws {
        let lmdb = txn.lmdb
        var statistics = try statistics(&pending, in: lmdb)
        var editor = FullTextPostingsEditor(lmdb: lmdb, postings: postings)
        try StorageKey.with(collection: index.collection, key: index.key, maxKeySize: txn.maxKeySize, operation: "fullTextSearch") { storageKey in
            let existing = try lmdb.get(ids, key: storageKey).map { try Self.documentID(in: $0) }
            guard (existing != nil) == (old != nil) else {
                throw inconsistency(at: index, old == nil ? "it holds a document for an object whose previous value it leaves out" : "it holds no document for the previous value")
            }
            switch (old, new) {
            case (nil, nil):
                return
            case (nil, let new?):
                let id = statistics.nextID
                statistics.nextID += 1
                let lengths = pending.addDocument(id, texts: new, tokenizer: tokenizer)
                try putDocument(FullTextDocumentRecord(index: index, columnLengths: lengths), id: id, in: lmdb)
                try withUnsafeBytes(of: id.bigEndian) { try lmdb.put(ids, key: storageKey, value: $0) }
                statistics.add(lengths, sign: 1)
            case (let old?, nil):
                let id = existing!
                try foldRuns(&statistics, in: lmdb)
                let old = FullTextDocumentTerms(texts: old, tokenizer: tokenizer)
                for term in old.terms {
                    try flush(term, &pending, editor: &editor)
                    guard try editor.edit(term: Array(term.utf8), id: id, posting: nil, existing: true) else { throw missingPosting(at: index) }
                }
                try withUnsafeBytes(of: id.bigEndian) { _ = try lmdb.delete(documents, key: $0) }
                _ = try lmdb.delete(ids, key: storageKey)
                statistics.add(old.columnLengths, sign: -1)
            case (let old?, let new?):
                let id = existing!
                try foldRuns(&statistics, in: lmdb)
                let old = FullTextDocumentTerms(texts: old, tokenizer: tokenizer)
                let new = FullTextDocumentTerms(texts: new, tokenizer: tokenizer)
                try replace(old, with: new, id: id, at: index, pending: &pending, editor: &editor)
                if old.columnLengths != new.columnLengths {
                    try putDocument(FullTextDocumentRecord(index: index, columnLengths: new.columnLengths), id: id, in: lmdb)
                    statistics.add(old.columnLengths, sign: -1)
                    statistics.add(new.columnLengths, sign: 1)
                }
            }
        }
        if pending.statistics != statistics {
            pending.statistics = statistics
            pending.statisticsChanged = true
        }
        if pending.isOverLimit { try flush(&pending, in: lmdb) }
    }

    /// Edits the postings of document `id` from the terms of `old` to those of `new`, walking both
    /// sorted term lists together: each term's block is read and written once.
    private func replace(
        _ old: FullTextDocumentTerms, with new: FullTextDocumentTerms, id: UInt64, at index: YapDB.Index,
        pending: inout FullTextPendingPostings, editor: inout FullTextPostingsEditor
    ) throws {
        var o = 0
        var n = 0
        while o < old.terms.count || n < new.terms.count {
            let order: Int
            if o == old.terms.count {
                order = 1
            } else if n == new.terms.count {
                order = -1
            } else if ExactString.bytesEqual(old.terms[o], new.terms[n]) {
                order = 0
            } else {
                order = ExactString.bytesPrecede(old.terms[o], new.terms[n]) ? -1 : 1
            }
            // A term about to be edited gets its waiting postings (of documents added earlier in
            // this transaction) written first.
            switch order {
            case -1:
                try flush(old.terms[o], &pending, editor: &editor)
                guard try editor.edit(term: Array(old.terms[o].utf8), id: id, posting: nil, existing: true) else { throw missingPosting(at: index) }
                o += 1
            case 1:
                try flush(new.terms[n], &pending, editor: &editor)
                guard try editor.edit(term: Array(new.terms[n].utf8), id: id, posting: new.posting(at: n), existing: false) else {
                    throw inconsistency(at: index, "a posting it adds is there already")
                }
                n += 1
            default:
                if old.posting(at: o) != new.posting(at: n) {
                    try flush(new.terms[n], &pending, editor: &editor)
                    guard try editor.edit(term: Array(new.terms[n].utf8), id: id, posting: new.posting(at: n), existing: true) else { throw missingPosting(at: index) }
                }
                o += 1
                n += 1
            }
        }
    }

    private func putDocument(_ record: FullTextDocumentRecord, id: UInt64, in lmdb: LMDBTransaction) throws {
        let bytes = record.bytes
        try withUnsafeBytes(of: id.bigEndian) { key in try bytes.withUnsafeBytes { try lmdb.put(documents, key: key, value: $0) } }
    }

    private func missingPosting(at index: YapDB.Index) -> LarderError {
        inconsistency(at: index, "it has no posting where its texts put the previous value's terms")
    }

    private func inconsistency(at index: YapDB.Index, _ problem: String) -> LarderError {
        LarderError(.extensionInconsistent, "the full-text index disagrees with the previous value: \(problem). Its texts closure gave another answer for the same value (it must be a pure function of its arguments), or its definition, its tokenizer or its type's decoding changed without a new versionTag; register it with a new versionTag to rebuild it", operation: "fullTextSearch", index: index, extensionName: name)
    }

    /// The document id stored in an `ids` value.
    static func documentID(in bytes: UnsafeRawBufferPointer) throws(LarderError) -> UInt64 {
        guard bytes.count == 8 else {
            throw LarderError(.corruptValue, "an ids record of a full-text search is not 8 bytes; register it with a new versionTag to rebuild it", operation: "fullTextSearch")
        }
        return FullTextVarint.bigEndian(in: bytes, at: 0)
    }

    /// Removes the documents of `collection` (whose objects are gone: nothing to tokenize again),
    /// and their postings, found by a scan of every block.
    /// - Complexity: O(n) for the n bytes of postings.
    func removeDocuments(inCollection collection: String, in txn: ReadWriteTransaction) throws {
        let lmdb = txn.lmdb
        var statistics = try withPending(in: txn) { pending in
            try flush(&pending, in: lmdb)
            var statistics = try self.statistics(&pending, in: lmdb)
            // The scan below edits blocks only.
            if !statistics.runs.isEmpty {
                try foldRuns(&statistics, in: lmdb)
                pending.statistics = statistics
                pending.statisticsChanged = true
            }
            return statistics
        }
        var removed = Set<UInt64>()
        try lmdb.removeAll(in: ids, withPrefix: StorageKey.prefix(of: collection)) { value in
            removed.insert(try Self.documentID(in: value))
        }
        guard !removed.isEmpty else { return }
        for id in removed.sorted() {
            try withUnsafeBytes(of: id.bigEndian) { key in
                if let stored = try lmdb.get(documents, key: key) {
                    statistics.add(try FullTextDocumentRecord(decoding: stored).columnLengths, sign: -1)
                }
                _ = try lmdb.delete(documents, key: key)
            }
        }
        try statistics.write(to: documents, in: lmdb)
        withPending(in: txn) { $0.statistics = statistics }
        try removePostings(of: removed, in: lmdb)
    }

    /// Takes the postings of the documents `removed` out of every block, a few hundred blocks at
    /// a time (the scan cannot write while it walks).
    private func removePostings(of removed: Set<UInt64>, in lmdb: LMDBTransaction) throws {
        var resume: [UInt8] = []
        while true {
            var rewrites: [(key: [UInt8], blocks: [(key: [UInt8], value: [UInt8])])] = []
            var last: [UInt8]?
            try lmdb.forEachEntry(in: postings, from: resume) { key, value in
                last = [UInt8](key)
                guard let separator = key.count >= 9 ? key.count - 9 : nil, key[separator] == 0 else {
                    throw LarderError(.corruptValue, "a postings key of a full-text search is not term, NUL, document id; register it with a new versionTag to rebuild it", operation: "fullTextSearch")
                }
                if let kept = try Self.filter(value, first: FullTextVarint.bigEndian(in: key, at: separator + 1), removing: removed) {
                    var newKey = [UInt8](key[..<(separator + 1)])
                    var blocks: [(key: [UInt8], value: [UInt8])] = []
                    if let kept = kept {
                        FullTextVarint.appendBigEndian(kept.first, to: &newKey)
                        blocks.append((newKey, kept.value))
                    }
                    rewrites.append(([UInt8](key), blocks))
                }
                return rewrites.count < 256
            }
            for rewrite in rewrites {
                try rewrite.key.withUnsafeBytes { _ = try lmdb.delete(postings, key: $0) }
                for block in rewrite.blocks {
                    try block.key.withUnsafeBytes { key in try block.value.withUnsafeBytes { try lmdb.put(postings, key: key, value: $0) } }
                }
            }
            guard let last, rewrites.count >= 256 else { return }
            resume = last
            resume.append(0)
        }
    }

    /// The block `value` (first id `first`) without the postings of `removed`: `nil` when it
    /// holds none of them, `.some(nil)` when it holds nothing else.
    private static func filter(_ value: UnsafeRawBufferPointer, first: UInt64, removing removed: Set<UInt64>) throws(LarderError) -> (first: UInt64, value: [UInt8])?? {
        var reader = FullTextByteReader(value, what: "a postings block")
        let count = try reader.int(upTo: value.count)
        var kept: [(id: UInt64, range: Range<Int>)] = []
        var id = first
        var dropped = false
        for _ in 0..<count {
            id &+= try reader.varint()
            let start = reader.offset
            try FullTextPostingsEditor.skipPosting(&reader, limit: value.count)
            if removed.contains(id) { dropped = true } else { kept.append((id, start..<reader.offset)) }
        }
        guard dropped else { return nil }
        guard let newFirst = kept.first?.id else { return .some(nil) }
        var bytes: [UInt8] = []
        FullTextVarint.append(kept.count, to: &bytes)
        var previous = newFirst
        for entry in kept {
            FullTextVarint.append(entry.id &- previous, to: &bytes)
            previous = entry.id
            bytes.append(contentsOf: value[entry.range])
        }
        return .some((newFirst, bytes))
    }
}
