/// Reads the fields of a full-text search record in place, from bytes lent by LMDB, throwing
/// ``LarderError/Code/corruptValue`` on anything that does not fit: a damaged record is an error,
/// never a trap.
struct FullTextByteReader {
    private let bytes: UnsafeRawBufferPointer
    /// What is read, for error messages ("a postings block").
    private let what: StaticString
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer, what: StaticString) {
        self.bytes = bytes
        self.what = what
    }

    var isAtEnd: Bool { offset >= bytes.count }

    // Built out of line, so that the checks of the inlined readers stay small.
    @inline(never)
    func damaged(_ problem: String) -> LarderError {
        LarderError(.corruptValue, "\(what) of a full-text search is damaged: \(problem); register it with a new versionTag to rebuild it", operation: "fullTextSearch")
    }

    /// A varint (see ``FullTextVarint``).
    @inline(__always)
    mutating func varint() throws(LarderError) -> UInt64 {
        if offset < bytes.count {
            let first = bytes[offset]
            if first < 0x80 {
                offset += 1
                return UInt64(first)
            }
        }
        return try longVarint()
    }

    @inline(never)
    private mutating func longVarint() throws(LarderError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var position = offset
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            guard shift < 63 || byte <= 1 else { throw damaged("a varint overflows 64 bits") }
            value |= UInt64(byte & 0x7F) &<< shift
            if byte < 0x80 {
                offset = position
                return value
            }
            shift += 7
        }
        throw damaged("it is truncated")
    }

    /// A varint that must be at most `limit`, as an `Int`.
    @inline(__always)
    mutating func int(upTo limit: Int) throws(LarderError) -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw damaged("a count or length runs past its end or limit") }
        return Int(value)
    }

    /// Steps over `count` varints.
    @inline(__always)
    mutating func skipVarints(_ count: Int) throws(LarderError) {
        var left = count
        var position = offset
        while left > 0 {
            guard position < bytes.count else { throw damaged("it is truncated") }
            if bytes[position] < 0x80 { left -= 1 }
            position += 1
        }
        offset = position
    }

    /// Moves to `offset` (not past the end).
    mutating func skip(to offset: Int) throws(LarderError) {
        guard offset <= bytes.count else { throw damaged("it is truncated") }
        self.offset = offset
    }

    /// The next `count` bytes.
    mutating func bytes(_ count: Int) throws(LarderError) -> UnsafeRawBufferPointer {
        guard count <= bytes.count - offset else { throw damaged("it is truncated") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }

    /// The next `count` bytes as a string (UTF-8, repaired if it is not).
    mutating func string(_ count: Int) throws(LarderError) -> String {
        String(decoding: try bytes(count), as: UTF8.self)
    }
}
