#if Extras
import Foundation

/// A one-line progress bar on standard error, drawn only when standard error is a terminal, so
/// that pipes and logs stay quiet. Redraws at most ten times a second. Once a tenth of a second
/// has passed it shows the rate (the average since the start) and, when the total is known, the
/// time left at that rate.
final class ProgressBar {
    /// What `done` and `total` count, for the rate.
    enum Unit {
        case records, bytes
    }

    private let label: String
    private let unit: Unit
    private let enabled: Bool
    private var started: ContinuousClock.Instant?
    private var lastDrawn: ContinuousClock.Instant?
    private var drawn = false

    init(_ label: String, unit: Unit = .records, enabled: Bool = isatty(2) == 1) {
        self.label = label
        self.unit = unit
        self.enabled = enabled
    }

    /// The rate and time left, as shown: `12,345 records/s, 0:42 left`; `nil` until `seconds`
    /// is long enough to say.
    static func pace(done: Int, total: Int?, seconds: Double, unit: Unit) -> String? {
        guard seconds >= 0.1, done > 0 else { return nil }
        let rate = Double(done) / seconds
        var text = unit == .bytes ? byteCount(Int(rate)) + "/s" : "\(Int(rate)) records/s"
        if let total, total > done {
            let left = Int((Double(total - done) / rate).rounded(.up))
            text += ", " + (left >= 3600 ? "\(left / 3600):" + String(format: "%02d", left / 60 % 60) : "\(left / 60)") + ":" + String(format: "%02d", left % 60) + " left"
        }
        return text
    }

    /// Shows `done` of `total` (`nil`: unknown, then only the count is shown), followed by
    /// `detail` when given (instead of the figures).
    func update(_ done: Int, of total: Int?, detail: String? = nil) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let started = self.started ?? now
        self.started = started
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
        let elapsed = (now - started).components
        if let pace = Self.pace(done: done, total: total, seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18, unit: unit) {
            text += " (" + pace + ")"
        }
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Clears the bar.
    func finish() {
        guard enabled, drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
#endif
