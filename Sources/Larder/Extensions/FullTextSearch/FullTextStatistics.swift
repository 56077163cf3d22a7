/// The statistics record, under document id 0 in `documents`: what BM25 needs about the whole
/// index, and the next document id to give.
///
/// Layout: the number of documents, the next document id, the number of columns, the total
/// number of tokens of each column over all documents, then, once the index has had runs (see
/// `FullTextStorage+Runs`), the first live run, the next run number and the bytes of postings
/// the live runs hold; every number a varint.
struct FullTextStatistics: Equatable {
    /// The number of indexed documents.
    var documentCount = 0
    /// The id the next new document gets (ids start at 1 and are never given twice).
    var nextID: UInt64 = 1
    /// The total number of tokens of each column.
    var columnTotals: [Int]
    /// The live runs of recent postings are `firstRun..<nextRun` (none when equal; numbers start
    /// at 1 and are never given twice).
    var firstRun: UInt64 = 1
    var nextRun: UInt64 = 1
    /// The bytes of postings the live runs hold.
    var runBytes = 0

    /// The numbers of the live runs, oldest first.
    var runs: Range<UInt64> { firstRun..<nextRun }

    /// The `documents` key of the record: document id 0.
    static let key = [UInt8](repeating: 0, count: 8)

    init(columns: Int) {
        columnTotals = [Int](repeating: 0, count: columns)
    }

    /// The number of tokens of all columns of all documents.
    var totalLength: Int { columnTotals.reduce(0, +) }

    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        FullTextVarint.append(documentCount, to: &bytes)
        FullTextVarint.append(nextID, to: &bytes)
        FullTextVarint.append(columnTotals.count, to: &bytes)
        for total in columnTotals { FullTextVarint.append(total, to: &bytes) }
        if nextRun > 1 {
            FullTextVarint.append(firstRun, to: &bytes)
            FullTextVarint.append(nextRun, to: &bytes)
            FullTextVarint.append(runBytes, to: &bytes)
        }
        return bytes
    }

    /// The record stored in `lmdb` (a new one for `columns` columns when there is none).
    /// - Throws: ``LarderError/Code/corruptValue`` when it is damaged or has another number of
    ///   columns; LMDB failures.
    static func read(from documents: DatabaseHandle, columns: Int, in lmdb: LMDBTransaction) throws -> FullTextStatistics {
        guard let stored = try key.withUnsafeBytes({ try lmdb.get(documents, key: $0) }) else { return FullTextStatistics(columns: columns) }
        var reader = FullTextByteReader(stored, what: "the statistics record")
        var statistics = FullTextStatistics(columns: 0)
        statistics.documentCount = try reader.int(upTo: Int.max)
        statistics.nextID = try reader.varint()
        let count = try reader.int(upTo: stored.count)
        guard count == columns else { throw reader.damaged("it has \(count) columns, the definition \(columns)") }
        for _ in 0..<count { statistics.columnTotals.append(try reader.int(upTo: Int.max)) }
        if !reader.isAtEnd {
            statistics.firstRun = try reader.varint()
            statistics.nextRun = try reader.varint()
            statistics.runBytes = try reader.int(upTo: Int.max)
            guard statistics.firstRun >= 1, statistics.firstRun <= statistics.nextRun, statistics.nextRun < UInt64.max else {
                throw reader.damaged("its runs are not a range of run numbers")
            }
            guard reader.isAtEnd else { throw reader.damaged("it has bytes after its runs") }
        }
        return statistics
    }

    /// Stores the record in `documents`.
    func write(to documents: DatabaseHandle, in lmdb: LMDBTransaction) throws {
        let bytes = self.bytes
        try Self.key.withUnsafeBytes { key in try bytes.withUnsafeBytes { try lmdb.put(documents, key: key, value: $0) } }
    }
}

extension FullTextStatistics {
    /// Adds (`sign` 1) or takes away (`sign` -1) one document of `columnLengths`.
    mutating func add(_ columnLengths: [Int], sign: Int) {
        documentCount += sign
        for (column, length) in columnLengths.enumerated() where column < columnTotals.count {
            columnTotals[column] += sign * length
        }
    }
}
