import ArgumentParser
import Foundation
import LarderBenchKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs every comparison of the benchmark issue side by side in one process and prints one table.
/// (The entry point is `Main`, in Main.swift.)
struct LarderBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "larder-bench",
        abstract: "Larder against raw LMDB, JSON and GRDB, interleaved in one run; checks the committed target ratios.",
        discussion: """
            Exits with status 1 when a target of the targets file is missed (unless --report-only). \
            The allocation row needs larder-alloc-probe: build it with `swift build -c release`.
            """)

    @Option(help: "How much work: smoke (CI, seconds), small (default, a few minutes), medium, large.")
    var size: Size = .small

    @Option(help: "Run only matching comparisons: a workload number (3), =id for one comparison (=3-vs-grdb), or text in the id or description (grdb). Repeatable.")
    var filter: [String] = []

    @Option(help: "Rounds per comparison (default: set by --size).")
    var rounds: Int?

    @Option(help: "The targets file (default: targets.json in the Benchmarks package).")
    var targets: String?

    @Flag(help: "Report missed targets without failing (exit status 0).")
    var reportOnly = false

    @Flag(help: "Print one JSON object per row (id, Larder and reference figures, ratio, target, pass) on standard output instead of the table; the run's description goes to standard error.")
    var json = false

    @Flag(help: "List the comparisons and exit.")
    var list = false

    func run() async throws {
        if list {
            for comparison in comparisons.map({ $0.sized(.of(size)) }) {
                print("\(comparison.id): \(comparison.workload): \(comparison.larder) vs \(comparison.reference)")
            }
            return
        }
        #if DEBUG
        FileHandle.standardError.write(Data("larder-bench: this is a debug build; figures mean little. Use `swift run -c release larder-bench`.\n".utf8))
        #endif
        let (targetsFile, targetsPath) = try TargetsFile.load(path: targets)
        var scale = Scale.of(size)
        if let rounds { scale.rounds = max(1, rounds) }
        let selected = comparisons.map { $0.sized(scale) }.filter { $0.matches(filter) }
        guard !selected.isEmpty else { throw ValidationError("no comparison matches \(filter); see --list") }

        let description = machineDescription(scale: scale, targetsPath: targetsPath)
        if json { FileHandle.standardError.write(Data((description + "\n").utf8)) } else { print(description) }
        let fixtures = Fixtures(scale: scale)
        var table = Table()
        var missed: [String] = []
        let started = ContinuousClock.now
        for comparison in selected {
            let clock = ContinuousClock.now
            let target = targetsFile.targets[comparison.id]
            var row = ["\(comparison.workload): \(comparison.larder) vs \(comparison.reference)"]
            var report = RowReport(id: comparison.id, workload: row[0], unit: "seconds per operation", target: target)
            switch comparison.body {
            case .timed(let make):
                let (larder, reference) = try await make(fixtures)
                let measured = try await interleave(larder: larder, reference: reference, rounds: scale.rounds)
                row += [describe(secondsPerOperation: measured.larder), describe(secondsPerOperation: measured.reference)]
                report.larder = measured.larder
                report.reference = measured.reference
                report.ratio = measured.reference / measured.larder
                if let target {
                    let ratio = target.ratio(larder: measured.larder, reference: measured.reference)
                    let met = target.isMet(by: ratio)
                    report.ratio = ratio
                    report.pass = met
                    row += [fixed(ratio, 2) + "×", target.text, met ? "pass" : "MISS"]
                    if !met { missed.append(comparison.id) }
                } else {
                    row += [fixed(measured.reference / measured.larder, 2) + "× faster", "none", "–"]
                }
            case .bytes(let measure):
                report.unit = "bytes"
                let measured = try measure(fixtures)
                row += [describe(bytes: measured.larder), describe(bytes: measured.reference)]
                report.larder = measured.larder
                report.reference = measured.reference
                if let target {
                    let ratio = target.ratio(larder: measured.larder, reference: measured.reference)
                    let met = target.isMet(by: ratio)
                    report.ratio = ratio
                    report.pass = met
                    row += [fixed(ratio, 2) + "×", target.text, met ? "pass" : "MISS"]
                    if !met { missed.append(comparison.id) }
                } else {
                    report.ratio = measured.larder / measured.reference
                    row += [fixed(measured.larder / measured.reference, 2) + "× larger", "none", "–"]
                }
            case .allocations(let count):
                report.unit = "allocations per operation"
                if let counted = try count(scale) {
                    row += [fixed(counted.larder, 2) + " allocs/op", fixed(counted.reference, 2) + " allocs/op"]
                    report.larder = counted.larder
                    report.reference = counted.reference
                    if let target {
                        let met = target.isMet(by: counted.larder)
                        report.ratio = counted.larder
                        report.pass = met
                        row += [fixed(counted.larder, 2), target.text, met ? "pass" : "MISS"]
                        if !met { missed.append(comparison.id) }
                    } else {
                        row += ["–", "none", "–"]
                    }
                } else {
                    row += ["not measured", "not measured", "–", target?.text ?? "none", "skipped (build larder-alloc-probe)"]
                }
            }
            table.add(row)
            if json { print(report.line) }
            FileHandle.standardError.write(Data("  \(comparison.id): done in \(fixed((ContinuousClock.now - clock).seconds, 1)) s\n".utf8))
        }
        // With --json the summary goes to standard error, so standard output is only the rows.
        let say: (String) -> Void = json ? { FileHandle.standardError.write(Data(($0 + "\n").utf8)) } : { print($0) }
        if !json {
            print("")
            print(table.render())
            print("")
            print("Times are medians per operation over \(scale.rounds) interleaved rounds; ratio as the target states it.")
        }
        say("Whole run: \(fixed((ContinuousClock.now - started).seconds, 1)) s.")
        if missed.isEmpty {
            say("All targets met.")
        } else {
            say("Targets missed: \(missed.joined(separator: ", "))\(reportOnly ? " (reported only: --report-only)" : "").")
            if !reportOnly { throw ExitCode(1) }
        }
    }

    private func machineDescription(scale: Scale, targetsPath: String) -> String {
        var lines = ["larder-bench, size \(size.rawValue), \(scale.rounds) rounds; targets from \(targetsPath)"]
        var name = utsname()
        uname(&name)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        lines.append("machine: \(field(name.sysname)) \(field(name.release)) \(field(name.machine)), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(cpuModel())")
        let sqlite = (try? GRDBStore.sqliteVersion()) ?? "?"
        lines.append("libraries: \(LMDBFloor.version); SQLite \(sqlite) (GRDB 7.10.0)")
        let sizes = ArchiverWorkload(count: 1).encodedSizes
        lines.append("values: 16-byte keys; raw values of \(rawValueSize) bytes; Item \(sizes.messagePack) bytes as MessagePack, \(sizes.json) as JSON")
        return lines.joined(separator: "\n")
    }

    private func cpuModel() -> String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
              let colon = line.firstIndex(of: ":") else { return "CPU model unknown" }
        return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
}
