/// Turns JSON into MessagePack the way Larder's own encoder writes the same Swift values: the
/// smallest integer encoding, doubles as float64, strings as str, objects as maps with their
/// members in order. So `{"count": 5}` is stored exactly as a Codable `struct { var count: Int }`
/// would be, and reads back as one.
///
/// One object has a meaning of its own: `{"$timestamp": "<ISO 8601 UTC>"}` (that member alone,
/// with a valid time) becomes a MessagePack timestamp, which a Codable `Date` reads.
enum MessagePackBuilder {
    static func bytes(of value: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        return bytes
    }

    static func append(_ value: JSONValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(0xc0)
        case .bool(let flag): bytes.append(flag ? 0xc3 : 0xc2)
        case .integer(let number):
            if number >= 0 { appendUnsigned(UInt64(number), to: &bytes) } else { appendNegative(number, to: &bytes) }
        case .unsigned(let number): appendUnsigned(number, to: &bytes)
        case .double(let number):
            bytes.append(0xcb)
            appendBigEndian(number.bitPattern, to: &bytes)
        case .float(let number):
            bytes.append(0xca)
            appendBigEndian(number.bitPattern, to: &bytes)
        case .string(let string):
            let utf8 = Array(string.utf8)
            appendHeader(utf8.count, fix: 0xa0, fixLimit: 31, eight: 0xd9, sixteen: 0xda, thirtyTwo: 0xdb, to: &bytes)
            bytes.append(contentsOf: utf8)
        case .array(let elements):
            appendHeader(elements.count, fix: 0x90, fixLimit: 15, eight: nil, sixteen: 0xdc, thirtyTwo: 0xdd, to: &bytes)
            for element in elements { append(element, to: &bytes) }
        case .object(let members):
            if members.count == 1, members[0].key == "$timestamp", case .string(let text) = members[0].value,
               let (seconds, nanoseconds) = Timestamp.parse(text) {
                bytes.append(contentsOf: Timestamp.messagePack(seconds: seconds, nanoseconds: nanoseconds))
                return
            }
            appendHeader(members.count, fix: 0x80, fixLimit: 15, eight: nil, sixteen: 0xde, thirtyTwo: 0xdf, to: &bytes)
            for member in members {
                append(.string(member.key), to: &bytes)
                append(member.value, to: &bytes)
            }
        }
    }

    private static func appendUnsigned(_ value: UInt64, to bytes: inout [UInt8]) {
        switch value {
        case 0...0x7f: bytes.append(UInt8(value))
        case 0...0xff: bytes.append(0xcc); bytes.append(UInt8(value))
        case 0...0xffff: bytes.append(0xcd); appendBigEndian(UInt16(value), to: &bytes)
        case 0...0xffff_ffff: bytes.append(0xce); appendBigEndian(UInt32(value), to: &bytes)
        default: bytes.append(0xcf); appendBigEndian(value, to: &bytes)
        }
    }

    private static func appendNegative(_ value: Int64, to bytes: inout [UInt8]) {
        switch value {
        case -32..<0: bytes.append(UInt8(truncatingIfNeeded: value))
        case Int64(Int8.min)..<0: bytes.append(0xd0); bytes.append(UInt8(truncatingIfNeeded: value))
        case Int64(Int16.min)..<0: bytes.append(0xd1); appendBigEndian(UInt16(truncatingIfNeeded: value), to: &bytes)
        case Int64(Int32.min)..<0: bytes.append(0xd2); appendBigEndian(UInt32(truncatingIfNeeded: value), to: &bytes)
        default: bytes.append(0xd3); appendBigEndian(UInt64(bitPattern: value), to: &bytes)
        }
    }

    private static func appendHeader(_ count: Int, fix: UInt8, fixLimit: Int, eight: UInt8?, sixteen: UInt8, thirtyTwo: UInt8, to bytes: inout [UInt8]) {
        if count <= fixLimit {
            bytes.append(fix | UInt8(count))
        } else if let eight, count <= 0xff {
            bytes.append(eight)
            bytes.append(UInt8(count))
        } else if count <= 0xffff {
            bytes.append(sixteen)
            appendBigEndian(UInt16(count), to: &bytes)
        } else {
            bytes.append(thirtyTwo)
            appendBigEndian(UInt32(count), to: &bytes)
        }
    }

    private static func appendBigEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
