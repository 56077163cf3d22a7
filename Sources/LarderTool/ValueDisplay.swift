#if Extras
import Foundation
import Larder
import LarderMessagePack

/// How the tool shows stored values as JSON (see Documentation/CommandLine.md, "Values"):
///
/// | MessagePack | JSON |
/// |---|---|
/// | nil, bool, integers, float64 | `null`, `true`/`false`, numbers (floats always with a `.` or an exponent) |
/// | float32 | a number with a float's digits (`0.1`) |
/// | NaN, ±infinity | the strings `"NaN"`, `"Infinity"`, `"-Infinity"` |
/// | str | a string (bytes that are not UTF-8 are replaced by U+FFFD) |
/// | bin | a string: the bytes in base64 |
/// | map with only string keys | an object, members in stored order |
/// | other maps | `{"$map": [[key, value], …]}` |
/// | timestamp (ext -1) | an ISO 8601 string in UTC, with up to nine fraction digits |
/// | other ext | `{"$ext": type, "base64": "<data>"}` |
///
/// The exchange form (export and import) differs in one point: a timestamp is
/// `{"$timestamp": "<ISO 8601>"}`, which `JSONValue.messagePack` turns back into the same timestamp.
enum ValueDisplay {
    /// What is left to do in ``json(_:exchange:)``: convert a value, or gather the last values
    /// converted into the array, object or `$map` they belong to.
    private enum Step {
        case convert(MessagePackValue)
        case array(count: Int)
        case object(keys: [String])
        /// A map with keys other than strings: its keys and values, alternating.
        case pairs(count: Int)
    }

    /// The JSON form of a MessagePack value; with `exchange`, timestamps are `$timestamp` objects.
    /// The values still to convert are kept on a stack of its own, not the thread's.
    static func json(_ value: MessagePackValue, exchange: Bool = false) -> JSONValue {
        var steps = [Step.convert(value)]
        var converted: [JSONValue] = []
        while let step = steps.popLast() {
            switch step {
            case .convert(let value):
                switch value {
                case .array(let elements):
                    steps.append(.array(count: elements.count))
                    steps.append(contentsOf: elements.reversed().map(Step.convert))
                case .map(let entries):
                    var keys: [String] = []
                    keys.reserveCapacity(entries.count)
                    for entry in entries {
                        guard case .string(let key) = entry.key else { break }
                        keys.append(String(decoding: key, as: UTF8.self))
                    }
                    if keys.count == entries.count {
                        steps.append(.object(keys: keys))
                        steps.append(contentsOf: entries.reversed().map { Step.convert($0.value) })
                    } else {
                        steps.append(.pairs(count: entries.count))
                        for entry in entries.reversed() {
                            steps.append(.convert(entry.value))
                            steps.append(.convert(entry.key))
                        }
                    }
                case .nil: converted.append(.null)
                case .bool(let flag): converted.append(.bool(flag))
                case .negative(let number): converted.append(.integer(number))
                case .unsigned(let number): converted.append(number <= UInt64(Int64.max) ? .integer(Int64(number)) : .unsigned(number))
                case .float(let number): converted.append(number.isFinite ? .float(number) : .string(nonFinite(Double(number))))
                case .double(let number): converted.append(number.isFinite ? .double(number) : .string(nonFinite(number)))
                case .string(let bytes): converted.append(.string(String(decoding: bytes, as: UTF8.self)))
                case .binary(let bytes): converted.append(.string(Data(bytes).base64EncodedString()))
                case .ext(let type, let data):
                    if let (seconds, nanoseconds) = value.timestamp, let text = Timestamp.format(seconds: seconds, nanoseconds: Int(nanoseconds)) {
                        converted.append(exchange ? .object([JSONMember("$timestamp", .string(text))]) : .string(text))
                    } else {
                        converted.append(.object([JSONMember("$ext", .integer(Int64(type))), JSONMember("base64", .string(Data(data).base64EncodedString()))]))
                    }
                }
            case .array(let count):
                let elements = Array(converted.suffix(count))
                converted.removeLast(count)
                converted.append(.array(elements))
            case .object(let keys):
                let members = zip(keys, converted.suffix(keys.count)).map { JSONMember($0, $1) }
                converted.removeLast(keys.count)
                converted.append(.object(members))
            case .pairs(let count):
                let flat = Array(converted.suffix(2 * count))
                converted.removeLast(2 * count)
                let pairs = stride(from: 0, to: flat.count, by: 2).map { JSONValue.array([flat[$0], flat[$0 + 1]]) }
                converted.append(.object([JSONMember("$map", .array(pairs))]))
            }
        }
        return converted[0]
    }

    private static func nonFinite(_ number: Double) -> String {
        number.isNaN ? "NaN" : (number < 0 ? "-Infinity" : "Infinity")
    }

    /// The JSON form of a stored payload in `format`: MessagePack converted, JSON as written,
    /// anything else (raw bytes, custom formats) as a string of hexadecimal digits.
    /// - Throws: ``CommandFailure`` (store error) when a MessagePack or JSON value is malformed.
    static func json(format: ArchiveFormat, payload: [UInt8], what: String) throws -> JSONValue {
        switch format {
        case .messagePack:
            do {
                return json(try MessagePackValue(reading: payload))
            } catch {
                throw CommandFailure(.storeError, "the \(what) is stored as MessagePack but does not read as MessagePack (\(error)); use --hex to see its bytes")
            }
        case .json:
            do {
                return try JSONParser.parse(payload)
            } catch {
                throw CommandFailure(.storeError, "the \(what) is stored as JSON but does not parse (\(error)); use --hex to see its bytes")
            }
        default:
            return .string(hex(payload))
        }
    }

    /// Lowercase hexadecimal digits, two per byte.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The name the tool uses for a format: `messagePack`, `json`, `raw`, or the byte's number.
    static func formatJSON(_ format: ArchiveFormat) -> JSONValue {
        switch format {
        case .messagePack, .json, .raw: .string(format.description)
        default: .integer(Int64(format.rawValue))
        }
    }

    /// The format a JSON Lines record or an option names; `nil` when it names none.
    static func format(named value: JSONValue) -> ArchiveFormat? {
        switch value {
        case .string("messagePack"): .messagePack
        case .string("json"): .json
        case .string("raw"): .raw
        case .integer(let number) where (0...255).contains(number): ArchiveFormat(rawValue: UInt8(number))
        default: nil
        }
    }
}

/// ISO 8601 text for MessagePack's timestamp extension (type -1): what `get` shows and what
/// `put` and `import` read in `{"$timestamp": …}`.
enum Timestamp {
    /// The seconds since 1970 and nanoseconds of `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (UTC, one to
    /// nine fraction digits), or `nil` for any other text.
    static func parse(_ text: String) -> (seconds: Int64, nanoseconds: UInt32)? {
        var characters = Substring(text)
        func number(_ count: Int?, then separator: Character?) -> Int64? {
            let digits = characters.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, count.map({ digits.count == $0 }) ?? (digits.count >= 4), let value = Int64(digits) else { return nil }
            characters = characters.dropFirst(digits.count)
            if let separator {
                guard characters.first == separator else { return nil }
                characters = characters.dropFirst()
            }
            return value
        }
        let negative = characters.first == "-"
        if negative { characters = characters.dropFirst() }
        guard let year = number(nil, then: "-"), let month = number(2, then: "-"), let day = number(2, then: "T"),
              let hour = number(2, then: ":"), let minute = number(2, then: ":"), let second = number(2, then: nil),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60, year <= Int64(Int32.max) else { return nil }
        var nanoseconds: Int64 = 0
        if characters.first == "." {
            characters = characters.dropFirst()
            let digits = characters.prefix { $0.isASCII && $0.isNumber }
            guard (1...9).contains(digits.count), let fraction = Int64(digits) else { return nil }
            nanoseconds = fraction * Int64(pow(10.0, Double(9 - digits.count)))
            characters = characters.dropFirst(digits.count)
        }
        guard characters == "Z" else { return nil }
        var parts = tm()
        parts.tm_year = Int32((negative ? -year : year) - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        var time = timegm(&parts)
        // timegm moves a day past a month's end into the next month: insist on a real date.
        var check = tm()
        guard gmtime_r(&time, &check) != nil, check.tm_year == Int32((negative ? -year : year) - 1900), check.tm_mon == Int32(month - 1),
              check.tm_mday == Int32(day) else { return nil }
        return (Int64(time), UInt32(nanoseconds))
    }

    /// Formats seconds since 1970 in UTC; `nil` when the C library cannot (a year beyond `Int32`).
    static func format(seconds: Int64, nanoseconds: Int) -> String? {
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return nil }
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value.magnitude)
            return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var text = "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
        text += "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))"
        if nanoseconds > 0 {
            var fraction = pad(nanoseconds, 9)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text + "Z"
    }
}
#endif
