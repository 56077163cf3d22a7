#if Extras
/// A JSON value as the tool reads and writes it: objects keep their members in order, and
/// integers stay apart from floating-point numbers (so `put` stores `1` as an integer and `1.0`
/// as a double, and export writes back what it read).
indirect enum JSONValue: Equatable {
    case null
    case bool(Bool)
    /// An integer that fits `Int64`.
    case integer(Int64)
    /// An integer above `Int64.max` that fits `UInt64`.
    case unsigned(UInt64)
    /// A finite double (the writer prints non-finite values as `null`; converters turn them into
    /// strings first).
    case double(Double)
    /// A finite 32-bit float, printed with the digits a `Float` needs (MessagePack float32).
    case float(Float)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The members of an object, `nil` for other values.
    var members: [JSONMember]? {
        guard case .object(let members) = self else { return nil }
        return members
    }

    /// The value of member `key` of an object, `nil` for other values or a missing member.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }
}

/// One member of a JSON object.
struct JSONMember: Equatable {
    var key: String
    var value: JSONValue

    init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}
#endif
