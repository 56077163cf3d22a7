import LarderMessagePack

extension JSONValue {
    /// The MessagePack value Larder's own encoder would write for the same Swift values: integers
    /// as integers, doubles as float64, strings as str, objects as maps with their members in
    /// order. So `{"count": 5}` is stored exactly as a Codable `struct { var count: Int }` would
    /// be, and reads back as one.
    ///
    /// One object has a meaning of its own: `{"$timestamp": "<ISO 8601 UTC>"}` (that member alone,
    /// with a valid time) becomes a MessagePack timestamp, which a Codable `Date` reads.
    var messagePack: MessagePackValue {
        switch self {
        case .null: return .nil
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .unsigned(let number): return .unsigned(number)
        case .double(let number): return .double(number)
        case .float(let number): return .float(number)
        case .string(let string): return .string(string)
        case .array(let elements): return .array(elements.map(\.messagePack))
        case .object(let members):
            if members.count == 1, members[0].key == "$timestamp", case .string(let text) = members[0].value,
               let (seconds, nanoseconds) = Timestamp.parse(text) {
                return .timestamp(seconds: seconds, nanoseconds: nanoseconds)
            }
            return .map(members.map { MessagePackValue.Entry(key: .string($0.key), value: $0.value.messagePack) })
        }
    }

    /// The bytes of ``messagePack``, each part in the smallest layout.
    var messagePackBytes: [UInt8] { messagePack.encoded() }
}
