import Foundation
import Testing
import LarderMacros

/// Documentation/StoringValues.md, "Generated archivers".
@Suite("Samples: Generated archivers")
struct GeneratedArchiverSamples {
    @Archived
    struct Tool: Codable {
        var name: String
        var price: Double
        var note: String?
    }

    @Test func generatedArchiverWritesTheCodableBytes() throws {
        try withStore { db, _ in
            let tool = Tool(name: "Hammer", price: 24, note: nil)
            try db.write { try $0.setObject(tool, forKey: "t1", inCollection: "tools") }
            // setObject chose the generated archiver (Saveable wins over Codable)...
            #expect(type(of: Tool.archiver) == GeneratedArchiver<Tool>.self)
            // ...which wrote the bytes the Codable path writes, so either reads them.
            let generated = try db.read { try $0.object(forKey: "t1", inCollection: "tools", as: Tool.self) }
            let codable = try db.read { try $0.object(forKey: "t1", inCollection: "tools", archiver: MessagePackArchiver<Tool>()) }
            #expect(generated?.name == "Hammer" && codable?.price == 24 && codable?.note == nil)
            var bytes: [UInt8] = []
            try GeneratedArchiver<Tool>().archive(tool, into: &bytes)
            #expect(bytes == (try MessagePackEncoder().encode(tool)))
        }
    }
}
