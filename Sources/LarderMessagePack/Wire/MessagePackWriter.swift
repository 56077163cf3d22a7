#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Appends MessagePack-encoded scalars and container headers to a byte array,
/// always choosing the smallest representation the spec allows.
///
/// The writer knows nothing about `Codable`; both the streaming encoder and the
/// tree-building fallback encoder use it so the two produce identical bytes.
package struct MessagePackWriter {
    package var bytes: [UInt8]

    package init(bytes: [UInt8] = []) {
        self.bytes = bytes
    }

    package var count: Int { bytes.count }

    // MARK: Scalars

    package mutating func writeNil() {
        bytes.append(MessagePackFormat.nil)
    }

    package mutating func writeBool(_ value: Bool) {
        bytes.append(value ? MessagePackFormat.true : MessagePackFormat.false)
    }

    package mutating func writeInt(_ value: Int64) {
        if value >= 0 {
            writeUInt(UInt64(value))
            return
        }
        if value >= -32 {
            bytes.append(UInt8(truncatingIfNeeded: value))
        } else if value >= Int64(Int8.min) {
            appendFormat(MessagePackFormat.int8, bigEndian: UInt8(truncatingIfNeeded: value))
        } else if value >= Int64(Int16.min) {
            appendFormat(MessagePackFormat.int16, bigEndian: UInt16(truncatingIfNeeded: value))
        } else if value >= Int64(Int32.min) {
            appendFormat(MessagePackFormat.int32, bigEndian: UInt32(truncatingIfNeeded: value))
        } else {
            appendFormat(MessagePackFormat.int64, bigEndian: UInt64(bitPattern: value))
        }
    }

    package mutating func writeUInt(_ value: UInt64) {
        if value <= 0x7f {
            bytes.append(UInt8(truncatingIfNeeded: value))
        } else if value <= UInt64(UInt8.max) {
            appendFormat(MessagePackFormat.uint8, bigEndian: UInt8(truncatingIfNeeded: value))
        } else if value <= UInt64(UInt16.max) {
            appendFormat(MessagePackFormat.uint16, bigEndian: UInt16(truncatingIfNeeded: value))
        } else if value <= UInt64(UInt32.max) {
            appendFormat(MessagePackFormat.uint32, bigEndian: UInt32(truncatingIfNeeded: value))
        } else {
            appendFormat(MessagePackFormat.uint64, bigEndian: value)
        }
    }

    package mutating func writeFloat(_ value: Float) {
        appendFormat(MessagePackFormat.float32, bigEndian: value.bitPattern)
    }

    package mutating func writeDouble(_ value: Double) {
        appendFormat(MessagePackFormat.float64, bigEndian: value.bitPattern)
    }

    /// Returns false when the string is longer than str32 can describe.
    package mutating func writeString(_ value: String) -> Bool {
        let utf8 = value.utf8
        let length = utf8.count
        guard let headerSize = Self.stringHeaderSize(length) else { return false }
        let copied: Void? = utf8.withContiguousStorageIfAvailable { payload in
            appendHeader(Self.stringFormats, headerSize: headerSize, length: length,
                         payload: UnsafeRawPointer(payload.baseAddress))
        }
        if copied == nil {
            _ = writeStringHeader(length)
            bytes.append(contentsOf: utf8)
        }
        return true
    }

    /// Writes a str whose UTF-8 is `length` bytes at `payload` (a key, say). Returns false when
    /// it is longer than str32 can describe.
    package mutating func writeString(utf8 payload: UnsafeRawPointer?, length: Int) -> Bool {
        guard let headerSize = Self.stringHeaderSize(length) else { return false }
        appendHeader(Self.stringFormats, headerSize: headerSize, length: length, payload: payload)
        return true
    }

    /// Returns false when the length exceeds what str32 can describe.
    package mutating func writeStringHeader(_ length: Int) -> Bool {
        guard let headerSize = Self.stringHeaderSize(length) else { return false }
        appendHeader(Self.stringFormats, headerSize: headerSize, length: length, payload: nil)
        return true
    }

    /// The size of a str header for `length` bytes: 1 (fixstr), 2, 3 or 5; nil past str32.
    @inline(__always)
    static func stringHeaderSize(_ length: Int) -> Int? {
        if length <= 31 { return 1 }
        if length <= Int(UInt8.max) { return 2 }
        if length <= Int(UInt16.max) { return 3 }
        return UInt64(length) <= UInt64(UInt32.max) ? 5 : nil
    }

    /// The first byte of a header of each size: a fixstr (ORed with the length), str8, str16, str32.
    static let stringFormats = HeaderFormats(
        short: MessagePackFormat.fixstrMask, one: MessagePackFormat.str8, two: MessagePackFormat.str16, four: MessagePackFormat.str32)
    /// bin has no short form: lengths under 256 take bin8.
    static let binaryFormats = HeaderFormats(
        short: nil, one: MessagePackFormat.bin8, two: MessagePackFormat.bin16, four: MessagePackFormat.bin32)

    /// The format bytes of a family of headers (str or bin) by the size of their length field.
    struct HeaderFormats {
        /// The mask a length under 32 is ORed with, for families that have such a form.
        var short: UInt8?
        var one: UInt8
        var two: UInt8
        var four: UInt8
    }

    /// Appends a header of `headerSize` bytes for `length` and then `length` bytes from `payload`
    /// (none when `payload` is nil), growing the array once for both.
    @inline(__always)
    private mutating func appendHeader(_ formats: HeaderFormats, headerSize: Int, length: Int, payload: UnsafeRawPointer?) {
        let payloadSize = payload == nil ? 0 : length
        appendRaw(count: headerSize + payloadSize) { start in
            switch headerSize {
            case 1:
                start.storeBytes(of: (formats.short ?? 0) | UInt8(truncatingIfNeeded: length), as: UInt8.self)
            case 2:
                start.storeBytes(of: formats.one, as: UInt8.self)
                start.storeBytes(of: UInt8(truncatingIfNeeded: length), toByteOffset: 1, as: UInt8.self)
            case 3:
                start.storeBytes(of: formats.two, as: UInt8.self)
                start.storeBytes(of: UInt16(truncatingIfNeeded: length).bigEndian, toByteOffset: 1, as: UInt16.self)
            default:
                start.storeBytes(of: formats.four, as: UInt8.self)
                start.storeBytes(of: UInt32(truncatingIfNeeded: length).bigEndian, toByteOffset: 1, as: UInt32.self)
            }
            if let payload, payloadSize > 0 {
                (start + headerSize).copyMemory(from: payload, byteCount: payloadSize)
            }
        }
    }

    /// Returns false when the payload is longer than bin32 can describe.
    package mutating func writeBinary(_ payload: UnsafeRawBufferPointer) -> Bool {
        let length = payload.count
        let headerSize: Int
        if length <= Int(UInt8.max) {
            headerSize = 2
        } else if length <= Int(UInt16.max) {
            headerSize = 3
        } else if UInt64(length) <= UInt64(UInt32.max) {
            headerSize = 5
        } else {
            return false
        }
        appendHeader(Self.binaryFormats, headerSize: headerSize, length: length, payload: payload.baseAddress)
        return true
    }

    /// Writes the timestamp extension (type -1) in the smallest of its three layouts.
    /// `nanoseconds` must already be in 0..<1_000_000_000.
    package mutating func writeTimestamp(seconds: Int64, nanoseconds: UInt32) {
        if seconds >= 0 && seconds >> 34 == 0 {
            if nanoseconds == 0 && seconds <= Int64(UInt32.max) {
                bytes.append(MessagePackFormat.fixext4)
                bytes.append(MessagePackFormat.timestampExtensionType)
                appendBigEndian(UInt32(truncatingIfNeeded: seconds))
            } else {
                bytes.append(MessagePackFormat.fixext8)
                bytes.append(MessagePackFormat.timestampExtensionType)
                appendBigEndian(UInt64(nanoseconds) << 34 | UInt64(seconds))
            }
        } else {
            bytes.append(MessagePackFormat.ext8)
            bytes.append(12)
            bytes.append(MessagePackFormat.timestampExtensionType)
            appendBigEndian(nanoseconds)
            appendBigEndian(UInt64(bitPattern: seconds))
        }
    }

    /// Writes an extension value of `type` in the smallest layout: fixext for payloads of 1, 2,
    /// 4, 8 or 16 bytes, ext8, ext16 or ext32 otherwise. Returns false when the payload is longer
    /// than ext32 can describe.
    package mutating func writeExtension(type: Int8, payload: UnsafeRawBufferPointer) -> Bool {
        let length = payload.count
        switch length {
        case 1: bytes.append(MessagePackFormat.fixext1)
        case 2: bytes.append(MessagePackFormat.fixext2)
        case 4: bytes.append(MessagePackFormat.fixext4)
        case 8: bytes.append(MessagePackFormat.fixext8)
        case 16: bytes.append(MessagePackFormat.fixext16)
        case 0...Int(UInt8.max):
            bytes.append(MessagePackFormat.ext8)
            bytes.append(UInt8(truncatingIfNeeded: length))
        case 0...Int(UInt16.max):
            bytes.append(MessagePackFormat.ext16)
            appendBigEndian(UInt16(truncatingIfNeeded: length))
        default:
            guard UInt64(length) <= UInt64(UInt32.max) else { return false }
            bytes.append(MessagePackFormat.ext32)
            appendBigEndian(UInt32(truncatingIfNeeded: length))
        }
        bytes.append(UInt8(bitPattern: type))
        bytes.append(contentsOf: payload)
        return true
    }

    // MARK: Container headers

    package mutating func writeArrayHeader(_ count: Int) -> Bool {
        if count <= 15 {
            bytes.append(MessagePackFormat.fixarrayMask | UInt8(truncatingIfNeeded: count))
        } else if count <= Int(UInt16.max) {
            bytes.append(MessagePackFormat.array16)
            appendBigEndian(UInt16(truncatingIfNeeded: count))
        } else if UInt64(count) <= UInt64(UInt32.max) {
            bytes.append(MessagePackFormat.array32)
            appendBigEndian(UInt32(truncatingIfNeeded: count))
        } else {
            return false
        }
        return true
    }

    package mutating func writeMapHeader(_ count: Int) -> Bool {
        if count <= 15 {
            bytes.append(MessagePackFormat.fixmapMask | UInt8(truncatingIfNeeded: count))
        } else if count <= Int(UInt16.max) {
            bytes.append(MessagePackFormat.map16)
            appendBigEndian(UInt16(truncatingIfNeeded: count))
        } else if UInt64(count) <= UInt64(UInt32.max) {
            bytes.append(MessagePackFormat.map32)
            appendBigEndian(UInt32(truncatingIfNeeded: count))
        } else {
            return false
        }
        return true
    }

    /// Rewrites the 1-byte fixmap/fixarray placeholder at `offset` so it describes
    /// `count` elements, growing it in place to 3 or 5 bytes when 15 is exceeded.
    /// Returns false when the count does not fit in 32 bits.
    package mutating func patchContainerHeader(at offset: Int, count: Int, isMap: Bool) -> Bool {
        if count <= 15 {
            let mask = isMap ? MessagePackFormat.fixmapMask : MessagePackFormat.fixarrayMask
            bytes[offset] = mask | UInt8(truncatingIfNeeded: count)
            return true
        }
        if count <= Int(UInt16.max) {
            // Shifting the already-written elements is rare (only >15 entries) and
            // cheaper than reserving 5 bytes for every small container.
            bytes.replaceSubrange(offset..<offset + 1, with: repeatElement(0, count: 3))
            bytes[offset] = isMap ? MessagePackFormat.map16 : MessagePackFormat.array16
            bytes[offset + 1] = UInt8(truncatingIfNeeded: count >> 8)
            bytes[offset + 2] = UInt8(truncatingIfNeeded: count)
            return true
        }
        guard UInt64(count) <= UInt64(UInt32.max) else { return false }
        bytes.replaceSubrange(offset..<offset + 1, with: repeatElement(0, count: 5))
        bytes[offset] = isMap ? MessagePackFormat.map32 : MessagePackFormat.array32
        bytes[offset + 1] = UInt8(truncatingIfNeeded: count >> 24)
        bytes[offset + 2] = UInt8(truncatingIfNeeded: count >> 16)
        bytes[offset + 3] = UInt8(truncatingIfNeeded: count >> 8)
        bytes[offset + 4] = UInt8(truncatingIfNeeded: count)
        return true
    }

    // MARK: Helpers

    @inline(__always)
    package mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        appendRaw(count: MemoryLayout<T>.size) { $0.storeBytes(of: value.bigEndian, as: T.self) }
    }

    /// Appends a format byte and `value` big-endian after it, growing the array once.
    @inline(__always)
    private mutating func appendFormat<T: FixedWidthInteger>(_ format: UInt8, bigEndian value: T) {
        appendRaw(count: 1 + MemoryLayout<T>.size) { start in
            start.storeBytes(of: format, as: UInt8.self)
            start.storeBytes(of: value.bigEndian, toByteOffset: 1, as: T.self)
        }
    }

    /// Appends `count` (> 0) bytes that `body` stores from the address it is given: one check
    /// of the array's capacity (grown geometrically) and uniqueness for the whole run, where
    /// `append` would check them per call.
    @inline(__always)
    package mutating func appendRaw(count: Int, _ body: (UnsafeMutableRawPointer) -> Void) {
        bytes.append(addingCapacity: count) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                body(UnsafeMutableRawPointer(buffer.baseAddress.unsafelyUnwrapped))
                initialized = count
            }
        }
    }
}
