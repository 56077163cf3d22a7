import Foundation
import Larder
import Testing

/// The fuzzing corpus (Fuzz/corpus, and inputs that once broke a decoder, Fuzz/regressions)
/// replayed through the fuzz targets by `larder-fuzz` built without libFuzzer: every input must
/// be handled without a crash. See Documentation/Reliability.md for the fuzzing runs themselves.
@Suite("Fuzz corpus")
struct FuzzCorpusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyCorpusInputIsHandled() throws {
        let replayer = try #require(ProcessTestSupport.builtExecutable("larder-fuzz"), "larder-fuzz was not built beside the tests")
        let directories = ["Fuzz/corpus", "Fuzz/regressions"].map { Self.root.appendingPathComponent($0).path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        let inputs = try directories.reduce(0) { $0 + (try FileManager.default.contentsOfDirectory(atPath: $1).count) }
        #expect(inputs >= 15)
        let run = try ProcessTestSupport.run(replayer, directories)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput == "replayed \(inputs) inputs\n")
    }

    /// The seeds of the decoders of stored records are real records: each decodes without an
    /// error (a seed the decoder refuses would start the fuzzer from nothing).
    @Test func theRecordSeedsDecode() throws {
        let seeds: [(String, (UnsafeRawBufferPointer) throws -> Void)] = [
            ("spatial-leaf", DecoderEntryPoints.spatialNode), ("spatial-branch", DecoderEntryPoints.spatialNode),
            ("relationship-edge", DecoderEntryPoints.relationshipEdge), ("replicated-commit", DecoderEntryPoints.replicatedCommit),
            ("fulltext-document", DecoderEntryPoints.fullTextDocument), ("extension-record", DecoderEntryPoints.extensionRecord),
            ("changelog-entry", DecoderEntryPoints.changeLogEntry), ("undo-step", DecoderEntryPoints.undoStep),
        ]
        for (name, decode) in seeds {
            let bytes = try Data(contentsOf: Self.root.appendingPathComponent("Fuzz/corpus/\(name)"))
            #expect(throws: Never.self, "seed \(name)") { try bytes.dropFirst().withUnsafeBytes { try decode($0) } }
        }
    }

    /// Every decoder of bytes from disk or another machine is fuzzed: each type of the library
    /// that declares one (`init(decoding:)`, `init(logBytes:)`, `static func decode(_:…)`) is named
    /// by the fuzz targets or the decoders' entry points, or is called from the file of a type
    /// that is. A decoder added without its fuzz target fails here.
    @Test func everyDecoderOfStoredBytesIsFuzzed() throws {
        let library = Self.root.appendingPathComponent("Sources/Larder")
        let enumerator = try #require(FileManager.default.enumerator(atPath: library.path))
        var texts: [String: String] = [:]  // type (its files' name) -> their text
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            // The type a file is about: `Changeset+LogReading.swift` is Changeset's.
            let name = String(relative.split(separator: "/").last!.dropLast(".swift".count).prefix { $0 != "+" })
            texts[name, default: ""] += try String(contentsOf: library.appendingPathComponent(relative), encoding: .utf8)
        }
        let declaration = try Regex(#"(?m)^\s*(?:package |public |internal )?(?:init\((?:decoding|logBytes) |static func decode\()"#)
        let decoders = texts.filter { $0.value.contains(declaration) }.map(\.key)
        #expect(decoders.count >= 8, "found only \(decoders.sorted())")
        var covered = try [Self.root.appendingPathComponent("Sources/larder-fuzz/FuzzTargets.swift"),
                           library.appendingPathComponent("Maintenance/DecoderEntryPoints.swift")]
            .map { try String(contentsOf: $0, encoding: .utf8) }
        var missing = Set(decoders)
        var progress = true
        while progress {
            progress = false
            for name in missing where covered.contains(where: { $0.range(of: "\\b\(name)\\b", options: .regularExpression) != nil }) {
                missing.remove(name)
                covered.append(texts[name] ?? "")
                progress = true
            }
        }
        #expect(missing.isEmpty, "decoders no fuzz target reaches: \(missing.sorted())")
    }
}
