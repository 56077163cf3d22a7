#if Extras
/// Writes ``JSONValue``s as UTF-8 JSON text: compact (one line, for JSON Lines and scripts) or
/// indented by two spaces. Members keep their order; strings escape only what JSON requires
/// (quote, backslash, control characters), so non-ASCII text stays readable.
struct JSONWriter {
    var pretty = false

    /// The text of `value`.
    func text(_ value: JSONValue) -> String {
        var bytes: [UInt8] = []
        write(value, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the text of `value` to `bytes`.
    func write(_ value: JSONValue, into bytes: inout [UInt8]) {
        write(value, into: &bytes, indent: 0)
    }

    private func newline(_ bytes: inout [UInt8], indent: Int) {
        guard pretty else { return }
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }

    /// What is left to write: a value, what goes before an element or member, or the end of an
    /// array or object.
    private enum Piece {
        case value(JSONValue, indent: Int)
        /// The comma and line break before an element (none before the first).
        case element(first: Bool, indent: Int)
        /// The comma, line break, name and colon before a member.
        case member(String, first: Bool, indent: Int)
        /// The line break and bracket that end an array or object.
        case end(UInt8, empty: Bool, indent: Int)
    }

    /// Writes `value`, keeping what is left to write on a stack of its own, not the thread's, so
    /// any nesting writes.
    private func write(_ value: JSONValue, into bytes: inout [UInt8], indent: Int) {
        var pending = [Piece.value(value, indent: indent)]
        while let piece = pending.popLast() {
            switch piece {
            case .element(let first, let indent):
                if !first { bytes.append(UInt8(ascii: ",")) }
                newline(&bytes, indent: indent)
            case .member(let key, let first, let indent):
                if !first { bytes.append(UInt8(ascii: ",")) }
                newline(&bytes, indent: indent)
                Self.writeString(key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                if pretty { bytes.append(0x20) }
            case .end(let bracket, let empty, let indent):
                if !empty { newline(&bytes, indent: indent) }
                bytes.append(bracket)
            case .value(let value, let indent):
                switch value {
                case .null: bytes.append(contentsOf: "null".utf8)
                case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
                case .integer(let number): bytes.append(contentsOf: String(number).utf8)
                case .unsigned(let number): bytes.append(contentsOf: String(number).utf8)
                case .double(let number): bytes.append(contentsOf: Self.numberText(number.description, finite: number.isFinite).utf8)
                case .float(let number): bytes.append(contentsOf: Self.numberText(number.description, finite: number.isFinite).utf8)
                case .string(let string): Self.writeString(string, into: &bytes)
                case .array(let elements):
                    bytes.append(UInt8(ascii: "["))
                    // Pushed last first.
                    pending.append(.end(UInt8(ascii: "]"), empty: elements.isEmpty, indent: indent))
                    for (offset, element) in elements.enumerated().reversed() {
                        pending.append(.value(element, indent: indent + 1))
                        pending.append(.element(first: offset == 0, indent: indent + 1))
                    }
                case .object(let members):
                    bytes.append(UInt8(ascii: "{"))
                    pending.append(.end(UInt8(ascii: "}"), empty: members.isEmpty, indent: indent))
                    for (offset, member) in members.enumerated().reversed() {
                        pending.append(.value(member.value, indent: indent + 1))
                        pending.append(.member(member.key, first: offset == 0, indent: indent + 1))
                    }
                }
            }
        }
    }

    /// Swift's shortest round-trip digits, with a fraction or exponent so that the text reads
    /// back as a floating-point number (`24.0`, not `24`). Non-finite numbers have no JSON form.
    private static func numberText(_ description: String, finite: Bool) -> String {
        guard finite else { return "null" }
        if description.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { return description }
        return description + ".0"
    }

    static func writeString(_ string: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: "\\\\".utf8)
            case 0x0A: bytes.append(contentsOf: "\\n".utf8)
            case 0x0D: bytes.append(contentsOf: "\\r".utf8)
            case 0x09: bytes.append(contentsOf: "\\t".utf8)
            case 0x08: bytes.append(contentsOf: "\\b".utf8)
            case 0x0C: bytes.append(contentsOf: "\\f".utf8)
            case 0x00..<0x20:
                let hex = String(byte, radix: 16)
                bytes.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
#endif
