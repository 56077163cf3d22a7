import ArgumentParser
import Foundation

/// A target ratio from the committed targets file (`Benchmarks/targets.json`).
struct Target: Decodable {
    enum Kind: String, Decodable {
        /// Larder must be at least `limit` times faster: reference time / Larder time ≥ limit.
        case speedup
        /// Larder may take at most `limit` times the reference's time: Larder / reference ≤ limit.
        case slowdown
        /// At most `limit` allocations per operation.
        case allocations
        /// Larder's bytes may be at most `limit` times the reference's: Larder / reference ≤ limit
        /// (a size, measured once, not a time).
        case size
    }

    var kind: Kind
    var limit: Double
    /// What the issue asks for, in words.
    var goal: String

    /// The ratio this target judges, from the two medians (seconds per operation).
    func ratio(larder: Double, reference: Double) -> Double {
        switch kind {
        case .speedup: reference / larder
        case .slowdown, .size: larder / reference
        case .allocations: larder
        }
    }

    func isMet(by ratio: Double) -> Bool {
        switch kind {
        case .speedup: ratio >= limit
        case .slowdown, .allocations, .size: ratio <= limit
        }
    }

    var text: String {
        switch kind {
        case .speedup: "≥ \(format(limit))× faster"
        case .slowdown: "≤ \(format(limit))× time"
        case .allocations: "≤ \(format(limit)) allocs"
        case .size: "≤ \(format(limit))× bytes"
        }
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

struct TargetsFile: Decodable {
    var targets: [String: Target]

    /// Reads the file at `path`, or, without one, `targets.json` in the package directory (found
    /// from this source file's location at build time, then from the working directory).
    static func load(path: String?) throws -> (TargetsFile, String) {
        var candidates: [String] = []
        if let path { candidates.append(path) } else {
            let packageDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent()
            candidates.append(packageDirectory.appendingPathComponent("targets.json").path)
            candidates.append(FileManager.default.currentDirectoryPath + "/targets.json")
        }
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate) {
            let data = try Data(contentsOf: URL(fileURLWithPath: candidate))
            return (try JSONDecoder().decode(TargetsFile.self, from: data), candidate)
        }
        throw ValidationError("no targets file at \(candidates.joined(separator: " or ")); pass --targets PATH")
    }
}
