#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A MessagePack integer as read from the wire: `.negative` only ever holds
/// values below zero, so every non-negative integer (even one stored as int8..int64)
/// arrives as `.nonNegative` and converts the same way.
package enum MessagePackInteger {
    case nonNegative(UInt64)
    case negative(Int64)

    package func converted<T: FixedWidthInteger>(to type: T.Type) -> T? {
        switch self {
        case .nonNegative(let value): return T(exactly: value)
        case .negative(let value): return T(exactly: value)
        }
    }

    package var description: String {
        switch self {
        case .nonNegative(let value): return String(value)
        case .negative(let value): return String(value)
        }
    }
}

/// What `MessagePackReader.header(at:)` learned about one value without decoding it.
package struct MessagePackItemHeader {
    /// Offset just past the value's own bytes (children of a container follow here).
    package var next: Int
    /// How many values follow as this value's children (2 per map entry).
    package var children: Int
    package var isContainer: Bool
}

/// Bounds-checked, allocation-free reads from memory the decoder does not own.
///
/// Every read takes an offset, checks it (and any length it derives) against the
/// buffer before touching memory, and never keeps the pointer past the call that
/// created the reader. Lengths are compared as `length <= count - start` so a
/// hostile 32-bit length can never overflow an addition.
package struct MessagePackReader {
    /// Nesting limit for containers; protects the recursive validator and the
    /// recursive `init(from:)` calls from exhausting the stack.
    package static let maximumDepth = 512

    package let bytes: UnsafeRawBufferPointer

    /// A reader of `bytes`, which the caller keeps alive (and unchanged) while it reads.
    package init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    // MARK: Primitive loads

    @inline(__always)
    package func byte(at offset: Int) throws(MessagePackReadError) -> UInt8 {
        guard offset >= 0, offset < bytes.count else { throw .truncated(offset: offset) }
        return bytes.load(fromByteOffset: offset, as: UInt8.self)
    }

    @inline(__always)
    package func load<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) throws(MessagePackReadError) -> T {
        guard offset >= 0, offset <= bytes.count, MemoryLayout<T>.size <= bytes.count - offset else {
            throw .truncated(offset: offset)
        }
        return T(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// Returns `start + length` after checking that `start..<start + length` lies in the buffer.
    @inline(__always)
    package func end(ofPayloadAt start: Int, length: Int) throws(MessagePackReadError) -> Int {
        guard start >= 0, length >= 0, start <= bytes.count, length <= bytes.count - start else {
            throw .truncated(offset: start)
        }
        return start + length
    }

    // MARK: Structure

    /// Describes the value at `offset` (its size and how many children follow)
    /// after checking that its header and payload are within bounds.
    ///
    /// The cases use literal bytes (see `MessagePackFormat` for names) so the
    /// compiler can turn the switch into a jump table.
    package func header(at offset: Int) throws(MessagePackReadError) -> MessagePackItemHeader {
        let format = try byte(at: offset)
        switch format {
        case 0x00...0x7f, 0xe0...0xff, 0xc0, 0xc2, 0xc3: // fixints, nil, false, true
            return MessagePackItemHeader(next: offset + 1, children: 0, isContainer: false)
        case 0x80...0x8f: // fixmap
            return try containerHeader(next: offset + 1, children: Int(format & 0x0f) * 2)
        case 0x90...0x9f: // fixarray
            return try containerHeader(next: offset + 1, children: Int(format & 0x0f))
        case 0xa0...0xbf: // fixstr
            return try scalar(end(ofPayloadAt: offset + 1, length: Int(format & 0x1f)))
        case 0xc1:
            throw .reservedByte(offset: offset)
        case 0xc4, 0xd9: // bin8, str8
            return try scalar(end(ofPayloadAt: offset + 2, length: Int(load(UInt8.self, at: offset + 1))))
        case 0xc5, 0xda: // bin16, str16
            return try scalar(end(ofPayloadAt: offset + 3, length: Int(load(UInt16.self, at: offset + 1))))
        case 0xc6, 0xdb: // bin32, str32
            return try scalar(end(ofPayloadAt: offset + 5, length: Int(load(UInt32.self, at: offset + 1))))
        case 0xc7: // ext8: length, type, payload
            return try scalar(end(ofPayloadAt: offset + 3, length: Int(load(UInt8.self, at: offset + 1))))
        case 0xc8: // ext16
            return try scalar(end(ofPayloadAt: offset + 4, length: Int(load(UInt16.self, at: offset + 1))))
        case 0xc9: // ext32
            return try scalar(end(ofPayloadAt: offset + 6, length: Int(load(UInt32.self, at: offset + 1))))
        case 0xca, 0xce, 0xd2: // float32, uint32, int32
            return try scalar(end(ofPayloadAt: offset + 1, length: 4))
        case 0xcb, 0xcf, 0xd3: // float64, uint64, int64
            return try scalar(end(ofPayloadAt: offset + 1, length: 8))
        case 0xcc, 0xd0: // uint8, int8
            return try scalar(end(ofPayloadAt: offset + 1, length: 1))
        case 0xcd, 0xd1: // uint16, int16
            return try scalar(end(ofPayloadAt: offset + 1, length: 2))
        case 0xd4: // fixext1: type, 1 byte
            return try scalar(end(ofPayloadAt: offset + 2, length: 1))
        case 0xd5: // fixext2
            return try scalar(end(ofPayloadAt: offset + 2, length: 2))
        case 0xd6: // fixext4
            return try scalar(end(ofPayloadAt: offset + 2, length: 4))
        case 0xd7: // fixext8
            return try scalar(end(ofPayloadAt: offset + 2, length: 8))
        case 0xd8: // fixext16
            return try scalar(end(ofPayloadAt: offset + 2, length: 16))
        case 0xdc: // array16
            return try containerHeader(next: offset + 3, children: Int(load(UInt16.self, at: offset + 1)))
        case 0xdd: // array32
            return try containerHeader(next: offset + 5, children: Int(load(UInt32.self, at: offset + 1)))
        case 0xde: // map16
            return try containerHeader(next: offset + 3, children: Int(load(UInt16.self, at: offset + 1)) * 2)
        default: // 0xdf map32
            return try containerHeader(next: offset + 5, children: Int(load(UInt32.self, at: offset + 1)) * 2)
        }
    }

    @inline(__always)
    private func scalar(_ next: Int) -> MessagePackItemHeader {
        MessagePackItemHeader(next: next, children: 0, isContainer: false)
    }

    /// Every child needs at least one byte, so a count larger than what remains
    /// is rejected here, before anyone reserves memory or loops over it.
    @inline(__always)
    private func containerHeader(next: Int, children: Int) throws(MessagePackReadError) -> MessagePackItemHeader {
        guard next <= bytes.count, children <= bytes.count - next else { throw .truncated(offset: next) }
        return MessagePackItemHeader(next: next, children: children, isContainer: true)
    }

    /// Walks the whole value at `offset`, checking every length and the nesting
    /// depth, and returns the offset just past it.
    ///
    /// Iterative, with the per-level counts of values still to read kept in a
    /// stack buffer, so hostile nesting can never exhaust the call stack.
    ///
    /// With `spans` non-nil it also records where every container of at least
    /// `MessagePackContainerSpan.minimumSize` bytes ends, so that the decoder
    /// can later jump over it instead of walking it again (see
    /// `MessagePackContainerSpan`).
    package func validateValue(at offset: Int, spans: inout [MessagePackContainerSpan]?) throws(MessagePackReadError) -> Int {
        try validateValue(at: offset, depth: 0, spans: &spans)
    }

    /// Validates the value at `offset` as `validateValue(at:spans:)` does, for
    /// a value that sits `depth` containers deep in the input (the depth limit
    /// counts from the top-level value). A scalar is only its header.
    @inline(__always)
    package func validateValue(at offset: Int, depth: Int) throws(MessagePackReadError) -> Int {
        let header = try header(at: offset)
        guard header.isContainer else { return header.next }
        var noSpans: [MessagePackContainerSpan]? = nil
        return try validateValue(at: offset, depth: depth, spans: &noSpans)
    }

    private func validateValue(
        at offset: Int, depth baseDepth: Int, spans: inout [MessagePackContainerSpan]?
    ) throws(MessagePackReadError) -> Int {
        // Most values nest only a few levels: a small stack buffer is cheaper to
        // touch than one sized for the limit, and deeper input simply starts over.
        if let end = try validateValue(at: offset, baseDepth: baseDepth, spans: &spans, stackLevels: 32) {
            return end
        }
        if spans != nil { spans = [] }
        guard let end = try validateValue(
            at: offset, baseDepth: baseDepth, spans: &spans, stackLevels: MessagePackReader.maximumDepth) else {
            throw .depthLimitExceeded(offset: offset)
        }
        return end
    }

    /// One validation walk with room for `stackLevels` levels; returns nil if
    /// the input nests deeper than that (but not deeper than the limit).
    private func validateValue(
        at offset: Int, baseDepth: Int, spans: inout [MessagePackContainerSpan]?, stackLevels: Int
    ) throws(MessagePackReadError) -> Int? {
        // Levels below the value being walked count against the limit too.
        let maximumDepth = MessagePackReader.maximumDepth - baseDepth
        // Per level: values still to read, and the span index of the container that opened it.
        return try withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * (stackLevels + 1)) { stack throws(MessagePackReadError) -> Int? in
            var position = offset
            var depth = 0
            stack[0] = 1
            while true {
                let start = position
                let header = try header(at: start)
                position = header.next
                stack[2 * depth] -= 1
                if header.isContainer {
                    // The value just read sits at `depth`; its children would sit one deeper.
                    guard depth < maximumDepth else { throw .depthLimitExceeded(offset: start) }
                    if header.children > 0 {
                        guard depth < stackLevels else { return nil }
                        depth += 1
                        stack[2 * depth] = header.children
                        if spans != nil {
                            stack[2 * depth + 1] = spans?.count ?? 0
                            spans?.append(MessagePackContainerSpan(start: start, end: 0))
                        }
                        continue
                    }
                }
                while stack[2 * depth] == 0 {
                    if depth == 0 { return position }
                    if spans != nil {
                        let index = stack[2 * depth + 1]
                        if let opened = spans?[index].start, position - opened >= MessagePackContainerSpan.minimumSize {
                            spans?[index].end = position
                        } else {
                            // Small containers are cheap to walk; their descendants (recorded
                            // after them) are smaller still, so all of them go.
                            spans?.removeSubrange(index...)
                        }
                    }
                    depth -= 1
                }
            }
        }
    }

    /// Returns the offset just past the value at `offset` without recursion,
    /// so skipping needs no depth limit of its own.
    package func skipValue(at offset: Int) throws(MessagePackReadError) -> Int {
        var position = offset
        var pending = 1
        while pending > 0 {
            let header = try header(at: position)
            position = header.next
            // `children` is bounded by the buffer size, so this cannot overflow.
            pending += header.children - 1
        }
        return position
    }

    // MARK: Scalars

    package func isNil(at offset: Int) throws(MessagePackReadError) -> Bool {
        try byte(at: offset) == MessagePackFormat.nil
    }

    package func readBool(at offset: inout Int) throws(MessagePackReadError) -> Bool {
        let format = try byte(at: offset)
        switch format {
        case MessagePackFormat.true: offset += 1; return true
        case MessagePackFormat.false: offset += 1; return false
        default: throw .typeMismatch(found: format, offset: offset)
        }
    }

    package func readInteger(at offset: inout Int) throws(MessagePackReadError) -> MessagePackInteger {
        let start = offset
        let format = try byte(at: start)
        switch format {
        case 0x00...0x7f:
            offset = start + 1
            return .nonNegative(UInt64(format))
        case 0xe0...0xff:
            offset = start + 1
            return .negative(Int64(Int8(bitPattern: format)))
        case 0xcc: // uint8
            let value = try load(UInt8.self, at: start + 1)
            offset = start + 2
            return .nonNegative(UInt64(value))
        case 0xcd: // uint16
            let value = try load(UInt16.self, at: start + 1)
            offset = start + 3
            return .nonNegative(UInt64(value))
        case 0xce: // uint32
            let value = try load(UInt32.self, at: start + 1)
            offset = start + 5
            return .nonNegative(UInt64(value))
        case 0xcf: // uint64
            let value = try load(UInt64.self, at: start + 1)
            offset = start + 9
            return .nonNegative(value)
        case 0xd0: // int8
            let value = try load(Int8.self, at: start + 1)
            offset = start + 2
            return Self.signed(Int64(value))
        case 0xd1: // int16
            let value = try load(Int16.self, at: start + 1)
            offset = start + 3
            return Self.signed(Int64(value))
        case 0xd2: // int32
            let value = try load(Int32.self, at: start + 1)
            offset = start + 5
            return Self.signed(Int64(value))
        case 0xd3: // int64
            let value = try load(Int64.self, at: start + 1)
            offset = start + 9
            return Self.signed(value)
        default:
            throw .typeMismatch(found: format, offset: start)
        }
    }

    @inline(__always)
    private static func signed(_ value: Int64) -> MessagePackInteger {
        value < 0 ? .negative(value) : .nonNegative(UInt64(value))
    }

    package func readInteger<T: FixedWidthInteger>(_ type: T.Type, at offset: inout Int) throws(MessagePackReadError) -> T {
        let start = offset
        let integer = try readInteger(at: &offset)
        guard let value = integer.converted(to: T.self) else {
            offset = start
            throw .numberOutOfRange("Number \(integer.description) does not fit in \(T.self)", offset: start)
        }
        return value
    }

    package func readDouble(at offset: inout Int) throws(MessagePackReadError) -> Double {
        let start = offset
        let format = try byte(at: start)
        switch format {
        case MessagePackFormat.float64:
            let bits = try load(UInt64.self, at: start + 1)
            offset = start + 9
            return Double(bitPattern: bits)
        case MessagePackFormat.float32:
            let bits = try load(UInt32.self, at: start + 1)
            offset = start + 5
            return Double(Float(bitPattern: bits))
        default:
            let integer = try readInteger(at: &offset)
            let converted: Double?
            switch integer {
            case .nonNegative(let value): converted = Double(exactly: value)
            case .negative(let value): converted = Double(exactly: value)
            }
            guard let converted else {
                offset = start
                throw .numberOutOfRange("Integer \(integer.description) is not exactly representable as Double", offset: start)
            }
            return converted
        }
    }

    package func readFloat(at offset: inout Int) throws(MessagePackReadError) -> Float {
        let start = offset
        let format = try byte(at: start)
        switch format {
        case MessagePackFormat.float32:
            let bits = try load(UInt32.self, at: start + 1)
            offset = start + 5
            return Float(bitPattern: bits)
        case MessagePackFormat.float64:
            let value = Double(bitPattern: try load(UInt64.self, at: start + 1))
            // float64 narrows only when nothing is lost (NaN stays NaN).
            if value.isNaN {
                offset = start + 9
                return .nan
            }
            guard let narrowed = Float(exactly: value) else {
                throw .numberOutOfRange("Number \(value) is not exactly representable as Float", offset: start)
            }
            offset = start + 9
            return narrowed
        default:
            let integer = try readInteger(at: &offset)
            let converted: Float?
            switch integer {
            case .nonNegative(let value): converted = Float(exactly: value)
            case .negative(let value): converted = Float(exactly: value)
            }
            guard let converted else {
                offset = start
                throw .numberOutOfRange("Integer \(integer.description) is not exactly representable as Float", offset: start)
            }
            return converted
        }
    }

    /// Returns the payload range of the str value at `offset` and advances past it.
    package func readStringRange(at offset: inout Int) throws(MessagePackReadError) -> (start: Int, length: Int) {
        let start = offset
        let format = try byte(at: start)
        let payloadStart: Int
        let length: Int
        switch format {
        case 0xa0...0xbf:
            payloadStart = start + 1
            length = Int(format & 0x1f)
        case 0xd9: // str8
            payloadStart = start + 2
            length = Int(try load(UInt8.self, at: start + 1))
        case 0xda: // str16
            payloadStart = start + 3
            length = Int(try load(UInt16.self, at: start + 1))
        case 0xdb: // str32
            payloadStart = start + 5
            length = Int(try load(UInt32.self, at: start + 1))
        default:
            throw .typeMismatch(found: format, offset: start)
        }
        offset = try end(ofPayloadAt: payloadStart, length: length)
        return (payloadStart, length)
    }

    package func readString(at offset: inout Int) throws(MessagePackReadError) -> String {
        let start = offset
        let range = try readStringRange(at: &offset)
        guard let string = makeString(start: range.start, length: range.length) else {
            offset = start
            throw .invalidUTF8(offset: start)
        }
        return string
    }

    /// Builds a String from an in-bounds payload, or nil if it is not valid UTF-8.
    package func makeString(start: Int, length: Int) -> String? {
        MessagePackUTF8.string(UnsafeRawBufferPointer(rebasing: bytes[start..<start + length]))
    }

    /// Returns the payload range of the bin value at `offset` and advances past it.
    package func readBinaryRange(at offset: inout Int) throws(MessagePackReadError) -> (start: Int, length: Int) {
        let start = offset
        let format = try byte(at: start)
        let payloadStart: Int
        let length: Int
        switch format {
        case MessagePackFormat.bin8:
            payloadStart = start + 2
            length = Int(try load(UInt8.self, at: start + 1))
        case MessagePackFormat.bin16:
            payloadStart = start + 3
            length = Int(try load(UInt16.self, at: start + 1))
        case MessagePackFormat.bin32:
            payloadStart = start + 5
            length = Int(try load(UInt32.self, at: start + 1))
        default:
            throw .typeMismatch(found: format, offset: start)
        }
        offset = try end(ofPayloadAt: payloadStart, length: length)
        return (payloadStart, length)
    }

    package func readBinary(at offset: inout Int) throws(MessagePackReadError) -> Data {
        let range = try readBinaryRange(at: &offset)
        // Copies, so the result never points into the caller's (memory-mapped) buffer.
        return Data(UnsafeRawBufferPointer(rebasing: bytes[range.start..<range.start + range.length]))
    }

    /// Returns the type and payload range of the extension value (fixext or ext) at `offset`
    /// and advances past it.
    package func readExtensionRange(at offset: inout Int) throws(MessagePackReadError) -> (type: Int8, start: Int, length: Int) {
        let start = offset
        let format = try byte(at: start)
        let typeOffset: Int
        let length: Int
        switch format {
        case MessagePackFormat.fixext1...MessagePackFormat.fixext16:
            typeOffset = start + 1
            length = 1 << Int(format - MessagePackFormat.fixext1)
        case MessagePackFormat.ext8:
            typeOffset = start + 2
            length = Int(try load(UInt8.self, at: start + 1))
        case MessagePackFormat.ext16:
            typeOffset = start + 3
            length = Int(try load(UInt16.self, at: start + 1))
        case MessagePackFormat.ext32:
            typeOffset = start + 5
            length = Int(try load(UInt32.self, at: start + 1))
        default:
            throw .typeMismatch(found: format, offset: start)
        }
        let type = try load(Int8.self, at: typeOffset)
        offset = try end(ofPayloadAt: typeOffset + 1, length: length)
        return (type, typeOffset + 1, length)
    }

    /// Reads the timestamp extension (type -1) in any of its three layouts.
    package func readTimestamp(at offset: inout Int) throws(MessagePackReadError) -> (seconds: Int64, nanoseconds: UInt32) {
        let start = offset
        let format = try byte(at: start)
        let seconds: Int64
        let nanoseconds: UInt32
        let typeOffset: Int
        let next: Int
        switch format {
        case MessagePackFormat.fixext4:
            typeOffset = start + 1
            seconds = Int64(try load(UInt32.self, at: start + 2))
            nanoseconds = 0
            next = start + 6
        case MessagePackFormat.fixext8:
            typeOffset = start + 1
            let packed = try load(UInt64.self, at: start + 2)
            nanoseconds = UInt32(truncatingIfNeeded: packed >> 34)
            seconds = Int64(packed & 0x3_ffff_ffff)
            next = start + 10
        case MessagePackFormat.ext8:
            let length = try load(UInt8.self, at: start + 1)
            typeOffset = start + 2
            guard length == 12 else {
                let type = try load(Int8.self, at: typeOffset)
                if type != -1 { throw .invalidTimestamp("expected extension type -1 but found \(type)", offset: start) }
                throw .invalidTimestamp("a timestamp payload is 4, 8 or 12 bytes, not \(length)", offset: start)
            }
            nanoseconds = try load(UInt32.self, at: start + 3)
            seconds = try load(Int64.self, at: start + 7)
            next = start + 15
        case MessagePackFormat.fixext1, MessagePackFormat.fixext2, MessagePackFormat.fixext16,
             MessagePackFormat.ext16, MessagePackFormat.ext32:
            throw .invalidTimestamp("a timestamp payload is 4, 8 or 12 bytes", offset: start)
        default:
            throw .typeMismatch(found: format, offset: start)
        }
        let type = try load(Int8.self, at: typeOffset)
        guard type == -1 else {
            throw .invalidTimestamp("expected extension type -1 but found \(type)", offset: start)
        }
        guard nanoseconds < 1_000_000_000 else {
            throw .invalidTimestamp("nanoseconds \(nanoseconds) exceed 999999999", offset: start)
        }
        offset = next
        return (seconds, nanoseconds)
    }

    /// Reads an array header and returns its element count.
    package func readArrayHeader(at offset: inout Int) throws(MessagePackReadError) -> Int {
        let format = try byte(at: offset)
        switch format {
        case 0x90...0x9f, MessagePackFormat.array16, MessagePackFormat.array32:
            let header = try header(at: offset)
            offset = header.next
            return header.children
        default:
            throw .typeMismatch(found: format, offset: offset)
        }
    }

    /// Reads a map header and returns its entry count.
    package func readMapHeader(at offset: inout Int) throws(MessagePackReadError) -> Int {
        let format = try byte(at: offset)
        switch format {
        case 0x80...0x8f, MessagePackFormat.map16, MessagePackFormat.map32:
            let header = try header(at: offset)
            offset = header.next
            return header.children / 2
        default:
            throw .typeMismatch(found: format, offset: offset)
        }
    }
}
