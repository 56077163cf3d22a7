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

/// A fresh store in a temporary directory; `body` runs with it, and afterwards the test checks
/// that the store closed (no environment left open by the test).
func withStore<R>(
    _ configuration: Database.Configuration = Database.Configuration(),
    _ body: (Database, TemporaryDirectory) throws -> R
) throws -> R {
    let directory = TemporaryDirectory()
    let result: R
    do {
        let db = try Database(path: directory.file("store"), configuration: configuration)
        result = try body(db, directory)
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
