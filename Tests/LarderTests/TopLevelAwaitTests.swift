import Foundation
import Testing
@testable import Larder

/// Which `write` overload `try await db.write { … }` calls depends on where it is written: in an
/// `async` function the asynchronous one (on the writer thread, group-committed); at the top
/// level of `main.swift` or a script the synchronous one, because Swift type-checks top-level
/// code as a synchronous context even when it awaits (the compiler then warns "no 'async'
/// operations occur within 'await' expression"). README.md and Transactions.md say so; this test
/// type-checks both forms against the built `Larder` module and fails if a compiler resolves
/// them differently, so that the documentation is revisited.
@Suite("Top-level await")
struct TopLevelAwaitTests {
    static let warning = "no 'async' operations occur within 'await' expression"

    /// The directory holding the built `Larder.swiftmodule`, beside the test binary.
    static let modules: String? = {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("Modules").path
            if FileManager.default.fileExists(atPath: candidate + "/Larder.swiftmodule") { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    static let compiler = ProcessTestSupport.tool("swiftc")

    /// The compiler's diagnostics for `source` as a `main.swift` that imports Larder (expected
    /// to type-check).
    static func typeCheck(_ source: String) throws -> String {
        let directory = TemporaryDirectory()
        let file = directory.file("main.swift")
        try Data(source.utf8).write(to: URL(fileURLWithPath: file))
        let moduleMap = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/CLMDB/module.modulemap").path
        let run = try ProcessTestSupport.run(try #require(Self.compiler), [
            "-typecheck", "-swift-version", "6", "-I", try #require(Self.modules),
            "-Xcc", "-fmodule-map-file=" + moduleMap, "-module-cache-path", directory.file("cache"), file,
        ])
        #expect(run.status == 0, "\(run.standardError)")
        return run.standardError
    }

    @Test(.enabled(if: compiler != nil && modules != nil, "needs swiftc and the built Larder module"))
    func topLevelAwaitCallsTheSynchronousWriteAndAnAsyncFunctionTheAsynchronousOne() throws {
        let topLevel = try Self.typeCheck("""
            import Larder
            let db = try Database(path: CommandLine.arguments[1])
            let count = try await db.write { txn in
                try txn.setObject(1, forKey: "k", inCollection: "c")
                return try txn.numberOfKeys(inCollection: "c")
            }
            print(count)
            """)
        #expect(topLevel.contains("main.swift:3:") && topLevel.contains(Self.warning), "\(topLevel)")
        let inFunction = try Self.typeCheck("""
            import Larder
            func run(_ db: Database) async throws -> Int {
                try await db.write { txn in
                    try txn.setObject(1, forKey: "k", inCollection: "c")
                    return try txn.numberOfKeys(inCollection: "c")
                }
            }
            print(try await run(try Database(path: CommandLine.arguments[1])))
            """)
        #expect(!inFunction.contains(Self.warning), "\(inFunction)")
    }
}
