#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The encoding of a component, whose bytes sort as the values do (the table is on ``TupleKey``).

extension TupleComponent {
    /// Appends this component's encoding to `buffer`.
    func encode(into buffer: inout [UInt8]) {
        switch self {
        case .null:
            buffer.append(TupleTypeByte.null)
        case .bool(let value):
            buffer.append(value ? TupleTypeByte.true : TupleTypeByte.false)
        case .int(let value):
            if value < 0 {
                Self.appendNegative(magnitude: value.magnitude, to: &buffer)
            } else {
                Self.appendNonNegative(UInt64(value), to: &buffer)
            }
        case .uint(let value):
            Self.appendNonNegative(value, to: &buffer)
        case .double(let value):
            buffer.append(TupleTypeByte.double)
            Self.appendBigEndian(Self.orderedBits(of: value), to: &buffer)
        case .date(let date):
            buffer.append(TupleTypeByte.date)
            // -0.0 + 0.0 is +0.0: one instant, one encoding.
            let interval = date.timeIntervalSinceReferenceDate + 0.0
            Self.appendBigEndian(Self.orderedBits(of: interval), to: &buffer)
        case .string(let string):
            Self.appendString(string, to: &buffer)
        case .bytes(let bytes):
            buffer.append(TupleTypeByte.bytes)
            Self.appendEscaped(bytes, to: &buffer)
        case .tuple(let components):
            buffer.append(TupleTypeByte.nestedStart)
            for component in components {
                component.encode(into: &buffer)
            }
            buffer.append(TupleTypeByte.nestedEnd)
        case .descending(let inner):
            // The inner component as the body of a one-component nested tuple (its encoding and
            // an end marker, which makes it prefix-free even for a string), complemented.
            buffer.append(TupleTypeByte.descending)
            let start = buffer.count
            inner.encode(into: &buffer)
            buffer.append(TupleTypeByte.nestedEnd)
            for position in start..<buffer.count {
                buffer[position] = ~buffer[position]
            }
        }
    }

    /// The number of bytes `value` needs with its leading zero bytes dropped.
    static func significantByteCount(_ value: UInt64) -> Int {
        (UInt64.bitWidth - value.leadingZeroBitCount + 7) / 8
    }

    private static func appendNonNegative(_ value: UInt64, to buffer: inout [UInt8]) {
        let count = significantByteCount(value)
        buffer.append(TupleTypeByte.zero + UInt8(count))
        appendLowBytes(value, count: count, to: &buffer)
    }

    /// Writes the ones' complement of the magnitude, so a larger magnitude (a smaller number)
    /// gives smaller bytes.
    private static func appendNegative(magnitude: UInt64, to buffer: inout [UInt8]) {
        let count = significantByteCount(magnitude)
        buffer.append(TupleTypeByte.zero - UInt8(count))
        appendLowBytes(~magnitude, count: count, to: &buffer)
    }

    /// Appends the low `count` bytes of `value`, most significant first.
    private static func appendLowBytes(_ value: UInt64, count: Int, to buffer: inout [UInt8]) {
        for index in stride(from: count - 1, through: 0, by: -1) {
            buffer.append(UInt8(truncatingIfNeeded: value >> (index * 8)))
        }
    }

    private static func appendBigEndian(_ value: UInt64, to buffer: inout [UInt8]) {
        appendLowBytes(value, count: 8, to: &buffer)
    }

    /// Appends the encoding of `.string(string)`, without making the component: the type byte,
    /// the escaped UTF-8, the terminator.
    static func appendString(_ string: String, to buffer: inout [UInt8]) {
        buffer.append(TupleTypeByte.string)
        var string = string
        // Native strings are contiguous UTF-8: escaped from a buffer, not through the generic
        // walk of the UTF-8 view.
        string.withUTF8 { appendEscaped($0, to: &buffer) }
    }

    private static func appendEscaped(_ bytes: some Collection<UInt8>, to buffer: inout [UInt8]) {
        // Most strings hold no NUL: copy them whole.
        let copied = bytes.withContiguousStorageIfAvailable { contiguous -> Bool in
            guard let base = contiguous.baseAddress else { return true }  // empty
            guard memchr(base, 0, contiguous.count) == nil else { return false }
            buffer.append(contentsOf: contiguous)
            return true
        } ?? false
        if !copied {
            for byte in bytes {
                buffer.append(byte)
                if byte == 0 {
                    buffer.append(TupleTypeByte.escape)
                }
            }
        }
        buffer.append(0)
    }

    private static let signBit: UInt64 = 1 << 63

    /// The bits of `value` rearranged so that unsigned order is IEEE total order: negatives have
    /// every bit flipped (a larger magnitude sorts first), the rest only the sign bit (so they sort
    /// above the negatives). Every NaN becomes `Double.nan` first.
    static func orderedBits(of value: Double) -> UInt64 {
        let bits = value.isNaN ? Double.nan.bitPattern : value.bitPattern
        return bits & signBit != 0 ? ~bits : bits | signBit
    }

    /// The inverse of ``orderedBits(of:)``.
    static func double(fromOrderedBits ordered: UInt64) -> Double {
        Double(bitPattern: ordered & signBit != 0 ? ordered & ~signBit : ~ordered)
    }
}
