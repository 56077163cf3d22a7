#if Extras
import Larder

/// Parses JSON text (RFC 8259) into a ``JSONValue``: one value, surrounded by whitespace at
/// most. Strict: no comments, no trailing commas, no non-finite numbers, no lone surrogates, no
/// member name twice in one object, and the text must be UTF-8. Nesting is limited to
/// ``maximumDepth`` levels, the depth MessagePack values may have; the arrays and objects being
/// read are kept on a stack of the parser's own, not the thread's, so no text can exhaust the
/// stack.
///
/// It also records where the value of each member of a top-level object lies in the text
/// (``memberSpans``), so that `import` can store a JSON-format value exactly as it was written.
struct JSONParser {
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var position = 0
    /// Levels of the text that wrap what it carries (an `import` record's own object) and do not
    /// count against ``maximumDepth``.
    private let wrappingLevels: Int
    /// For a top-level object: the byte range of each member's value, by key (its bytes).
    private(set) var memberSpans: [ExactString: Range<Int>] = [:]

    /// A parser of `bytes`; `wrappingLevels` outer levels (a record around the values it holds)
    /// nest on top of the ``maximumDepth`` levels the values may have.
    init(_ bytes: [UInt8], wrappingLevels: Int = 0) {
        self.bytes = bytes
        self.wrappingLevels = wrappingLevels
    }

    /// Parses the whole text as one JSON value.
    static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes)
        return try parser.parseDocument()
    }

    /// Parses the whole text as one JSON value, keeping the spans of top-level members.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard position == bytes.count else { throw fail("unexpected text after the JSON value") }
        return value
    }

    private func fail(_ reason: String) -> JSONParseError {
        JSONParseError(offset: position, reason: reason)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// An array or object being read: what it holds so far and, for an object, the names it
    /// has used and the member whose value is being read.
    private struct OpenContainer {
        let isObject: Bool
        var elements: [JSONValue] = []
        var members: [JSONMember] = []
        var names = Set<ExactString>()
        var key = ""
        /// Where the value of `key` starts.
        var valueStart = 0
    }

    /// The value at the position, read to its end: scalars at once, arrays and objects on a
    /// stack of open containers, each value put in the container it belongs to, which may be
    /// complete with it, and so on down the stack.
    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        var open: [OpenContainer] = []
        while true {
            guard position < bytes.count else { throw fail("the text ends where a value should be") }
            var value: JSONValue
            switch bytes[position] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard open.count < Self.maximumDepth + wrappingLevels else { throw fail("the value nests deeper than \(Self.maximumDepth) levels") }
                let isObject = bytes[position] == UInt8(ascii: "{")
                position += 1
                skipWhitespace()
                if position < bytes.count, bytes[position] == UInt8(ascii: isObject ? "}" : "]") {
                    position += 1
                    value = isObject ? .object([]) : .array([])
                } else {
                    open.append(OpenContainer(isObject: isObject))
                    if isObject { try readMemberName(into: &open[open.count - 1]) }
                    continue
                }
            case UInt8(ascii: "\""): value = .string(try parseString())
            case UInt8(ascii: "t"): try expectWord("true"); value = .bool(true)
            case UInt8(ascii: "f"): try expectWord("false"); value = .bool(false)
            case UInt8(ascii: "n"): try expectWord("null"); value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = try parseNumber()
            default: throw fail("unexpected character '\(String(decoding: [bytes[position]], as: UTF8.self))'")
            }
            while let top = open.indices.last {
                if open[top].isObject {
                    if open.count == 1 { memberSpans[ExactString(open[top].key)] = open[top].valueStart..<position }
                    open[top].members.append(JSONMember(open[top].key, value))
                } else {
                    open[top].elements.append(value)
                }
                skipWhitespace()
                let isObject = open[top].isObject
                guard position < bytes.count else { throw fail(isObject ? "the text ends inside an object" : "the text ends inside an array") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    skipWhitespace()
                    if isObject { try readMemberName(into: &open[top]) }
                    break
                }
                guard bytes[position] == UInt8(ascii: isObject ? "}" : "]") else {
                    throw fail(isObject ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array")
                }
                position += 1
                let complete = open.removeLast()
                value = complete.isObject ? .object(complete.members) : .array(complete.elements)
            }
            if open.isEmpty { return value }
        }
    }

    /// Reads a member's name and the colon after it, up to where its value starts.
    private mutating func readMemberName(into object: inout OpenContainer) throws(JSONParseError) {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
        let nameStart = position
        let key = try parseString()
        // RFC 8259 leaves repeated names to the reader; Larder refuses them, as one of the
        // values would otherwise be lost without a word. Names are compared by their bytes: two
        // that Swift's `String ==` calls equal are two members, as they are two keys of the
        // MessagePack map the value becomes.
        guard object.names.insert(ExactString(key)).inserted else {
            throw JSONParseError(offset: nameStart, reason: "the member name \(CommandFailure.quoted(key)) appears twice in one object")
        }
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':' after a member name") }
        position += 1
        skipWhitespace()
        object.key = key
        object.valueStart = position
    }

    private mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
        let length = word.utf8CodeUnitCount
        guard bytes.count - position >= length else { throw fail("unexpected end of the text") }
        for offset in 0..<length where bytes[position + offset] != word.utf8Start[offset] {
            throw fail("unexpected characters (expected \(word))")
        }
        position += length
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        position += 1  // the opening quote
        var text: [UInt8] = []
        var runStart = position
        while true {
            guard position < bytes.count else { throw fail("the text ends inside a string") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                text.append(contentsOf: bytes[runStart..<position])
                position += 1
                break
            } else if byte == UInt8(ascii: "\\") {
                text.append(contentsOf: bytes[runStart..<position])
                try parseEscape(into: &text)
                runStart = position
            } else if byte < 0x20 {
                throw fail("a control character must be escaped inside a string")
            } else {
                position += 1
            }
        }
        guard let string = String(validating: text, as: UTF8.self) else {
            throw JSONParseError(offset: runStart, reason: "a string is not valid UTF-8")
        }
        return string
    }

    private mutating func parseEscape(into text: inout [UInt8]) throws(JSONParseError) {
        position += 1
        guard position < bytes.count else { throw fail("the text ends inside an escape") }
        let escape = bytes[position]
        position += 1
        switch escape {
        case UInt8(ascii: "\""): text.append(0x22)
        case UInt8(ascii: "\\"): text.append(0x5C)
        case UInt8(ascii: "/"): text.append(0x2F)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try parseHex4())
            if (0xD800...0xDBFF).contains(scalar) {
                guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw fail("a high surrogate escape is not followed by a low one")
                }
                position += 2
                let low = UInt32(try parseHex4())
                guard (0xDC00...0xDFFF).contains(low) else { throw fail("a high surrogate escape is not followed by a low one") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw fail("a low surrogate escape without a high one")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw fail("an escape names no Unicode scalar") }
            UTF8.encode(unicode) { text.append($0) }
        default:
            throw fail("unknown escape '\\\(String(decoding: [escape], as: UTF8.self))'")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        guard bytes.count - position >= 4 else { throw fail("the text ends inside a \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    private mutating func digits() -> Int {
        let start = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
        return position - start
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw fail("a number ends after its sign") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else if digits() == 0 {
            throw fail("a number needs digits")
        }
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard digits() > 0 else { throw fail("a number needs digits after its decimal point") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw fail("a number needs digits in its exponent") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger {
            if let value = Int64(text) { return .integer(value) }
            if let value = UInt64(text) { return .unsigned(value) }
        }
        // Integers beyond UInt64 become doubles, like most JSON readers make them.
        guard let value = Double(text), value.isFinite else {
            throw JSONParseError(offset: start, reason: "the number \(text) is out of range")
        }
        return .double(value)
    }
}
#endif
