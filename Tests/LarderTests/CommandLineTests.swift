import Foundation
import Testing
@testable import Larder

/// Runs the built `larder` executable end to end: the demo, version and help, and what every
/// store subcommand does with a path that holds no store.
@Suite("Command-line tool")
struct CommandLineTests {
    struct DemoProduct: Codable, Persistable {
        static let collection = "products"
        var id: String
        var name: String
        var price: Double
    }

    struct DemoStock: Codable { var count: Int }

    @Test func demoWritesQueriesObservesUndoesAndReportsWhatItDid() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("demo")
        for _ in 0..<2 {  // a second run over the same store starts afresh
            let run = try CLI.run(["demo", "--path", path])
            #expect(run.status == 0, "\(run.standardError)")
            let lines = run.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.first == "Larder \(LarderVersion.string) demo: store at \(path)")
            #expect(lines.contains("- read p3: Chisel, 12.5; stock 7 (metadata read on its own)"))
            #expect(lines.contains("- collections: products (5 keys)"))
            #expect(lines.contains("- last two keys, newest first: p5, p4"))
            #expect(lines.contains("- view by price band, sorted by price: 20 and over: Hammer, Saw, Plane; under 20: Rasp, Chisel"))
            #expect(lines.contains("- index by price, 10 to 30: Chisel 12.5, Hammer 24.0"))
            #expect(lines.contains("- undoable write \"Stock take\": replaced p3's metadata only (stock 7 -> 3) and removed p5"))
            #expect(lines.contains("- a pinned snapshot still showed 5 products; moving it on reported 1 commit (stock take): p3 metadata updated; p5 object removed, metadata removed"))
            #expect(lines.contains("- the view's row changes for a list on screen: delete p5 from under 20[0]"))
            #expect(lines.contains("- undo \"Stock take\": 5 products again, p3's stock 7; the view: insert p5 at under 20[0]"))
            #expect(lines.last == "- reopened: 5 products; p3 is still Chisel with stock 7")
            #expect(lines.count <= 14)
        }
        let db = try Database(path: path)
        try db.read { txn throws in
            #expect(try txn.readAll(DemoProduct.self).map(\.id) == ["p1", "p2", "p3", "p4", "p5"])
            #expect(try txn.metadata(forKey: "p3", inCollection: "products", as: DemoStock.self)?.count == 7)
        }
        #expect(try db.recordedExtensions().map(\.name) == ["productsByPrice", "productsByPriceBand"])
    }

    @Test func demoRefusesAStoreOrDirectoryThatIsNotItsOwn() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("someone-elses")
        do {
            let db = try Database(path: path)
            try db.write { try $0.setObject("keep me", forKey: "k", inCollection: "notes") }
        }
        try CLI.fail(["demo", "--path", path], status: CLI.Status.badInput)
        #expect(try Database(path: path).read { try $0.object(forKey: "k", inCollection: "notes", as: String.self) } == "keep me")
        let busy = directory.file("busy")
        try FileManager.default.createDirectory(atPath: busy, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: busy + "/notes.txt", contents: Data("x".utf8))
        try CLI.fail(["demo", "--path", busy], status: CLI.Status.badInput)
        #expect(!FileManager.default.fileExists(atPath: busy + "/data.mdb"))
    }

    @Test func versionHelpAndUsageErrors() throws {
        #expect(try CLI.succeed(["version"]) == "larder \(LarderVersion.string) (store format \(LarderVersion.storeFormat))\n")
        #expect(try CLI.succeed(["--version"]) == "\(LarderVersion.string)\n")
        let help = try CLI.succeed(["--help"])
        for name in ["info", "collections", "keys", "get", "put", "delete", "export", "import", "backup", "check", "readers", "demo"] {
            #expect(help.contains("  \(name) "), "no \(name) in the help")
            let subcommandHelp = try CLI.succeed([name, "--help"])
            #expect(subcommandHelp.contains("USAGE: larder \(name)"))
        }
        let unknown = try CLI.fail(["frobnicate"], status: CLI.Status.usage)
        #expect(unknown.contains(#"unknown command "frobnicate" (larder --help lists the commands)"#), "\(unknown)")
        try CLI.fail(["get"], status: CLI.Status.usage)                       // missing arguments
        try CLI.fail(["keys", "/tmp/x", "c", "--limit", "many"], status: CLI.Status.usage)
        try CLI.fail(["import", "/tmp/x", "--chunk-size", "0"], status: CLI.Status.usage)
    }

    static let storeCommands: [[String]] = [
        ["info"], ["collections"], ["keys", "c"], ["get", "c", "k"], ["put", "c", "k", "1"], ["delete", "c", "k"],
        ["export"], ["import", "/dev/null"], ["backup", "/tmp/larder-never-written"], ["check"], ["readers"],
    ]

    @Test func aPathWithNoStoreIsNotFoundAndStaysEmpty() throws {
        let directory = TemporaryDirectory()
        let nothing = directory.file("nothing")
        let empty = directory.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        for command in Self.storeCommands {
            let message = try CLI.fail([command[0], nothing] + command.dropFirst(), status: CLI.Status.notFound)
            #expect(message.contains("no store at \(nothing)"))
            try CLI.fail([command[0], empty] + command.dropFirst(), status: CLI.Status.notFound)
        }
        #expect(!FileManager.default.fileExists(atPath: nothing))
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/larder-never-written"))
    }

    @Test func aFileThatIsNotAStoreIsBadInput() throws {
        let directory = TemporaryDirectory()
        let text = directory.file("notes.txt")
        _ = FileManager.default.createFile(atPath: text, contents: Data(String(repeating: "not a store\n", count: 1000).utf8))
        let emptyFile = directory.file("empty.txt")
        _ = FileManager.default.createFile(atPath: emptyFile, contents: Data())
        let garbage = directory.file("garbage")
        try FileManager.default.createDirectory(atPath: garbage, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: garbage + "/data.mdb", contents: Data(repeating: 0x5A, count: 8192))
        for path in [text, emptyFile, garbage] {
            for command in Self.storeCommands {
                let message = try CLI.fail([command[0], path] + command.dropFirst(), status: CLI.Status.badInput)
                #expect(message.contains("not a Larder store") || message.contains("empty file"), "\(message)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["empty.txt", "garbage", "notes.txt"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: garbage) == ["data.mdb"])
    }

    @Test func aStoreOfANewerFormatIsBadInput() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            try CLI.plantFormatVersion(db, 99)
        }
        let message = try CLI.fail(["info", path], status: CLI.Status.badInput)
        #expect(message.contains("format version 99"))
    }

    @Test func readOnlyCommandsLeaveTheDataFileAsItWas() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            try db.register(SecondaryIndex<DemoProduct, NoMetadata>(versionTag: "1") { _, product in TupleKey(product.price) }, named: "byPrice")
            try db.write { txn in
                for i in 0..<20 { try txn.write(DemoProduct(id: "p\(i)", name: "n\(i)", price: Double(i)), metadata: DemoStock(count: i)) }
            }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb"))
        for arguments in [["info", path], ["info", path, "--json"], ["collections", path], ["keys", path, "products"],
                          ["get", path, "products", "p3"], ["get", path, "products", "p3", "--json"], ["export", path],
                          ["check", path], ["readers", path], ["backup", path, directory.file("copy")]] {
            try CLI.succeed(arguments)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")) == before)
    }
}

extension CLI {
    /// Records format version `version` in the store (as a newer Larder would).
    static func plantFormatVersion(_ db: Database, _ version: UInt32) throws {
        var stored = version.bigEndian
        try db.environment.write { lmdb in
            try withUnsafeBytes(of: &stored) { try lmdb.put(lmdb.databases.larder, key: StoreFormat.versionKey, value: $0) }
        }
    }
}
