#if Extras
/// Why JSON text did not parse: a message with the byte offset where it went wrong.
struct JSONParseError: Error, CustomStringConvertible {
    let offset: Int
    let reason: String
    var description: String { "\(reason) at byte \(offset)" }
}
#endif
