#if Extras
import Larder

/// A failure the tool reports as one line on standard error and an exit status.
struct CommandFailure: Error {
    let status: ExitStatus
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The failure for a Larder error: its message with the context a person needs, and the
    /// status its code belongs to. `context` (a line number, say) goes first.
    init(_ error: LarderError, context: String? = nil) {
        var text = error.message
        if let index = error.index, error.code != .notAStore {
            text += " (collection \(Self.quoted(index.collection)), key \(Self.quoted(index.key)))"
        }
        if let name = error.extensionName { text += " (extension \(name))" }
        if let path = error.path, [.notAStore, .newerFormatVersion, .permissionDenied, .io, .corrupted, .notFound, .lockConflict].contains(error.code) { text += ": \(path)" }
        if let suggestion = error.recoverySuggestion { text += "; to fix: " + suggestion }
        if let context { text = context + ": " + text }
        self.init(Self.status(of: error.code), text)
    }

    static func status(of code: LarderError.Code) -> ExitStatus {
        switch code {
        case .notAStore, .newerFormatVersion, .keyTooLong, .emptyKey, .invalidCollection, .invalidExtensionName, .encodingFailed:
            .badInput
        case .notFound:
            .notFound
        default:
            .storeError
        }
    }

    /// `text` in double quotes, for names in messages (an empty collection shows as `""`); a
    /// long one is cut to its first 60 characters, so that a message stays one readable line.
    static func quoted(_ text: String) -> String {
        let shown = text.count > 60 ? text.prefix(60) + "…" : Substring(text)
        return "\"" + shown + "\""
    }
}
#endif
