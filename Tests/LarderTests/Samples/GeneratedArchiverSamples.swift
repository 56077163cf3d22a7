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

    @Archived
    struct Part: Codable, Persistable, Migratable {
        static let collection = "parts"
        static let currentVersion = 1
        static let migrationSteps = [MigrationStep(from: 0, changes: [.rename("title", to: "name")])]
        var id: String
        var name: String
        var price: Double
    }

    /// `Part` before version 1.
    struct OldPart: Codable {
        var id: String
        var title: String
        var price: Double
    }

    @Test func archivedPersistableAndMigratable() throws {
        try withStore { db, _ in
            try db.write { try $0.setObject(OldPart(id: "p0", title: "Saw", price: 20), forKey: "p0", inCollection: "parts") }

            db.registerMigrations(of: Part.self)
            try db.write(Part(id: "p1", name: "Hammer", price: 24))
            let hammer = try db.read(Part.self, key: "p1")   // read by the generated code
            let saw = try db.read(Part.self, key: "p0")      // migrated first: it was written at version 0

            #expect(hammer?.name == "Hammer" && saw?.name == "Saw" && saw?.price == 20)
            #expect(type(of: Part.archiver) == GeneratedArchiver<Part>.self)
            #expect(try db.read { try $0.readAll(Part.self) }.map(\.name).sorted() == ["Hammer", "Saw"])
        }
    }

    @Archived(layout: .numbered)
    struct Reading: Codable {
        var sensor: String
        var celsius: Double
        var note: String?

        enum CodingKeys: Int, CodingKey {
            case sensor = 1
            case celsius = 2
            case note = 3
        }
    }

    /// `Reading` before it took numbers.
    @Archived
    struct NamedReading: Codable {
        var sensor: String
        var celsius: Double
        var note: String?
    }

    @Test func numberedLayoutAndItsMigration() throws {
        try withStore { db, _ in
            try db.write { try $0.setObject(NamedReading(sensor: "s1", celsius: 21.5, note: nil), forKey: "r1", inCollection: "readings") }
            func storedSize() throws -> Int? {
                try db.read { try $0.withStoredObject(forKey: "r1", inCollection: "readings") { _, bytes in bytes.count } }
            }
            let named = try storedSize()
            // The numbered type reads the named value as it is.
            #expect(try db.read { try $0.object(forKey: "r1", inCollection: "readings", as: Reading.self) }?.celsius == 21.5)
            db.register(ValueMigrations(collection: "readings", currentVersion: 1, steps: [
                MigrationStep(from: 0, rearchiving: Reading.self),
            ]))
            try db.migrate(collection: "readings")
            let numbered = try storedSize()
            // "sensor" and "celsius" (7 + 8 bytes as keys) became 1 and 2 (a byte each).
            #expect(numbered.map { $0 + 13 } == named)
            #expect(try db.read { try $0.object(forKey: "r1", inCollection: "readings", as: Reading.self) }?.sensor == "s1")
            // The Codable path reads the numbered map too.
            let codable = try db.read { try $0.object(forKey: "r1", inCollection: "readings", archiver: MessagePackArchiver<Reading>()) }
            #expect(codable?.sensor == "s1" && codable?.note == nil)
        }
    }
}
