/// The type bytes of the encoding (see the table on ``TupleKey``).
enum TupleTypeByte {
    static let nestedEnd: UInt8 = 0x00
    static let null: UInt8 = 0x08
    static let `false`: UInt8 = 0x10
    static let `true`: UInt8 = 0x11
    /// Zero; `zero - n` starts a negative integer of `n` bytes, `zero + n` a positive one.
    static let zero: UInt8 = 0x28
    static let integers: ClosedRange<UInt8> = (zero - 8)...(zero + 8)
    static let double: UInt8 = 0x40
    static let date: UInt8 = 0x48
    static let string: UInt8 = 0x50
    static let bytes: UInt8 = 0x58
    static let nestedStart: UInt8 = 0x60
    /// A descending component: the bitwise complement of the inner component's encoding and a
    /// nested tuple's end marker follows (see ``Descending``).
    static let descending: UInt8 = 0x68
    /// Follows a `0x00` that belongs to a string's content; above every type byte, so that a
    /// string sorts before its extensions.
    static let escape: UInt8 = 0xFF

    /// Whether `byte` may follow a complete component: a type byte or the end of a nested tuple.
    static func canFollowComponent(_ byte: UInt8) -> Bool {
        switch byte {
        case Self.nestedEnd, Self.null, Self.false, Self.true, Self.double, Self.date, Self.string, Self.bytes,
            Self.nestedStart, Self.descending:
            true
        default:
            Self.integers.contains(byte)
        }
    }
}
