import Foundation

/// A one-line progress bar on standard error, drawn only when standard error is a terminal, so
/// that pipes and logs stay quiet. Redraws at most ten times a second.
final class ProgressBar {
    private let label: String
    private let enabled: Bool
    private var lastDrawn: ContinuousClock.Instant?
    private var drawn = false

    init(_ label: String, enabled: Bool = isatty(2) == 1) {
        self.label = label
        self.enabled = enabled
    }

    /// Shows `done` of `total` (`nil`: unknown, then only the count is shown), followed by
    /// `detail` when given (instead of the figures).
    func update(_ done: Int, of total: Int?, detail: String? = nil) {
        guard enabled else { return }
        let now = ContinuousClock.now
        if let lastDrawn, now - lastDrawn < .milliseconds(100) { return }
        lastDrawn = now
        drawn = true
        var text = "\r\u{1B}[2K" + label
        if let total, total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            let width = 30
            let filled = Int(fraction * Double(width))
            text += " [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
            text += " \(Int(fraction * 100))%"
            text += " " + (detail ?? "\(done)/\(total)")
        } else {
            text += " " + (detail ?? "\(done)")
        }
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Clears the bar.
    func finish() {
        guard enabled, drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
