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
