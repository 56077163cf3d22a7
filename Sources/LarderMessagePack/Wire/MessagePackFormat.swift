/// The MessagePack format bytes (see the msgpack spec.md "Overview" table) and
/// human-readable names for them, used in error messages.
package enum MessagePackFormat {
    package static let positiveFixintMax: UInt8 = 0x7f
    package static let fixmapMask: UInt8 = 0x80
    package static let fixarrayMask: UInt8 = 0x90
    package static let fixstrMask: UInt8 = 0xa0
    package static let `nil`: UInt8 = 0xc0
    package static let neverUsed: UInt8 = 0xc1
    package static let `false`: UInt8 = 0xc2
    package static let `true`: UInt8 = 0xc3
    package static let bin8: UInt8 = 0xc4
    package static let bin16: UInt8 = 0xc5
    package static let bin32: UInt8 = 0xc6
    package static let ext8: UInt8 = 0xc7
    package static let ext16: UInt8 = 0xc8
    package static let ext32: UInt8 = 0xc9
    package static let float32: UInt8 = 0xca
    package static let float64: UInt8 = 0xcb
    package static let uint8: UInt8 = 0xcc
    package static let uint16: UInt8 = 0xcd
    package static let uint32: UInt8 = 0xce
    package static let uint64: UInt8 = 0xcf
    package static let int8: UInt8 = 0xd0
    package static let int16: UInt8 = 0xd1
    package static let int32: UInt8 = 0xd2
    package static let int64: UInt8 = 0xd3
    package static let fixext1: UInt8 = 0xd4
    package static let fixext2: UInt8 = 0xd5
    package static let fixext4: UInt8 = 0xd6
    package static let fixext8: UInt8 = 0xd7
    package static let fixext16: UInt8 = 0xd8
    package static let str8: UInt8 = 0xd9
    package static let str16: UInt8 = 0xda
    package static let str32: UInt8 = 0xdb
    package static let array16: UInt8 = 0xdc
    package static let array32: UInt8 = 0xdd
    package static let map16: UInt8 = 0xde
    package static let map32: UInt8 = 0xdf
    package static let negativeFixintMin: UInt8 = 0xe0

    /// Extension type -1 as a byte.
    package static let timestampExtensionType: UInt8 = 0xff

    /// Whether `byte` starts a map (fixmap, map16 or map32).
    @inline(__always)
    package static func isMap(_ byte: UInt8) -> Bool {
        byte & 0xf0 == fixmapMask || byte == map16 || byte == map32
    }

    /// Whether `byte` starts a string (fixstr, str8, str16 or str32).
    @inline(__always)
    package static func isString(_ byte: UInt8) -> Bool {
        byte & 0xe0 == fixstrMask || (byte >= str8 && byte <= str32)
    }

    /// Whether `byte` starts an integer (a fixint or uint8...int64).
    @inline(__always)
    package static func isInteger(_ byte: UInt8) -> Bool {
        byte <= positiveFixintMax || byte >= negativeFixintMin || (byte >= uint8 && byte <= int64)
    }

    /// Whether `byte` starts a container (a map or an array of any size).
    @inline(__always)
    package static func isContainer(_ byte: UInt8) -> Bool {
        byte & 0xe0 == fixmapMask || (byte >= array16 && byte <= map32)
    }

    /// What kind of value a format byte starts, for "expected X but found Y" messages.
    package static func describe(_ byte: UInt8) -> String {
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
