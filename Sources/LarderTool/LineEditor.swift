#if Extras
import CLibEdit
import Foundation

/// Line editing for `larder shell` on a terminal, through Debian's libedit (its readline
/// interface): the arrow keys, Home and End, Ctrl-A/E/K/U/W move and edit within the line, Up and
/// Down walk the history, which is kept per user across sessions, and Tab completes the word
/// under the cursor from what ``complete`` offers.
///
/// libedit keeps one editor per process, with C callbacks that carry no context, so the state
/// here is global: one shell per process, on one thread.
enum LineEditor {
    /// Offers completions of `word`, the word under the cursor, given `before`, the line up to it.
    typealias Completions = (_ before: String, _ word: String) -> [String]

    /// The history file: `$LARDER_HISTORY`, or `~/.larder_history`.
    static var historyPath: String {
        if let path = ProcessInfo.processInfo.environment["LARDER_HISTORY"], !path.isEmpty { return path }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".larder_history").path
    }

    /// The most lines the history keeps.
    static let historyLimit: Int32 = 1000

    /// Sets the editor up: loads the history, installs `completions` for Tab.
    static func start(completions: @escaping Completions) {
        state.completions = completions
        stifle_history(historyLimit)
        _ = read_history(historyPath)
        larder_edit_configure(UnsafePointer(strdup("larder")), { text, start, _ in
            guard let text else { return nil }
            let line = larder_edit_line_buffer().map { String(cString: $0) } ?? ""
            let before = String(decoding: Array(line.utf8).prefix(Int(max(0, start))), as: UTF8.self)
            LineEditor.state.matches = LineEditor.state.completions?(before, String(cString: text)) ?? []
            // Nothing else: libedit would otherwise offer file names.
            larder_edit_completion_is_over()
            guard !LineEditor.state.matches.isEmpty else { return nil }
            return rl_completion_matches(text, { _, index in
                let matches = LineEditor.state.matches
                guard index >= 0, Int(index) < matches.count else { return nil }
                return strdup(matches[Int(index)])
            })
        })
    }

    /// Reads a line after `prompt`, editing it on the terminal; nil at the end of input (Ctrl-D).
    static func readLine(prompt: String) -> String? {
        guard let line = readline(prompt) else { return nil }
        defer { free(line) }
        return String(cString: line)
    }

    /// Adds `line` to the history and saves the history (so that a session that is killed keeps
    /// what it typed).
    static func remember(_ line: String) {
        _ = add_history(line)
        let status = write_history(historyPath)  // 0, or the errno of the failure
        guard status == 0 else {
            // An unwritable history file costs the history, not the session: said once.
            if !state.toldHistoryFailure {
                state.toldHistoryFailure = true
                printError("larder: the history cannot be saved to \(historyPath) (\(String(cString: strerror(status)))); the session goes on without it")
            }
            return
        }
        _ = history_truncate_file(historyPath, historyLimit)
    }

    /// The editor's state, shared with the C callbacks.
    final class State: @unchecked Sendable {  // one shell per process, on the thread that reads lines
        var completions: Completions?
        var matches: [String] = []
        var toldHistoryFailure = false
    }

    static let state = State()
}
#endif
