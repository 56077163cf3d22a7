import Foundation
import Testing

/// The DocC catalog's articles (Sources/Larder/Larder.docc/Articles) are generated from the guides
/// in Documentation/ by Scripts/sync-docc, so the site and the repository never tell two stories:
/// this fails when an article differs from what the script would write, is missing, or has no
/// guide. The fix is always to run `Scripts/sync-docc` (and never to edit an article by hand).
@Suite("DocC articles")
struct DocCArticleSyncTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func syncCheck() throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("Scripts/sync-docc").path, "--check"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test func everyArticleIsItsGuideAsScriptsSyncDoccWritesIt() throws {
        let check = try Self.syncCheck()
        #expect(check.status == 0, "\(check.output)")
    }

    @Test func theArticlesAreTheGuidesWithDocCLinks() throws {
        let articles = Self.root.appendingPathComponent("Sources/Larder/Larder.docc/Articles")
        let transactions = try String(contentsOf: articles.appendingPathComponent("CommandLine.md"), encoding: .utf8)
        let guide = try String(contentsOf: Self.root.appendingPathComponent("Documentation/CommandLine.md"), encoding: .utf8)
        #expect(guide.contains("(Transactions.md#one-store-one-lock-file)"))
        #expect(transactions.contains("(<doc:Transactions#One-store-one-lock-file>)"))
        #expect(!transactions.contains(".md#") && !transactions.contains(".md)"))
        // The guide named like a type gets another article name.
        #expect(FileManager.default.fileExists(atPath: articles.appendingPathComponent("DurabilityAndCrashSafety.md").path))
        #expect(!FileManager.default.fileExists(atPath: articles.appendingPathComponent("Durability.md").path))
    }
}
