extension FullTextStorage {
    /// The state in a form that does not depend on insertion order, block layout or document
    /// ids, by part, for ``Database/verifyExtensions()``:
    ///
    /// - `postings`: one entry per (term, collection, key, column): the document's length and
    ///   the positions;
    /// - `documents`: one entry per document (collection, key, column lengths), and the
    ///   statistics (number of documents, tokens per column; not the next id);
    /// - `ids`: each storage key, and whether the document it names is the one at that index.
    /// - Throws: ``LarderError/Code/corruptValue`` for damaged records; LMDB failures.
    func logicalContents(in lmdb: LMDBTransaction) throws -> [String: [[UInt8]]] {
        var records: [UInt64: FullTextDocumentRecord] = [:]
        var documentEntries: [[UInt8]] = []
        try lmdb.forEachEntry(in: documents) { key, value in
            guard key.count == 8 else { throw FullTextByteReader(key, what: "a documents key").damaged("it is not 8 bytes") }
            let id = FullTextVarint.bigEndian(in: key, at: 0)
            guard id != 0 else { return true }
            let record = try FullTextDocumentRecord(decoding: value)
            records[id] = record
            var entry = Self.indexBytes(record.index)
            for length in record.columnLengths { FullTextVarint.append(length, to: &entry) }
            documentEntries.append(entry)
            return true
        }
        let statistics = try FullTextStatistics.read(from: documents, columns: columnCount, in: lmdb)
        var summary = Array("statistics".utf8)
        FullTextVarint.append(statistics.documentCount, to: &summary)
        for total in statistics.columnTotals { FullTextVarint.append(total, to: &summary) }
        documentEntries.append(summary)

        var idEntries: [[UInt8]] = []
        try lmdb.forEachEntry(in: ids) { key, value in
            let id = try Self.documentID(in: value)
            var entry = [UInt8](key)
            entry.append(0xFF)
            entry.append(records[id]?.index == StorageKey.index(from: key) ? 1 : 0)
            idEntries.append(entry)
            return true
        }

        var postingEntries: [[UInt8]] = []
        try lmdb.forEachEntry(in: postings) { key, value in
            guard key.count >= 9, key[key.count - 9] == 0 else {
                throw FullTextByteReader(key, what: "a postings key").damaged("it is not term, NUL, document id")
            }
            // A run's key (see `FullTextStorage+Runs`) names the term after the run's number.
            let termStart = key.first == Self.runMarker ? 9 : 0
            guard key.count - 9 > termStart else {
                throw FullTextByteReader(key, what: "a postings key").damaged("it is not a run, term, NUL, document id")
            }
            let term = [UInt8](key[termStart..<(key.count - 9)])
            var reader = FullTextByteReader(value, what: "a postings block")
            var id = FullTextVarint.bigEndian(in: key, at: key.count - 8)
            for _ in 0..<(try reader.int(upTo: value.count)) {
                id &+= try reader.varint()
                let length = try reader.varint()
                var document = term
                document.append(0)
                if let record = records[id] {
                    document += Self.indexBytes(record.index)
                } else {
                    document += Array("(document \(id), not in documents)".utf8)
                }
                for _ in 0..<(try reader.int(upTo: value.count)) {
                    var entry = document
                    FullTextVarint.append(try reader.varint(), to: &entry)  // the column
                    FullTextVarint.append(length, to: &entry)
                    var position: UInt64 = 0
                    let count = try reader.int(upTo: value.count)
                    for number in 0..<count {
                        let delta = try reader.varint()
                        position = number == 0 ? delta : position &+ delta
                        FullTextVarint.append(position, to: &entry)
                    }
                    postingEntries.append(entry)
                }
            }
            guard reader.isAtEnd else { throw reader.damaged("it has bytes after its last document") }
            return true
        }
        let order: ([UInt8], [UInt8]) -> Bool = { $0.lexicographicallyPrecedes($1) }
        return ["postings": postingEntries.sorted(by: order), "documents": documentEntries.sorted(by: order), "ids": idEntries.sorted(by: order)]
    }

    /// `index` as length-prefixed collection and key.
    private static func indexBytes(_ index: YapDB.Index) -> [UInt8] {
        var bytes: [UInt8] = []
        FullTextVarint.append(index.collection.utf8.count, to: &bytes)
        bytes += index.collection.utf8
        FullTextVarint.append(index.key.utf8.count, to: &bytes)
        bytes += index.key.utf8
        return bytes
    }
}
