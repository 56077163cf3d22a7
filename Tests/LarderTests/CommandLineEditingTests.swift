import Foundation
import Testing
@testable import Larder

/// `put` and `delete`, run on real stores and read back through the library.
@Suite("Command-line tool: editing")
struct CommandLineEditingTests {
    struct Item: Codable, Equatable {
        var name: String
        var count: Int
        var price: Double
        var tags: [String]
        var added: Date?
    }

    private func makeStore(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { txn in
            try txn.setObject(Item(name: "old", count: 1, price: 1, tags: [], added: nil), forKey: "a", inCollection: "items", metadata: ["note": "keep"])
            try txn.setObject(Item(name: "b", count: 2, price: 2, tags: [], added: nil), forKey: "b", inCollection: "items")
        }
        return path
    }

    @Test func putStoresJSONAsMessagePackThatCodableTypesRead() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        try CLI.succeed(["put", path, "items", "c", #"{"name": "cup", "count": 3, "price": 2.0, "tags": ["kitchen", "blue"], "added": {"$timestamp": "2024-02-29T12:00:00.25Z"}}"#])
        let db = try Database(path: path)
        let item = try db.read { try $0.object(forKey: "c", inCollection: "items", as: Item.self) }
        #expect(item == Item(name: "cup", count: 3, price: 2.0, tags: ["kitchen", "blue"], added: Date(timeIntervalSince1970: 1_709_208_000.25)))
        let stored = try db.read { try $0.storedObject(forKey: "c", inCollection: "items") }
        #expect(stored?.format == .messagePack)
        // Exactly the bytes Larder's own encoder writes for the same value.
        #expect(stored?.bytes == (try MessagePackEncoder().encode(item)))
        #expect(try CLI.succeed(["get", path, "items", "c"]) == #"{"name":"cup","count":3,"price":2.0,"tags":["kitchen","blue"],"added":"2024-02-29T12:00:00.25Z"}"# + "\n")
    }

    @Test func putReadsStandardInputAndKeepsIntegersApartFromDoubles() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        try CLI.succeed(["put", path, "numbers", "n"], input: #"[1, -1, 1.0, 1e3, 255, -129, 4294967296, 18446744073709551615, -9223372036854775808, 0.1]"# + "\n")
        try CLI.succeed(["put", path, "numbers", "m", "-"], input: "\"from stdin\"")
        let db = try Database(path: path)
        let bytes = try #require(try db.read { try $0.storedObject(forKey: "n", inCollection: "numbers") }?.bytes)
        let value = try MessagePackParserProbe.elements(bytes)
        #expect(value == ["01", "ff", "cb3ff0000000000000", "cb408f400000000000", "ccff", "d1ff7f", "cf0000000100000000", "cfffffffffffffffff", "d38000000000000000", "cb3fb999999999999a"])
        #expect(try db.read { try $0.object(forKey: "m", inCollection: "numbers", as: String.self) } == "from stdin")
        try CLI.succeed(["put", path, "numbers", "neg", "--", "-5"])
        #expect(try db.read { try $0.object(forKey: "neg", inCollection: "numbers", as: Int.self) } == -5)
    }

    @Test func putReplacesMetadataAsTheLibraryDoesUnlessAsked() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let db = try Database(path: path)
        let item = #"{"name": "new", "count": 1, "price": 1.5, "tags": []}"#
        try CLI.succeed(["put", path, "items", "a", item, "--keep-metadata"])
        #expect(try db.read { try $0.metadata(forKey: "a", inCollection: "items", as: [String: String].self) } == ["note": "keep"])
        #expect(try db.read { try $0.object(forKey: "a", inCollection: "items", as: Item.self) }?.name == "new")
        try CLI.succeed(["put", path, "items", "a", item, "--metadata", #"{"note": "changed"}"#])
        #expect(try db.read { try $0.metadata(forKey: "a", inCollection: "items", as: [String: String].self) } == ["note": "changed"])
        try CLI.succeed(["put", path, "items", "a", item])
        #expect(try db.read { try $0.metadata(forKey: "a", inCollection: "items", as: [String: String].self) } == nil)
        try CLI.succeed(["put", path, "items", "fresh", item, "--keep-metadata"])  // nothing to keep: stored anyway
        #expect(try db.read { try $0.numberOfKeys(inCollection: "items") } == 3)
    }

    @Test func putRefusesBadInputAndChangesNothing() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let db = try Database(path: path)
        let before = try CLI.storedBytes(db)
        let message = try CLI.fail(["put", path, "items", "a", #"{"name": "x",}"#], status: CLI.Status.badInput)
        #expect(message.hasPrefix("larder: the value is not JSON: expected a member name in quotes at byte"))
        try CLI.fail(["put", path, "items", "a", "{}", "--metadata", "nope"], status: CLI.Status.badInput)
        try CLI.fail(["put", path, "items", "a"], status: CLI.Status.badInput, input: "")
        try CLI.fail(["put", path, "items", "a", "[1, 2"], status: CLI.Status.badInput)
        try CLI.fail(["put", path, "items", "a", "\"\\ud800\""], status: CLI.Status.badInput)
        try CLI.fail(["put", path, "items", "a", "1e999"], status: CLI.Status.badInput)
        try CLI.fail(["put", path, "items", "", "1"], status: CLI.Status.badInput)
        try CLI.fail(["put", path, "items", String(repeating: "k", count: 511), "1"], status: CLI.Status.badInput)
        try CLI.fail(["put", path, "items", "a", "1", "--metadata", "2", "--keep-metadata"], status: CLI.Status.usage)
        #expect(try CLI.storedBytes(db) == before)
    }

    @Test func deleteRemovesObjectsWithTheirMetadataOrNothing() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        let db = try Database(path: path)
        let before = try CLI.storedBytes(db)
        let missing = try CLI.fail(["delete", path, "items", "a", "zz"], status: CLI.Status.notFound)
        #expect(missing == "larder: no object at collection \"items\", key \"zz\"; nothing was removed\n")
        #expect(try CLI.storedBytes(db) == before)
        try CLI.succeed(["delete", path, "items", "a", "zz", "--ignore-missing"])
        try db.read { txn throws in
            #expect(try txn.keys(inCollection: "items") == ["b"])
            #expect(try txn.storedMetadata(forKey: "a", inCollection: "items") == nil)
        }
        try CLI.succeed(["delete", path, "items", "b"])
        #expect(try db.read { try $0.collections() }.isEmpty)
        try CLI.fail(["delete", path, "items", "b"], status: CLI.Status.notFound)
        try CLI.fail(["delete", path, "items"], status: CLI.Status.usage)
        try CLI.fail(["delete", path, "items", "b", "--all"], status: CLI.Status.usage)
    }

    @Test func deleteAllEmptiesACollection() throws {
        let directory = TemporaryDirectory()
        let path = try makeStore(directory)
        try CLI.succeed(["put", path, "other", "x", "1"])
        try CLI.succeed(["delete", path, "items", "--all"])
        let db = try Database(path: path)
        #expect(try db.read { try $0.collections() } == ["other"])
        #expect(try db.statistics().metadataCount == 0)
        try CLI.fail(["delete", path, "items", "--all"], status: CLI.Status.notFound)
        #expect(try db.checkStructure().isConsistent)
    }
}

/// Splits a MessagePack array into its elements' bytes, in hexadecimal, to check encodings.
enum MessagePackParserProbe {
    static func elements(_ bytes: [UInt8]) throws -> [String] {
        try bytes.withUnsafeBytes { buffer in
            let reader = MessagePackReader(bytes: buffer)
            var position = try reader.header(at: 0).next
            var elements: [String] = []
            while position < bytes.count {
                let end = try reader.skipValue(at: position)
                elements.append(bytes[position..<end].map { String(format: "%02x", $0) }.joined())
                position = end
            }
            return elements
        }
    }
}
