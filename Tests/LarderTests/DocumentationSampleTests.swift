import Foundation
import Testing

/// Every Swift sample in README.md, Documentation/*.md and the DocC catalog's articles is
/// compiled and run by the tests (STYLE.md, point 11).
///
/// A sample is a fenced block tagged `swift`. Each must appear, verbatim up to whitespace, in the
/// Swift files of `Tests/LarderTests/Samples`, which are part of this test target: there each
/// sample sits inside a test, with what it needs around it, and the test checks what it did.
/// Its `import` lines may instead be at the top of that file. A sample that is a package
/// manifest (it starts with `// swift-tools-version`) cannot compile here; it is loaded by
/// `swift package dump-package` instead. Blocks that are not Swift say what they are
/// (`sh`, `text`, …): an untagged block is an error, so nothing escapes the check by accident.
@Suite("Documentation samples")
struct DocumentationSampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A fenced code block of a document.
    struct Block {
        let document: String
        let line: Int
        let language: String
        let code: String

        var isManifest: Bool { code.hasPrefix("// swift-tools-version") }
        var location: String { "\(document):\(line)" }
    }

    /// The documents whose samples are checked, relative to the package root.
    static func documents() throws -> [String] {
        var documents = ["README.md"]
        for folder in ["Documentation", "Sources/Larder/Larder.docc"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
            documents += names.filter { $0.hasSuffix(".md") }.sorted().map { folder + "/" + $0 }
        }
        return documents
    }

    /// The fenced blocks of `text` (a line that starts with three backticks opens and closes one).
    static func blocks(in text: String, document: String) -> [Block] {
        var blocks: [Block] = []
        var open: (line: Int, language: String, lines: [String])?
        for (number, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                if let current = open {
                    blocks.append(Block(document: document, line: current.line, language: current.language, code: current.lines.joined(separator: "\n")))
                    open = nil
                } else {
                    open = (number + 1, String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces), [])
                }
            } else {
                open?.lines.append(line)
            }
        }
        return blocks
    }

    static func allBlocks() throws -> [Block] {
        try documents().flatMap { document in
            blocks(in: try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8), document: document)
        }
    }

    /// `text` with every run of whitespace made one space.
    static func normalized(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// The sample files: name and normalized text. Samples that need the adapters' packages are
    /// compiled by the adapters' test target instead.
    static func sampleFiles() throws -> [(name: String, text: String)] {
        try ["Tests/LarderTests/Samples", "Tests/LarderAdaptersTests/Samples", "Tests/LarderPostgresTests/Samples"].flatMap { path in
            let folder = root.appendingPathComponent(path)
            return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted().map { name in
                (name, normalized(try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)))
            }
        }
    }

    @Test func everyCodeBlockSaysWhatItIs() throws {
        let untagged = try Self.allBlocks().filter { $0.language.isEmpty }.map(\.location)
        #expect(untagged.isEmpty, "code blocks without a language (use swift, sh, text…): \(untagged)")
    }

    @Test func everySwiftSampleIsInTheSampleTests() throws {
        let samples = try Self.allBlocks().filter { $0.language == "swift" && !$0.isManifest }
        #expect(samples.count >= 20, "found only \(samples.count) Swift samples")
        let files = try Self.sampleFiles()
        var missing: [String] = []
        for sample in samples {
            let lines = sample.code.components(separatedBy: "\n")
            let imports = lines.filter { $0.hasPrefix("import ") }.map(Self.normalized)
            let body = Self.normalized(lines.filter { !$0.hasPrefix("import ") }.joined(separator: "\n"))
            let found = files.contains { file in
                file.text.contains(body) && imports.allSatisfy { file.text.contains($0) }
            }
            if !found { missing.append("\(sample.location)\n\(sample.code)") }
        }
        #expect(missing.isEmpty, "\(missing.count) of \(samples.count) Swift samples are not in Tests/LarderTests/Samples (copy each into a test there):\n\n\(missing.joined(separator: "\n\n"))")
    }

    @Test func everyManifestSampleLoads() throws {
        let manifests = try Self.allBlocks().filter { $0.language == "swift" && $0.isManifest }
        #expect(!manifests.isEmpty)
        for manifest in manifests {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("larder-manifest-" + UUID().uuidString)
            defer { try? FileManager.default.removeItem(at: directory) }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try manifest.code.write(to: directory.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)

            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["swift", "package", "--package-path", directory.path, "dump-package"]
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let json = output.fileHandleForReading.readDataToEndOfFile()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(manifest.location): swift package dump-package failed: \(message)")
            let dumped = String(decoding: json, as: UTF8.self)
            #expect(dumped.contains("\"Larder\""), "\(manifest.location): the manifest does not use the Larder product")
        }
    }

    /// The extraction and matching rules themselves.
    @Test func blocksAreFoundAndMatchedUpToWhitespace() {
        let text = "Intro\n```swift\nlet a = 1\n  let b = a\n```\n\n```sh\nswift run\n```\n"
        let blocks = Self.blocks(in: text, document: "doc.md")
        #expect(blocks.map(\.language) == ["swift", "sh"])
        #expect(blocks.first?.code == "let a = 1\n  let b = a")
        #expect(blocks.first?.line == 2)
        #expect(Self.normalized("    let a = 1\n        let b = a\n").contains(Self.normalized(blocks[0].code)))
    }
}
