/// Any MessagePack value, read without knowing the Swift type that wrote it: what a tool needs to
/// show or convert the values of any program.
///
/// The tree is a faithful view of the bytes. Every integer has one case whatever width it was
/// stored in (`.unsigned` for zero and above, `.negative` below zero), so equal numbers compare
/// equal; strings keep their bytes as stored, even when they are not UTF-8; map entries keep their
/// stored order and may repeat keys or use keys of any kind.
///
/// ```swift
/// let value = try MessagePackValue(reading: bytes)
/// if case .map(let entries) = value {
///     for entry in entries { print(entry.key, entry.value) }
/// }
/// let again = value.encoded()   // the same bytes, for values written in the smallest layouts
/// ```
///
/// ``encoded()`` writes every value in the smallest layout MessagePack allows, as
/// ``MessagePackEncoder`` does, so a tree built from the fields of a `Codable` struct encodes to
/// the bytes the encoder writes for that struct.
public indirect enum MessagePackValue: Equatable, Sendable {
    /// MessagePack's nil.
    case `nil`
    /// A boolean.
    case bool(Bool)
    /// An integer below zero, however it was stored (negative fixint, int8 to int64).
    case negative(Int64)
    /// An integer of zero or more, however it was stored (positive fixint, uint8 to uint64, or a
    /// signed layout holding a non-negative number).
    case unsigned(UInt64)
    /// A float32.
    case float(Float)
    /// A float64.
    case double(Double)
    /// A str's bytes. MessagePack says they are UTF-8; they are kept as stored in case they are
    /// not (``text`` reads them as a `String`).
    case string([UInt8])
    /// A bin's bytes.
    case binary([UInt8])
    /// An array's elements, in order.
    case array([MessagePackValue])
    /// A map's entries, in stored order.
    case map([Entry])
    /// An extension value: its type (negative types are reserved by MessagePack; -1 is the
    /// timestamp, see ``timestamp``) and its payload.
    case ext(type: Int8, data: [UInt8])

    /// One entry of a MessagePack map.
    public struct Entry: Equatable, Sendable {
        /// The entry's key (usually a string, but MessagePack allows any value).
        public var key: MessagePackValue
        /// The entry's value.
        public var value: MessagePackValue

        /// An entry of `key` and `value`.
        public init(key: MessagePackValue, value: MessagePackValue) {
            self.key = key
            self.value = value
        }
    }

    /// The integer `value` in the case that holds it: `.negative` below zero, `.unsigned` otherwise.
    public static func integer(_ value: Int64) -> MessagePackValue {
        value < 0 ? .negative(value) : .unsigned(UInt64(value))
    }

    /// The string `text` (its UTF-8 bytes).
    public static func string(_ text: String) -> MessagePackValue {
        .string(Array(text.utf8))
    }

    /// The text of a `.string` whose bytes are valid UTF-8; `nil` for other values.
    public var text: String? {
        guard case .string(let bytes) = self else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
