import Foundation
import Testing
@testable import Larder

/// A temporary directory for one test, removed when the test ends.
final class TemporaryDirectory {
    let path: String

    init() {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/larder-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the directory (not created).
    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A fresh store in a temporary directory; `body` runs with it, and afterwards the fixture checks
/// that the store closed — no `Database` of this process still has it open, so nothing the test
/// started (a task, an observer, a leaked reference) keeps its environment — and that it reopens
/// with a consistent structure (``Database/checkStructure()``). A test that damages the store on
/// purpose says so with `leavesDamage`, and only the first check is made.
func withStore<R>(
    _ configuration: Database.Configuration = Database.Configuration(),
    leavesDamage: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (Database, TemporaryDirectory) throws -> R
) throws -> R {
    let directory = TemporaryDirectory()
    let path = directory.file("store")
    let result: R
    do {
        let db = try Database(path: path, configuration: configuration)
        result = try body(db, directory)
    }
    // A test that threw has already failed; the checks below are for those that returned.
    let stillOpen = EnvironmentRegistry.openCount(path: path)
    #expect(stillOpen == 0, "the store is still open \(stillOpen) time(s) after the test: something keeps its Database alive", sourceLocation: sourceLocation)
    if stillOpen == 0, !leavesDamage, FileIdentity.exists(path) {
        let report = try Database(path: path, configuration: configuration).checkStructure()
        #expect(report.isConsistent, "the store's structure after the test: \(report.problems)", sourceLocation: sourceLocation)
    }
    return result
}

struct Product: Codable, Persistable, Equatable, Sendable {
    static let collection = "products"
    var id: String
    var name: String
    var price: Double
    var tags: [String] = []
}

struct ProductInfo: Codable, Equatable, Sendable {
    var stock: Int
    var updated: Date
}

/// A small seeded generator, so that randomized tests can be replayed from the seed they print.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// How many times larger the randomized model tests run: 10 with `LARDER_FULL=1` (the full
/// reliability run), else 1 (CI).
let modelTestScale = ProcessInfo.processInfo.environment["LARDER_FULL"] == nil ? 1 : 10
