import Foundation
import Testing
import Larder

/// Runs the built `larder` executable end to end.
@Suite("Command-line tool")
struct CommandLineTests {
    struct DemoProduct: Codable, Persistable {
        static let collection = "products"
        var id: String
        var name: String
        var price: Double
    }

    struct DemoStock: Codable { var count: Int }

    @Test func demoWritesReadsAndReportsWhatItDid() throws {
        let larder = try #require(ProcessTestSupport.builtExecutable("larder"), "the larder executable was not built beside the tests")
        let directory = TemporaryDirectory()
        let path = directory.file("demo")
        for _ in 0..<2 {  // a second run over the same store starts afresh
            let run = try ProcessTestSupport.run(larder, ["demo", "--path", path])
            #expect(run.status == 0, "\(run.standardError)")
            let lines = run.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.first == "Larder \(LarderVersion.string) demo: store at \(path)")
            #expect(lines.contains("- read p3: Chisel, 12.5; stock 7 (metadata read on its own)"))
            #expect(lines.contains("- collections: products (5 keys)"))
            #expect(lines.contains("- last two keys, newest first: p5, p4"))
            #expect(lines.contains("- under 20, skipping p1 before decoding it: Chisel, Rasp"))
            #expect(lines.contains("- view by price band, sorted by price: 20 and over: Hammer, Saw, Plane; under 20: Rasp, Chisel"))
            #expect(lines.contains("- the view's row changes for a list on screen: delete p5 from under 20[0]"))
            #expect(lines.contains("- a pinned snapshot still showed 5 products; moving it on reported 1 commit (stock take): p3 metadata updated; p5 object removed, metadata removed"))
            #expect(lines.last == "- reopened: 4 products; p3 is still Chisel with stock 3")
        }
        let db = try Database(path: path)
        try db.read { txn throws in
            #expect(try txn.readAll(DemoProduct.self).map(\.id) == ["p1", "p2", "p3", "p4"])
            #expect(try txn.metadata(forKey: "p3", inCollection: "products", as: DemoStock.self)?.count == 3)
        }
    }

    @Test func versionAndHelp() throws {
        let larder = try #require(ProcessTestSupport.builtExecutable("larder"))
        let version = try ProcessTestSupport.run(larder, ["version"])
        #expect(version.status == 0)
        #expect(version.standardOutput == "larder \(LarderVersion.string) (store format \(LarderVersion.storeFormat))\n")
        let unknown = try ProcessTestSupport.run(larder, ["frobnicate"])
        #expect(unknown.status != 0)
        #expect(unknown.standardError.contains("Unexpected argument 'frobnicate'"))
    }
}
