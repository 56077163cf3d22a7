/// The MessagePack format bytes (see the msgpack spec.md "Overview" table) and
/// human-readable names for them, used in error messages.
enum MessagePackFormat {
    static let positiveFixintMax: UInt8 = 0x7f
    static let fixmapMask: UInt8 = 0x80
    static let fixarrayMask: UInt8 = 0x90
    static let fixstrMask: UInt8 = 0xa0
    static let `nil`: UInt8 = 0xc0
    static let neverUsed: UInt8 = 0xc1
    static let `false`: UInt8 = 0xc2
    static let `true`: UInt8 = 0xc3
    static let bin8: UInt8 = 0xc4
    static let bin16: UInt8 = 0xc5
    static let bin32: UInt8 = 0xc6
    static let ext8: UInt8 = 0xc7
    static let ext16: UInt8 = 0xc8
    static let ext32: UInt8 = 0xc9
    static let float32: UInt8 = 0xca
    static let float64: UInt8 = 0xcb
    static let uint8: UInt8 = 0xcc
    static let uint16: UInt8 = 0xcd
    static let uint32: UInt8 = 0xce
    static let uint64: UInt8 = 0xcf
    static let int8: UInt8 = 0xd0
    static let int16: UInt8 = 0xd1
    static let int32: UInt8 = 0xd2
    static let int64: UInt8 = 0xd3
    static let fixext1: UInt8 = 0xd4
    static let fixext2: UInt8 = 0xd5
    static let fixext4: UInt8 = 0xd6
    static let fixext8: UInt8 = 0xd7
    static let fixext16: UInt8 = 0xd8
    static let str8: UInt8 = 0xd9
    static let str16: UInt8 = 0xda
    static let str32: UInt8 = 0xdb
    static let array16: UInt8 = 0xdc
    static let array32: UInt8 = 0xdd
    static let map16: UInt8 = 0xde
    static let map32: UInt8 = 0xdf
    static let negativeFixintMin: UInt8 = 0xe0

    /// Extension type -1 as a byte.
    static let timestampExtensionType: UInt8 = 0xff

    /// What kind of value a format byte starts, for "expected X but found Y" messages.
    static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x00...0x7f, 0xe0...0xff, 0xcc...0xd3: return "an integer"
        case 0x80...0x8f, map16, map32: return "a map"
        case 0x90...0x9f, array16, array32: return "an array"
        case 0xa0...0xbf, str8, str16, str32: return "a string"
        case `nil`: return "nil"
        case `false`, `true`: return "a boolean"
        case bin8, bin16, bin32: return "binary data"
        case float32, float64: return "a floating-point number"
        case fixext1...fixext16, ext8, ext16, ext32: return "an extension value"
        default: return "the reserved byte 0xc1"
        }
    }
}
