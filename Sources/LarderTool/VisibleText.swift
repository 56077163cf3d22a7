#if Extras
import Foundation

/// Names as the text and table outputs show them: every character that would break a line, a
/// column or a quoted name (line breaks, tabs, other control characters, and in quoted names the
/// quote and the backslash) as an escape, and in a name that is not in Unicode's composed form
/// (NFC) its combining marks as `\u{…}` too, so that two names Swift calls equal but the store
/// keeps apart (`"caf\u{E9}"` and `"cafe\u{301}"`) do not print alike. JSON, JSON Lines and CSV
/// keep names exact in their own quoting.
enum VisibleText {
    /// `text` with what would break the layout escaped; `quoting` also escapes `"` and `\`.
    static func escape(_ text: String, quoting: Bool = false) -> String {
        let decomposed = !text.unicodeScalars.allSatisfy(\.isASCII) && !text.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(text.unicodeScalars)
        guard decomposed || text.unicodeScalars.contains(where: { needsEscape($0, quoting: quoting) }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\"" where quoting: result += "\\\""
            case "\\" where quoting: result += "\\\\"
            default:
                let mark = scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .enclosingMark
                if isControl(scalar) || (decomposed && mark) {
                    result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// `text` in double quotes, escaped (see ``escape(_:quoting:)``).
    static func quoted(_ text: String) -> String { "\"" + escape(text, quoting: true) + "\"" }

    private static func needsEscape(_ scalar: Unicode.Scalar, quoting: Bool) -> Bool {
        isControl(scalar) || (quoting && (scalar == "\"" || scalar == "\\"))
    }

    /// C0 and C1 controls, DEL, and the line and paragraph separators.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}
#endif
