/// Unsigned LEB128 varints, the integers of every full-text search record: seven bits a byte,
/// low bits first, the high bit set on every byte but the last.
enum FullTextVarint {
    /// Appends `value` to `bytes`.
    @inline(__always)
    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Appends `value`, which is not negative, to `bytes`.
    @inline(__always)
    static func append(_ value: Int, to bytes: inout [UInt8]) {
        append(UInt64(value), to: &bytes)
    }

    /// The number of bytes `value` takes.
    static func size(of value: UInt64) -> Int {
        var size = 1
        var rest = value >> 7
        while rest != 0 {
            size += 1
            rest >>= 7
        }
        return size
    }

    /// `id` as the 8 big-endian bytes that end a `postings` key and make a `documents` key.
    static func appendBigEndian(_ id: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: id.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// The big-endian `UInt64` in the 8 bytes of `bytes` from `offset` (which the caller checked).
    @inline(__always)
    static func bigEndian(in bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + 8) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
