/// Any MessagePack value, read without knowing its Swift type: what the tool needs to show a
/// stored value of any program as JSON.
indirect enum MessagePackValue: Equatable {
    case `nil`
    case bool(Bool)
    /// A negative integer (MessagePack's negative fixint and int8 to int64 below zero).
    case negative(Int64)
    /// A non-negative integer, however it was encoded.
    case unsigned(UInt64)
    case float(Float)
    case double(Double)
    /// A string's bytes (MessagePack says UTF-8; they are kept as read, in case they are not).
    case string([UInt8])
    case binary([UInt8])
    case array([MessagePackValue])
    case map([MessagePackPair])
    case ext(type: Int8, data: [UInt8])
}

/// One entry of a MessagePack map, in the order it was stored.
struct MessagePackPair: Equatable {
    var key: MessagePackValue
    var value: MessagePackValue
}

/// Why bytes are not one well-formed MessagePack value.
struct MessagePackParseError: Error, CustomStringConvertible {
    let offset: Int
    let reason: String
    var description: String { "\(reason) at byte \(offset)" }
}

/// Reads one MessagePack value from bytes, checking every length against the buffer and the
/// nesting against ``maximumDepth``; bytes after the value are an error.
struct MessagePackParser {
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The value `bytes` hold, which must be exactly one value.
    static func parse(_ bytes: [UInt8]) throws(MessagePackParseError) -> MessagePackValue {
        var parser = MessagePackParser(bytes)
        let value = try parser.value()
        guard parser.position == bytes.count else {
            throw MessagePackParseError(offset: parser.position, reason: "\(bytes.count - parser.position) bytes follow the value")
        }
        return value
    }

    private func fail(_ reason: String) -> MessagePackParseError {
        MessagePackParseError(offset: position, reason: reason)
    }

    private mutating func take(_ count: Int) throws(MessagePackParseError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - position else { throw fail("the value is cut short") }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    private mutating func integer<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type) throws(MessagePackParseError) -> T {
        var value: T = 0
        for byte in try take(MemoryLayout<T>.size) { value = value << 8 | T(byte) }
        return value
    }

    private mutating func length(_ format: UInt8, small: UInt8, eight: UInt8?, sixteen: UInt8, thirtyTwo: UInt8) throws(MessagePackParseError) -> Int {
        switch format {
        case eight: Int(try integer(UInt8.self))
        case sixteen: Int(try integer(UInt16.self))
        case thirtyTwo: Int(try integer(UInt32.self))
        default: Int(format - small)
        }
    }

    private mutating func value() throws(MessagePackParseError) -> MessagePackValue {
        let format = try take(1).first!
        switch format {
        case 0x00...0x7f: return .unsigned(UInt64(format))
        case 0xe0...0xff: return .negative(Int64(Int8(bitPattern: format)))
        case 0xc0: return .nil
        case 0xc2: return .bool(false)
        case 0xc3: return .bool(true)
        case 0xcc: return .unsigned(UInt64(try integer(UInt8.self)))
        case 0xcd: return .unsigned(UInt64(try integer(UInt16.self)))
        case 0xce: return .unsigned(UInt64(try integer(UInt32.self)))
        case 0xcf: return .unsigned(try integer(UInt64.self))
        case 0xd0: return Self.signed(Int64(Int8(bitPattern: try integer(UInt8.self))))
        case 0xd1: return Self.signed(Int64(Int16(bitPattern: try integer(UInt16.self))))
        case 0xd2: return Self.signed(Int64(Int32(bitPattern: try integer(UInt32.self))))
        case 0xd3: return Self.signed(Int64(bitPattern: try integer(UInt64.self)))
        case 0xca: return .float(Float(bitPattern: try integer(UInt32.self)))
        case 0xcb: return .double(Double(bitPattern: try integer(UInt64.self)))
        case 0xa0...0xbf, 0xd9, 0xda, 0xdb:
            let count = try length(format, small: 0xa0, eight: 0xd9, sixteen: 0xda, thirtyTwo: 0xdb)
            return .string(Array(try take(count)))
        case 0xc4, 0xc5, 0xc6:
            let count = try length(format, small: 0, eight: 0xc4, sixteen: 0xc5, thirtyTwo: 0xc6)
            return .binary(Array(try take(count)))
        case 0x90...0x9f, 0xdc, 0xdd:
            let count = try length(format, small: 0x90, eight: nil, sixteen: 0xdc, thirtyTwo: 0xdd)
            // Every element takes at least a byte: a count beyond the bytes left is a lie.
            guard count <= bytes.count - position else { throw fail("an array claims more elements than there are bytes") }
            try enter()
            defer { depth -= 1 }
            var elements: [MessagePackValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try value()) }
            return .array(elements)
        case 0x80...0x8f, 0xde, 0xdf:
            let count = try length(format, small: 0x80, eight: nil, sixteen: 0xde, thirtyTwo: 0xdf)
            guard count <= (bytes.count - position) / 2 else { throw fail("a map claims more entries than there are bytes") }
            try enter()
            defer { depth -= 1 }
            var pairs: [MessagePackPair] = []
            pairs.reserveCapacity(count)
            for _ in 0..<count {
                let key = try value()
                pairs.append(MessagePackPair(key: key, value: try value()))
            }
            return .map(pairs)
        case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8:
            let count = 1 << Int(format - 0xd4)
            let type = Int8(bitPattern: try take(1).first!)
            return .ext(type: type, data: Array(try take(count)))
        case 0xc7, 0xc8, 0xc9:
            let count = try length(format, small: 0, eight: 0xc7, sixteen: 0xc8, thirtyTwo: 0xc9)
            let type = Int8(bitPattern: try take(1).first!)
            return .ext(type: type, data: Array(try take(count)))
        default:  // 0xc1
            throw MessagePackParseError(offset: position - 1, reason: "the byte 0xc1 is never used in MessagePack")
        }
    }

    private static func signed(_ value: Int64) -> MessagePackValue {
        value < 0 ? .negative(value) : .unsigned(UInt64(value))
    }

    private mutating func enter() throws(MessagePackParseError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw fail("the value nests deeper than \(Self.maximumDepth) levels") }
    }
}
