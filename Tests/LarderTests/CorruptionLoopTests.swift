import Foundation
import Testing
@testable import Larder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Seeded random damage to copies of a sample store, and every reading command of the tool run
/// on each copy as a child process: none may die by a signal, `check` exits 0 or 4, the others
/// exit 0 or with one clear `larder:` line. The library itself runs on each copy too
/// (`larder-test-helper read-all`): with the open's verification (`pages` and `full`) it must
/// never die by a signal; with none its figures are printed.
///
/// Quick mode: 30 copies. `LARDER_FULL=1`: 1,000 copies (about 4 minutes on two cores).
/// `LARDER_CORRUPTION_SEED` replays a run's damage (the store's commit times differ),
/// `LARDER_CORRUPTION_COPIES` sets the number of copies, and `LARDER_CORRUPTION_KEEP=<directory>`
/// keeps the data files of the copies on which the unverified library died.
@Suite("Corruption loop", .serialized)
struct CorruptionLoopTests {
    enum Damage: String, CaseIterable {
        case zeroedPage, byteFlips, tornPage, truncatedAtPage, truncatedMidPage, extendedWithZeros,
             extendedWithGarbage, metaPage, shortKey, valueSizePastEnd
    }

    static var copies: Int {
        let environment = ProcessInfo.processInfo.environment
        return environment["LARDER_CORRUPTION_COPIES"].flatMap { Int($0) } ?? (environment["LARDER_FULL"] == nil ? 30 : 1_000)
    }
    /// Where to keep the copies that killed a process (the tool or the library), to replay them
    /// by hand.
    static var keep: String? { ProcessInfo.processInfo.environment["LARDER_CORRUPTION_KEEP"] }

    /// Applies `damage` to `bytes` (the current file; `older` is the file one commit earlier).
    /// Page damage mostly lands on `reached` (the pages the current trees use), sometimes on
    /// any page (free pages and old versions, which must not matter).
    static func damage(_ damage: Damage, _ bytes: inout [UInt8], older: [UInt8], reached: [Int], random: inout SplitMix) {
        let pageSize = Corruption.pageSize
        let pages = bytes.count / pageSize
        func randomPage() -> Int {
            Int.random(in: 0..<5, using: &random) == 0 ? Int.random(in: 2..<pages, using: &random) : reached.randomElement(using: &random)!
        }
        func leafPages(_ prefix: String) -> [Int] {
            let all = Corruption.leafPages(bytes, keyPrefix: Array(prefix.utf8))
            let current = all.filter(Set(reached).contains)
            return Int.random(in: 0..<5, using: &random) == 0 || current.isEmpty ? all : current
        }
        switch damage {
        case .zeroedPage:
            let page = randomPage()
            bytes.replaceSubrange((page * pageSize)..<((page + 1) * pageSize), with: repeatElement(0, count: pageSize))
        case .byteFlips:
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                bytes[position] ^= UInt8.random(in: 1...255, using: &random)
            }
        case .tornPage:
            let page = randomPage()
            let half = Bool.random(using: &random) ? 0 : pageSize / 2
            let start = page * pageSize + half
            for offset in start..<(start + pageSize / 2) { bytes[offset] = offset < older.count && Bool.random(using: &random) ? older[offset] : 0 }
        case .truncatedAtPage:
            bytes.removeLast(Int.random(in: 1...max(1, pages - 1), using: &random) * pageSize)
        case .truncatedMidPage:
            bytes.removeLast(Int.random(in: 1..<(bytes.count - 1), using: &random))
        case .extendedWithZeros:
            bytes += [UInt8](repeating: 0, count: Int.random(in: 1...(3 * pageSize), using: &random))
        case .extendedWithGarbage:
            bytes += (0..<Int.random(in: 1...(3 * pageSize), using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        case .metaPage:
            let page = Int.random(in: 0...1, using: &random)
            let offset = page * pageSize + Int.random(in: 0..<PageLayout.Meta.size, using: &random)
            bytes[offset] ^= UInt8.random(in: 1...255, using: &random)
        case .shortKey:
            let leaves = leafPages("items\u{0}")
            guard let page = leaves.randomElement(using: &random),
                  let node = Corruption.nodes(bytes, page: page).randomElement(using: &random) else { return }
            Corruption.setUInt16(&bytes, node.offset + 6, Int.random(in: 0...5, using: &random))
        case .valueSizePastEnd:
            let leaves = leafPages((Bool.random(using: &random) ? "big" : "items") + "\u{0}")
            guard let page = leaves.randomElement(using: &random),
                  let node = Corruption.nodes(bytes, page: page).randomElement(using: &random) else { return }
            let size = bytes.count + Int.random(in: 1...(64 * pageSize), using: &random)
            Corruption.setUInt16(&bytes, node.offset, size & 0xFFFF)
            Corruption.setUInt16(&bytes, node.offset + 2, size >> 16)
        }
    }

    /// What one command did across the copies.
    struct Tally {
        var statuses: [Int32: Int] = [:]
        var signals: [Int32: Int] = [:]
    }

    @Test func damagedCopiesNeverCrashTheTool() throws {
        let seed = ProcessInfo.processInfo.environment["LARDER_CORRUPTION_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        print("corruption loop: seed \(seed), \(Self.copies) copies")
        var random = SplitMix(seed: seed)
        let directory = TemporaryDirectory()
        let store = directory.file("store")
        let dataFile = try Corruption.makeStore(at: store)
        let older = try Corruption.read(dataFile)
        do {
            let db = try Database(path: store)
            try db.write { txn in
                for key in Corruption.itemKeys.suffix(40) { try txn.setObject([UInt8](repeating: 7, count: 60), forKey: key, inCollection: "items") }
                try txn.removeObject(forKey: "b0", inCollection: "big")
            }
        }
        let current = try Corruption.read(dataFile)
        let reached = try #require(PageVerifier.verify(dataFile: dataFile, keepingReachedPages: true)).reachedPages.map(Int.init).filter { $0 >= 2 }.sorted()

        let commands: [(name: String, arguments: (String) -> [String])] = [
            ("check", { ["check", $0] }), ("info", { ["info", $0] }), ("keys", { ["keys", $0, "items"] }),
            ("get", { ["get", $0, "items", "k150"] }), ("export", { ["export", $0] }),
        ]
        var tallies: [String: Tally] = [:]
        var library = Tally()
        var verifiedTallies: [String: Tally] = [:]
        var libraryCrashes: [String: Int] = [:]
        var perKind: [Damage: Int] = [:]
        var undetected: [Damage: Int] = [:]
        for copy in 0..<Self.copies {
            let kind = Damage.allCases[copy % Damage.allCases.count]
            var bytes = current
            Self.damage(kind, &bytes, older: older, reached: reached, random: &random)
            perKind[kind, default: 0] += 1
            let path = directory.file("copy-\(copy)")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            try Corruption.write(bytes, to: path + "/data.mdb")
            for command in commands {
                let run = try Corruption.larder(command.arguments(path))
                let context = "copy \(copy) (\(kind), seed \(seed)): larder \(command.name): \(run)"
                if let signal = run.signal {
                    if let keep = Self.keep {
                        try? FileManager.default.copyItem(atPath: path + "/data.mdb", toPath: keep + "/copy-\(copy)-\(kind)-\(command.name).mdb")
                    }
                    tallies[command.name, default: Tally()].signals[signal, default: 0] += 1
                    Issue.record("died by signal \(signal): \(context)")
                    continue
                }
                tallies[command.name, default: Tally()].statuses[run.status, default: 0] += 1
                if command.name == "check" {
                    // A file cut inside the first 20 bytes no longer holds LMDB's magic number:
                    // nothing says it was a store, and "not a store" (status 3) is the answer.
                    let unrecognizable = bytes.count < 20 && run.status == CLI.Status.badInput
                    #expect(run.status == 0 || run.status == CLI.Status.checkFailed || unrecognizable, "\(context)")
                    if run.status == 0 { undetected[kind, default: 0] += 1 }
                } else if run.status != 0 {
                    let lines = run.standardError.split(separator: "\n")
                    #expect(lines.count == 1 && lines[0].hasPrefix("larder: "), "\(context)")
                }
            }
            // The library with the open's verification: promised never to die, whatever the damage.
            for level in ["pages", "full"] {
                let verified = try Corruption.helper(["read-all", path, level])
                if let signal = verified.signal {
                    if let keep = Self.keep {
                        try? FileManager.default.copyItem(atPath: path + "/data.mdb", toPath: keep + "/copy-\(copy)-\(kind)-verified-\(level).mdb")
                    }
                    Issue.record("the library with verification \(level) died by signal \(signal): copy \(copy) (\(kind), seed \(seed)): \(verified.standardError.prefix(300))")
                    verifiedTallies[level, default: Tally()].signals[signal, default: 0] += 1
                } else {
                    verifiedTallies[level, default: Tally()].statuses[verified.status, default: 0] += 1
                    #expect(verified.status == 0 || verified.status == 3, "copy \(copy) (\(kind), seed \(seed)): read-all \(level): \(verified.standardError.prefix(300))")
                }
            }
            let read = try Corruption.helper(["read-all", path])
            if let signal = read.signal {
                library.signals[signal, default: 0] += 1
                let line = read.standardError.split(separator: "\n").first { $0.contains("larder:") || $0.contains("Fatal") || $0.contains("Crash") } ?? ""
                let what = line.contains("larder:") ? String(line.split(separator: "(").dropFirst().first ?? "") : String(line.prefix(120))
                libraryCrashes["signal \(signal) (\(kind)\(signal == 6 ? "" : ", copy \(copy)")): \(what)", default: 0] += 1
            } else {
                library.statuses[read.status, default: 0] += 1
            }
            if let keep = Self.keep, read.signal != nil {
                try? FileManager.default.copyItem(atPath: path + "/data.mdb", toPath: keep + "/copy-\(copy)-\(kind).mdb")
            }
            try? FileManager.default.removeItem(atPath: path)
        }
        func describe(_ tally: Tally) -> String {
            let statuses = tally.statuses.sorted { $0.key < $1.key }.map { "status \($0.key): \($0.value)" }
            let signals = tally.signals.sorted { $0.key < $1.key }.map { "signal \($0.key): \($0.value)" }
            return (statuses + signals).joined(separator: ", ")
        }
        print("corruption loop: copies per kind: " + Damage.allCases.map { "\($0.rawValue) \(perKind[$0] ?? 0)" }.joined(separator: ", "))
        print("corruption loop: check found nothing in: " + Damage.allCases.map { "\($0.rawValue) \(undetected[$0] ?? 0)" }.joined(separator: ", "))
        for command in commands { print("corruption loop: larder \(command.name): \(describe(tallies[command.name] ?? Tally()))") }
        print("corruption loop: library without verification (read-all): \(describe(library))")
        for level in ["pages", "full"] { print("corruption loop: library with verification \(level) (read-all \(level)): \(describe(verifiedTallies[level] ?? Tally()))") }
        for (line, count) in libraryCrashes.sorted(by: { $0.value > $1.value }) { print("corruption loop: library crash ×\(count): \(line)") }
    }
}
