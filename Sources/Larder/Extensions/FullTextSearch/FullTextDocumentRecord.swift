/// The `documents` record of one indexed object: where it is and how many tokens each of its
/// columns holds.
///
/// Layout: the collection's length and UTF-8 bytes, the key's length and UTF-8 bytes, the number
/// of columns, then each column's number of tokens; every number a varint.
struct FullTextDocumentRecord: Equatable {
    var index: YapDB.Index
    var columnLengths: [Int]

    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(index.collection.utf8.count + index.key.utf8.count + 4 + 2 * columnLengths.count)
        FullTextVarint.append(index.collection.utf8.count, to: &bytes)
        bytes.append(contentsOf: index.collection.utf8)
        FullTextVarint.append(index.key.utf8.count, to: &bytes)
        bytes.append(contentsOf: index.key.utf8)
        FullTextVarint.append(columnLengths.count, to: &bytes)
        for length in columnLengths { FullTextVarint.append(length, to: &bytes) }
        return bytes
    }

    init(index: YapDB.Index, columnLengths: [Int]) {
        self.index = index
        self.columnLengths = columnLengths
    }

    /// The record stored as `bytes`.
    /// - Throws: ``LarderError/Code/corruptValue`` when they are not one.
    init(decoding bytes: UnsafeRawBufferPointer) throws(LarderError) {
        var reader = FullTextByteReader(bytes, what: "a documents record")
        let collection = try reader.string(try reader.int(upTo: bytes.count))
        let key = try reader.string(try reader.int(upTo: bytes.count))
        let columns = try reader.int(upTo: bytes.count)
        var lengths: [Int] = []
        lengths.reserveCapacity(columns)
        for _ in 0..<columns { lengths.append(try reader.int(upTo: Int(UInt32.max))) }
        guard reader.isAtEnd else { throw reader.damaged("it has bytes after its last column") }
        self.init(index: YapDB.Index(collection: collection, key: key), columnLengths: lengths)
    }

    /// Only the index of the record stored as `bytes`, for turning results into indexes.
    static func index(decoding bytes: UnsafeRawBufferPointer) throws(LarderError) -> YapDB.Index {
        var reader = FullTextByteReader(bytes, what: "a documents record")
        let collection = try reader.string(try reader.int(upTo: bytes.count))
        let key = try reader.string(try reader.int(upTo: bytes.count))
        return YapDB.Index(collection: collection, key: key)
    }
}
