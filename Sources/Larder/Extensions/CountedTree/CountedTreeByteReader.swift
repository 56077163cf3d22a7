/// Reads the fields of a stored node or header in place, throwing `LarderError(.corruptValue)`
/// on anything that does not fit, never trapping.
struct CountedTreeByteReader {
    /// Larger than any real key count; keeps sums of counts along any path far from overflow.
    static let maximumCount = 1 << 48

    private let buffer: UnsafeBufferPointer<UInt8>
    /// The node read, for error messages; nil for the header.
    private let node: UInt64?
    private(set) var offset = 0

    init(_ buffer: UnsafeBufferPointer<UInt8>, node: UInt64?) {
        self.buffer = buffer
        self.node = node
    }

    var remaining: Int { buffer.count - offset }

    // Errors are built out of line, so the checks in the inlined readers stay small.
    @inline(never)
    func malformed(_ problem: String) -> LarderError {
        LarderError(.corruptValue, (node.map { "counted tree node \($0)" } ?? "counted tree header") + " " + problem)
    }

    @inline(__always)
    mutating func byte() throws -> UInt8 {
        guard offset < buffer.count else { throw malformed("is truncated") }
        offset += 1
        return buffer[offset - 1]
    }

    /// An unsigned LEB128 varint: seven bits a byte, low bits first, high bit set on all but the
    /// last byte.
    @inline(__always)
    mutating func varint() throws -> UInt64 {
        // Most varints in a node take one byte (lengths, small counts) or two (ids, counts).
        if offset + 1 < buffer.count {
            let first = buffer[offset]
            if first < 0x80 {
                offset += 1
                return UInt64(first)
            }
            let second = buffer[offset + 1]
            if second < 0x80 {
                offset += 2
                return UInt64(first & 0x7F) | UInt64(second) << 7
            }
        }
        return try longVarint()
    }

    /// A varint of any length: ``varint()``'s slow path.
    @inline(never)
    private mutating func longVarint() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var position = offset
        while position < buffer.count {
            let byte = buffer[position]
            position += 1
            guard shift < 63 || byte <= 1 else { throw malformed("has a varint that overflows 64 bits") }
            value |= UInt64(byte & 0x7F) &<< shift
            if byte < 0x80 {
                offset = position
                return value
            }
            shift += 7
        }
        throw malformed("is truncated")
    }

    /// A varint that must be at most `limit`, as an `Int`.
    @inline(__always)
    mutating func int(upTo limit: Int) throws -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw malformed("has a count or length that runs past its end or limit") }
        return Int(value)
    }

    /// Steps over the next `count` bytes and returns where they are.
    @inline(__always)
    mutating func skip(_ count: Int) throws -> Range<Int> {
        guard count <= remaining else { throw malformed("is truncated") }
        offset += count
        return offset - count..<offset
    }

    func expectEnd() throws {
        guard remaining == 0 else { throw malformed("has \(remaining) bytes after its end") }
    }
}
