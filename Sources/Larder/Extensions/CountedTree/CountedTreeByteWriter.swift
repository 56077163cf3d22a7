/// Writes a node or header into an array sized exactly beforehand, so encoding allocates once
/// and copies each key with one `memcpy`.
struct CountedTreeByteWriter {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private var offset = 0

    /// The array of `count` bytes that `body` writes, which must be exactly `count`.
    static func bytes(count: Int, _ body: (inout CountedTreeByteWriter) -> Void) -> [UInt8] {
        Array(unsafeUninitializedCapacity: count) { buffer, initializedCount in
            var writer = CountedTreeByteWriter(buffer: buffer)
            body(&writer)
            precondition(writer.offset == count, "CountedTreeByteWriter wrote \(writer.offset) bytes, sized for \(count)")
            initializedCount = count
        }
    }

    /// The length of `value` as a varint.
    static func varintSize(_ value: UInt64) -> Int {
        var size = 1
        var rest = value >> 7
        while rest != 0 {
            size += 1
            rest >>= 7
        }
        return size
    }

    private init(buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    /// A writer over bytes that are already initialized, starting at `offset`: for patching a
    /// field in place with one of the same length.
    init(overwriting buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        precondition(offset <= buffer.count, "CountedTreeByteWriter starts past the end of its buffer")
        self.buffer = buffer
        self.offset = offset
    }

    mutating func put(_ byte: UInt8) {
        buffer[offset] = byte
        offset += 1
    }

    /// Writes `value` as an unsigned LEB128 varint (see ``CountedTreeByteReader/varint()``).
    mutating func putVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            put(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        put(UInt8(rest))
    }

    mutating func put(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { put($0) }
    }

    mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { put($0) }
    }

    mutating func put(_ source: UnsafeBufferPointer<UInt8>) {
        guard let base = source.baseAddress, let target = buffer.baseAddress else { return }
        precondition(offset + source.count <= buffer.count, "CountedTreeByteWriter writes past the size it was given")
        (target + offset).initialize(from: base, count: source.count)
        offset += source.count
    }
}
