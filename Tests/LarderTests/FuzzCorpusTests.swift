import Foundation
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
}
