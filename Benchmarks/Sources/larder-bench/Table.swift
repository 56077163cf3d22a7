/// The result table, printed as Markdown so that it can be pasted into Performance.md as it is.
struct Table {
    static let header = ["workload: Larder vs reference", "Larder", "reference", "ratio", "target", "result"]
    var rows: [[String]] = []

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        let all = [Self.header] + rows
        let widths = Self.header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            "| " + cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |"
        }
        let rule = "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"
        return ([line(Self.header), rule] + rows.map(line)).joined(separator: "\n")
    }
}

/// "1.25 µs (800 k/s)": time per operation and operations per second.
func describe(secondsPerOperation seconds: Double) -> String {
    guard seconds.isFinite, seconds > 0 else { return "–" }
    let time: String
    switch seconds {
    case ..<1e-6: time = fixed(seconds * 1e9, 0) + " ns"
    case ..<1e-3: time = fixed(seconds * 1e6, 2) + " µs"
    default: time = fixed(seconds * 1e3, 2) + " ms"
    }
    let rate = 1 / seconds
    let throughput: String
    switch rate {
    case 1e6...: throughput = fixed(rate / 1e6, 2) + " M/s"
    case 1e3...: throughput = fixed(rate / 1e3, 1) + " k/s"
    default: throughput = fixed(rate, 0) + " /s"
    }
    return "\(time) (\(throughput))"
}

/// "56.71 MB": a size in bytes, in decimal megabytes (kilobytes below one).
func describe(bytes: Double) -> String {
    guard bytes.isFinite, bytes >= 0 else { return "–" }
    return bytes >= 1e6 ? fixed(bytes / 1e6, 2) + " MB" : fixed(bytes / 1e3, 1) + " kB"
}

/// `value` with `digits` decimals (no Foundation formatting, so the output is the same everywhere).
func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        if digits == 0 { text = String(text[..<dot]) } else if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
    } else if digits > 0 {
        text += "." + String(repeating: "0", count: digits)
    }
    return text
}
