/// Node 0 of a counted tree: where the root is, and what is known about the whole tree without
/// reading it.
///
/// Format: a version byte (1), then four LEB128 varints: root id (0 when empty), height (0 when
/// empty, 1 when the root is a leaf), key count, and the next node id to hand out.
struct CountedTreeHeader: Equatable {
    /// The node id the header is stored under.
    static let id: UInt64 = 0
    static let formatVersion: UInt8 = 1
    /// More levels than any real tree has (a fanout-4 tree of this height holds 4^40 keys); a
    /// header claiming more is damaged, and would make descents loop that long.
    static let maximumHeight = 40

    var root: UInt64 = 0
    var height = 0
    var count = 0
    var nextID: UInt64 = 1

    /// The header of a tree never written.
    init() {}

    /// Decodes a stored header.
    ///
    /// - Throws: `LarderError(.corruptValue)` when the bytes are not a header, or one whose fields
    ///   contradict each other (a root without height, a count without root).
    init(decoding bytes: [UInt8]) throws {
        self = try bytes.withUnsafeBufferPointer { buffer in
            var reader = CountedTreeByteReader(buffer, node: nil)
            guard try reader.byte() == Self.formatVersion else { throw reader.malformed("has an unknown version") }
            var header = CountedTreeHeader()
            header.root = try reader.varint()
            header.height = try reader.int(upTo: Self.maximumHeight)
            header.count = try reader.int(upTo: CountedTreeByteReader.maximumCount)
            header.nextID = try reader.varint()
            try reader.expectEnd()
            guard (header.root == 0) == (header.height == 0), header.root != 0 || header.count == 0,
                  header.root < header.nextID else {
                throw reader.malformed("has fields that contradict each other")
            }
            return header
        }
    }

    func encoded() -> [UInt8] {
        let fields = [root, UInt64(height), UInt64(count), nextID]
        var size = 1
        for field in fields { size += CountedTreeByteWriter.varintSize(field) }
        return CountedTreeByteWriter.bytes(count: size) { writer in
            writer.put(Self.formatVersion)
            for field in fields { writer.putVarint(field) }
        }
    }

    /// Hands out a fresh node id.
    mutating func allocateID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }
}

