import Foundation
import Testing

/// The stand-in for a static-Linux (musl) build, which this machine cannot run (no Static Linux
/// SDK): every Swift file of the package that imports the C library does so for each of the
/// three libcs Swift ships, Glibc, Musl and Darwin, in one `#if canImport` chain.
@Suite("Platform imports")
struct PlatformImportTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let folders = ["Sources", "Tests", "Benchmarks", "Fuzz"]

    /// The Swift files under the package's source folders (build products left out), with their lines.
    static func swiftFiles() throws -> [(path: String, lines: [String])] {
        var files: [(String, [String])] = []
        for folder in folders {
            let base = root.appendingPathComponent(folder)
            guard let enumerator = FileManager.default.enumerator(atPath: base.path) else { continue }
            while let relative = enumerator.nextObject() as? String {
                guard relative.hasSuffix(".swift"), !relative.contains(".build/") else { continue }
                let text = try String(contentsOf: base.appendingPathComponent(relative), encoding: .utf8)
                files.append(("\(folder)/\(relative)", text.split(separator: "\n", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }))
            }
        }
        return files
    }

    /// The problems of one file: a libc imported outside its own `canImport` branch, or a Glibc
    /// branch whose chain lacks a Musl branch importing Musl.
    static func problems(in lines: [String]) -> [String] {
        var problems: [String] = []
        for (number, line) in lines.enumerated() {
            for libc in ["Glibc", "Musl", "Darwin"] where line.hasSuffix("import \(libc)") && !line.hasPrefix("//") {
                let previous = number > 0 ? lines[number - 1] : ""
                if !(previous.hasPrefix("#if canImport(\(libc))") || previous.hasPrefix("#elseif canImport(\(libc))")) {
                    problems.append("line \(number + 1): `import \(libc)` is not the only line of a canImport(\(libc)) branch")
                }
            }
            guard line.hasPrefix("#if canImport(Glibc)") || line.hasPrefix("#elseif canImport(Glibc)") else { continue }
            // The rest of the chain: up to its #endif.
            let chain = lines[(number + 1)...].prefix { !$0.hasPrefix("#endif") }
            guard let musl = chain.firstIndex(where: { $0.hasPrefix("#elseif canImport(Musl)") }),
                  musl + 1 < lines.count, lines[musl + 1] == "import Musl" else {
                problems.append("line \(number + 1): the canImport(Glibc) chain has no `#elseif canImport(Musl)` / `import Musl` branch")
                continue
            }
        }
        return problems
    }

    @Test func everyGlibcImportHasAMuslBranch() throws {
        let files = try Self.swiftFiles()
        let importing = files.filter { $0.lines.contains("import Glibc") }
        #expect(importing.count >= 40, "the scan found only \(importing.count) files that import Glibc: is the root right?")
        let problems = importing.flatMap { file in Self.problems(in: file.lines).map { "\(file.path) \($0)" } }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func theCheckCatchesAMissingMuslBranch() {
        let glibcOnly = ["#if canImport(Glibc)", "import Glibc", "#elseif canImport(Darwin)", "import Darwin", "#endif"]
        #expect(Self.problems(in: glibcOnly).count == 1)
        let bare = ["import Glibc"]
        #expect(Self.problems(in: bare).count == 1)
        let complete = ["#if canImport(Glibc)", "import Glibc", "#elseif canImport(Musl)", "import Musl", "#elseif canImport(Darwin)", "import Darwin", "#endif"]
        #expect(Self.problems(in: complete).isEmpty)
    }
}
