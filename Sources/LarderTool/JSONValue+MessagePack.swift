#if Extras
import LarderMessagePack

extension JSONValue {
    /// The MessagePack value Larder's own encoder would write for the same Swift values: integers
    /// as integers, doubles as float64, strings as str, objects as maps with their members in
    /// order. So `{"count": 5}` is stored exactly as a Codable `struct { var count: Int }` would
    /// be, and reads back as one.
    ///
    /// One object has a meaning of its own: `{"$timestamp": "<ISO 8601 UTC>"}` (that member alone,
    /// with a valid time) becomes a MessagePack timestamp, which a Codable `Date` reads.
    ///
    /// The conversion keeps the values still to convert on a stack of its own, not the thread's.
    var messagePack: MessagePackValue {
        var steps = [Step.convert(self)]
        var converted: [MessagePackValue] = []
        while let step = steps.popLast() {
            switch step {
            case .convert(let value):
                switch value {
                case .null: converted.append(.nil)
                case .bool(let flag): converted.append(.bool(flag))
                case .integer(let number): converted.append(.integer(number))
                case .unsigned(let number): converted.append(.unsigned(number))
                case .double(let number): converted.append(.double(number))
                case .float(let number): converted.append(.float(number))
                case .string(let string): converted.append(.string(string))
                case .array(let elements):
                    steps.append(.array(count: elements.count))
                    steps.append(contentsOf: elements.reversed().map(Step.convert))
                case .object(let members):
                    if members.count == 1, members[0].key == "$timestamp", case .string(let text) = members[0].value,
                       let (seconds, nanoseconds) = Timestamp.parse(text) {
                        converted.append(.timestamp(seconds: seconds, nanoseconds: nanoseconds))
                    } else {
                        steps.append(.map(keys: members.map(\.key)))
                        steps.append(contentsOf: members.reversed().map { Step.convert($0.value) })
                    }
                }
            case .array(let count):
                let elements = Array(converted.suffix(count))
                converted.removeLast(count)
                converted.append(.array(elements))
            case .map(let keys):
                let values = converted.suffix(keys.count)
                let entries = zip(keys, values).map { MessagePackValue.Entry(key: .string($0), value: $1) }
                converted.removeLast(keys.count)
                converted.append(.map(entries))
            }
        }
        return converted[0]
    }

    /// What is left to do in ``messagePack``: convert a value, or gather the last values
    /// converted into the array or map they belong to.
    private enum Step {
        case convert(JSONValue)
        case array(count: Int)
        case map(keys: [String])
    }

    /// The bytes of ``messagePack``, each part in the smallest layout.
    var messagePackBytes: [UInt8] { messagePack.encoded() }
}
#endif
