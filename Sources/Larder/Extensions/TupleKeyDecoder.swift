#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LarderMessagePack
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads an encoding front to back, checking every length and every byte before using it.
///
/// Inside a descending component every byte is stored complemented; the decoder reads through
/// `mask` (`0xFF` there, `0x00` elsewhere) rather than copying the bytes out, so it finds the
/// component's end as it would a nested tuple's.
struct TupleKeyDecoder {
    /// Deeper than any key LMDB stores: 511 bytes hold at most 255 levels of two bytes each.
    static let maximumNesting = 256

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    /// XORed into every byte read: `0xFF` inside an odd number of descending components.
    private var mask: UInt8 = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The components `bytes` encodes.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [TupleComponent] {
        var decoder = TupleKeyDecoder(bytes)
        return try decoder.readComponents(depth: 0)
    }

    private static func corrupt(_ message: String, at offset: Int) -> LarderError {
        LarderError(.corruptValue, "Not a tuple key: \(message) at byte \(offset).", operation: "TupleKey(decoding:)")
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" + digits : digits)
    }

    /// Reads components up to the end of the input (at depth 0) or up to and including the end
    /// marker of the nested tuple being read.
    private mutating func readComponents(depth: Int) throws -> [TupleComponent] {
        var components: [TupleComponent] = []
        while position < bytes.count {
            let start = position
            let type = bytes[position] ^ mask
            position += 1
            switch type {
            case TupleTypeByte.nestedEnd:
                guard depth > 0 else {
                    throw Self.corrupt("an end marker (0x00) outside a nested tuple", at: start)
                }
                return components
            case TupleTypeByte.nestedStart:
                guard depth < Self.maximumNesting else {
                    throw Self.corrupt("tuples nested more than \(Self.maximumNesting) deep", at: start)
                }
                components.append(.tuple(try readComponents(depth: depth + 1)))
            case TupleTypeByte.descending:
                components.append(try readDescending(depth: depth, at: start))
            default:
                components.append(try readScalar(type: type, at: start))
            }
        }
        guard depth == 0 else {
            throw Self.corrupt("a nested tuple or descending component without its end marker", at: position)
        }
        return components
    }

    /// Reads a descending component after its type byte: one complemented component and a
    /// complemented end marker. It counts as a level of nesting.
    private mutating func readDescending(depth: Int, at start: Int) throws -> TupleComponent {
        guard depth < Self.maximumNesting else {
            throw Self.corrupt("tuples nested more than \(Self.maximumNesting) deep", at: start)
        }
        mask ^= 0xFF
        let inner = try readComponents(depth: depth + 1)
        mask ^= 0xFF
        guard inner.count == 1 else {
            throw Self.corrupt("a descending component holding \(inner.count) components rather than one", at: start)
        }
        return .descending(inner[0])
    }

    private mutating func readScalar(type: UInt8, at start: Int) throws -> TupleComponent {
        switch type {
        case TupleTypeByte.null:
            return .null
        case TupleTypeByte.false:
            return .bool(false)
        case TupleTypeByte.true:
            return .bool(true)
        case TupleTypeByte.integers:
            return try readInteger(type: type, at: start)
        case TupleTypeByte.double:
            let value = TupleComponent.double(fromOrderedBits: try readUInt64(count: 8, at: start))
            guard !value.isNaN || value.bitPattern == Double.nan.bitPattern else {
                throw Self.corrupt("a NaN other than the canonical one", at: start)
            }
            return .double(value)
        case TupleTypeByte.date:
            let interval = TupleComponent.double(fromOrderedBits: try readUInt64(count: 8, at: start))
            guard !interval.isNaN || interval.bitPattern == Double.nan.bitPattern else {
                throw Self.corrupt("a date at a NaN other than the canonical one", at: start)
            }
            guard interval.bitPattern != (-0.0 as Double).bitPattern else {
                throw Self.corrupt("a date at -0.0 rather than +0.0", at: start)
            }
            return .date(Date(timeIntervalSinceReferenceDate: interval))
        case TupleTypeByte.string:
            let content = try readEscaped(at: start)
            let string: String?
            if let unescaped = content.unescaped {
                string = unescaped.withUnsafeBytes { MessagePackUTF8.string($0) }
            } else {
                string = MessagePackUTF8.string(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[content.run])))
            }
            guard let string else {
                throw Self.corrupt("a string that is not valid UTF-8", at: start)
            }
            return .string(string)
        case TupleTypeByte.bytes:
            let content = try readEscaped(at: start)
            return .bytes(content.unescaped ?? Array(bytes[content.run]))
        default:
            throw Self.corrupt("unknown type byte \(Self.hex(type))", at: start)
        }
    }

    private mutating func readInteger(type: UInt8, at start: Int) throws -> TupleComponent {
        if type == TupleTypeByte.zero {
            return .int(0)
        }
        let isNegative = type < TupleTypeByte.zero
        let count = Int(isNegative ? TupleTypeByte.zero - type : type - TupleTypeByte.zero)
        let stored = try readUInt64(count: count, at: start)
        // The high bytes a shorter encoding would drop: zeros for a positive number, ones for
        // the complement of a negative one's magnitude.
        let mask: UInt64 = count == 8 ? .max : (1 << (count * 8)) - 1
        let magnitude = isNegative ? ~stored & mask : stored
        guard TupleComponent.significantByteCount(magnitude) == count else {
            throw Self.corrupt("an integer with a redundant leading byte", at: start)
        }
        if !isNegative {
            return magnitude <= UInt64(Int64.max) ? .int(Int64(magnitude)) : .uint(magnitude)
        }
        guard magnitude <= Int64.min.magnitude else {
            throw Self.corrupt("a negative integer below Int64.min", at: start)
        }
        return .int(Int64(truncatingIfNeeded: 0 &- magnitude))
    }

    /// Reads `count` bytes (at most 8) as a big-endian number.
    private mutating func readUInt64(count: Int, at start: Int) throws -> UInt64 {
        guard bytes.count - position >= count else {
            throw Self.corrupt("a component cut short", at: start)
        }
        var value: UInt64 = 0
        for _ in 0..<count {
            value = value << 8 | UInt64(bytes[position] ^ mask)
            position += 1
        }
        return value
    }

    /// Reads the content of a string or byte string up to and including its terminator: the
    /// run of input bytes it is when it holds no escaped NUL (the common case: no copy here), else
    /// the content unescaped. Finds each NUL with `memchr` rather than byte by byte (callgrind:
    /// decoding the keys was 15% of a cascade delete).
    private mutating func readEscaped(at start: Int) throws -> (run: Range<Int>, unescaped: [UInt8]?) {
        let contentStart = position
        var unescaped: [UInt8]?
        var runStart = position
        while position < bytes.count {
            guard let base = bytes.baseAddress,
                  let found = memchr(base + position, Int32(mask), bytes.count - position) else { break }
            let zero = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
            position = zero + 1
            guard position < bytes.count else { return finish(contentStart..<zero, runStart, &unescaped) }
            let next = bytes[position] ^ mask
            if next == TupleTypeByte.escape {
                unescaped = (unescaped ?? []) + bytes[runStart...zero]
                position += 1
                runStart = position
            } else if TupleTypeByte.canFollowComponent(next) {
                return finish(contentStart..<zero, runStart, &unescaped)
            } else {
                throw Self.corrupt("0x00 followed by \(Self.hex(next)), neither the 0xFF escape nor a component", at: zero)
            }
        }
        throw Self.corrupt("a string or byte string without its terminator", at: start)
    }

    /// The content ending at `run.upperBound` (its terminator): with an escape met, the bytes
    /// since the last one are appended to `unescaped`. Inside a descending component the content
    /// is always copied, to undo the complement.
    private func finish(_ run: Range<Int>, _ runStart: Int, _ unescaped: inout [UInt8]?) -> (run: Range<Int>, unescaped: [UInt8]?) {
        if unescaped != nil { unescaped! += bytes[runStart..<run.upperBound] }
        if mask != 0 {
            let mask = mask
            unescaped = (unescaped ?? Array(bytes[run])).map { $0 ^ mask }
        }
        return (run, unescaped)
    }
}
