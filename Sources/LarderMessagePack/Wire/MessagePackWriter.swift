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
            bytes.append(MessagePackFormat.int8)
            bytes.append(UInt8(truncatingIfNeeded: value))
        } else if value >= Int64(Int16.min) {
            bytes.append(MessagePackFormat.int16)
            appendBigEndian(UInt16(truncatingIfNeeded: value))
        } else if value >= Int64(Int32.min) {
            bytes.append(MessagePackFormat.int32)
            appendBigEndian(UInt32(truncatingIfNeeded: value))
        } else {
            bytes.append(MessagePackFormat.int64)
            appendBigEndian(UInt64(bitPattern: value))
        }
    }

    package mutating func writeUInt(_ value: UInt64) {
        if value <= 0x7f {
            bytes.append(UInt8(truncatingIfNeeded: value))
        } else if value <= UInt64(UInt8.max) {
            bytes.append(MessagePackFormat.uint8)
            bytes.append(UInt8(truncatingIfNeeded: value))
        } else if value <= UInt64(UInt16.max) {
            bytes.append(MessagePackFormat.uint16)
            appendBigEndian(UInt16(truncatingIfNeeded: value))
        } else if value <= UInt64(UInt32.max) {
            bytes.append(MessagePackFormat.uint32)
            appendBigEndian(UInt32(truncatingIfNeeded: value))
        } else {
            bytes.append(MessagePackFormat.uint64)
            appendBigEndian(value)
        }
    }

    package mutating func writeFloat(_ value: Float) {
        bytes.append(MessagePackFormat.float32)
        appendBigEndian(value.bitPattern)
    }

    package mutating func writeDouble(_ value: Double) {
        bytes.append(MessagePackFormat.float64)
        appendBigEndian(value.bitPattern)
    }

    /// Returns false when the string is longer than str32 can describe.
    package mutating func writeString(_ value: String) -> Bool {
        let utf8 = value.utf8
        let length = utf8.count
        guard writeStringHeader(length) else { return false }
        let copied: Void? = utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil {
            bytes.append(contentsOf: utf8)
        }
        return true
    }

    /// Returns false when the length exceeds what str32 can describe.
    package mutating func writeStringHeader(_ length: Int) -> Bool {
        if length <= 31 {
            bytes.append(MessagePackFormat.fixstrMask | UInt8(truncatingIfNeeded: length))
        } else if length <= Int(UInt8.max) {
            bytes.append(MessagePackFormat.str8)
            bytes.append(UInt8(truncatingIfNeeded: length))
        } else if length <= Int(UInt16.max) {
            bytes.append(MessagePackFormat.str16)
            appendBigEndian(UInt16(truncatingIfNeeded: length))
        } else if UInt64(length) <= UInt64(UInt32.max) {
            bytes.append(MessagePackFormat.str32)
            appendBigEndian(UInt32(truncatingIfNeeded: length))
        } else {
            return false
        }
        return true
    }

    /// Returns false when the payload is longer than bin32 can describe.
    package mutating func writeBinary(_ payload: UnsafeRawBufferPointer) -> Bool {
        let length = payload.count
        if length <= Int(UInt8.max) {
            bytes.append(MessagePackFormat.bin8)
            bytes.append(UInt8(truncatingIfNeeded: length))
        } else if length <= Int(UInt16.max) {
            bytes.append(MessagePackFormat.bin16)
            appendBigEndian(UInt16(truncatingIfNeeded: length))
        } else if UInt64(length) <= UInt64(UInt32.max) {
            bytes.append(MessagePackFormat.bin32)
            appendBigEndian(UInt32(truncatingIfNeeded: length))
        } else {
            return false
        }
        bytes.append(contentsOf: payload)
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
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
