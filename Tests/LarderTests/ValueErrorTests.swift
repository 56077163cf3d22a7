import Foundation
import Testing
@testable import Larder

/// Errors about one stored value (issue 31, item 5): whichever way the value is reached — a point
/// read, an enumeration, an extension's rebuild, a migration, the versions count, the history,
/// the command-line tool — the error names its collection and key and, where there is a known
/// way out, says what to do.
@Suite("Errors that name the value")
struct ValueErrorTests {
    struct Person: Codable, Equatable, Sendable {
        var id: String
        var name: String
    }

    struct Other: Codable, Sendable {
        var x: Int
    }

    struct Refused: Error {}

    /// The ways a value becomes unreadable, each with the error code it gives and words its
    /// recovery suggestion must hold.
    enum Trouble: CaseIterable, CustomStringConvertible {
        /// Another type was written at the key.
        case otherType
        /// The value's framing is damaged (a version framing that never ends).
        case damagedFraming
        /// A checksummed value with a flipped bit.
        case checksum
        /// Written at version 2; the program declares 1.
        case newerVersion
        /// At version 0; the program declares 1 and no step from 0.
        case noStep
        /// The step from 0 throws for this value.
        case stepThrows

        var description: String { "\(code)/\(self == .noStep ? "noStep" : self == .stepThrows ? "stepThrows" : "")" }

        var code: LarderError.Code {
            switch self {
            case .otherType: .decodingFailed
            case .damagedFraming: .corruptValue
            case .checksum: .corrupted
            case .newerVersion: .newerValueVersion
            case .noStep, .stepThrows: .migrationFailed
            }
        }

        /// Words the recovery suggestion holds.
        var advice: String {
            switch self {
            case .otherType: "migration step"
            case .damagedFraming, .checksum: "larder check"
            case .newerVersion: "declares version 2"
            case .noStep: "MigrationStep from version 0"
            case .stepThrows: "underlying"
            }
        }

        var isDamage: Bool { self == .damagedFraming || self == .checksum }
        var isMigration: Bool { self == .newerVersion || self == .noStep || self == .stepThrows }
    }

    static let good = Person(id: "good", name: "Ada")
    static let bad = Person(id: "bad", name: "Bea")

    static let stepFromZero = MigrationStep(from: 0) { value in
        if value["id"]?.text == "bad" { throw Refused() }
    }
    static let stepFromOne = MigrationStep(from: 1) { _ in }

    /// A store holding ("people", "good"), readable, and ("people", "bad"), unreadable as a
    /// `Person` for `trouble`; the migrations the program declares are registered.
    static func makeStore(_ trouble: Trouble, at path: String, history: Bool = false) throws -> Database {
        var configuration = Database.Configuration()
        configuration.checksumsValues = trouble == .checksum
        configuration.keepsValueHistory = history
        configuration.objectCacheLimit = 0
        let db = try Database(path: path, configuration: configuration)
        switch trouble {
        case .otherType:
            try db.write { txn in
                try txn.setObject(good, forKey: "good", inCollection: "people")
                try txn.setObject(Other(x: 1), forKey: "bad", inCollection: "people")
            }
        case .damagedFraming, .checksum:
            try db.write { txn in
                try txn.setObject(good, forKey: "good", inCollection: "people")
                try txn.setObject(bad, forKey: "bad", inCollection: "people")
            }
            try damage(db, trouble)
        case .newerVersion:
            db.register(ValueMigrations(collection: "people", currentVersion: 2, steps: [stepFromZero, stepFromOne]))
            try db.write { try $0.setObject(bad, forKey: "bad", inCollection: "people") }
            db.register(ValueMigrations(collection: "people", currentVersion: 1, steps: [stepFromZero]))
            try db.write { try $0.setObject(good, forKey: "good", inCollection: "people") }
        case .noStep:
            try db.write { try $0.setObject(bad, forKey: "bad", inCollection: "people") }
            db.register(ValueMigrations(collection: "people", currentVersion: 1, steps: []))
            try db.write { try $0.setObject(good, forKey: "good", inCollection: "people") }
        case .stepThrows:
            try db.write { txn in
                try txn.setObject(good, forKey: "good", inCollection: "people")
                try txn.setObject(bad, forKey: "bad", inCollection: "people")
            }
            db.register(ValueMigrations(collection: "people", currentVersion: 1, steps: [stepFromZero]))
        }
        return db
    }

    /// Damages the stored bytes of ("people", "bad") as `trouble` (`.checksum` or
    /// `.damagedFraming`) says, beneath the library; returns what is stored now.
    @discardableResult
    static func damage(_ db: Database, _ trouble: Trouble) throws -> [UInt8] {
        var raw = try #require(try ChecksumTests.rawObject(db, key: "bad", collection: "people"))
        if trouble == .checksum {
            raw[raw.count - 1] ^= 0x01  // a flipped bit in a checksummed value
        } else {
            raw = [ValueFraming.versionTag, 0x81]  // a version framing that never ends
        }
        try ChecksumTests.plantObject(db, key: "bad", bytes: raw, collection: "people")
        return raw
    }

    /// Expects `body` to throw `trouble`'s error about ("people", "bad"), with its advice.
    static func expectError(_ trouble: Trouble, _ path: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("\(trouble), \(path): nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as LarderError {
            #expect(error.code == trouble.code, "\(trouble), \(path): \(error)", sourceLocation: sourceLocation)
            #expect(error.index == YapDB.Index(collection: "people", key: "bad"), "\(trouble), \(path): \(error)", sourceLocation: sourceLocation)
            #expect(error.recoverySuggestion?.contains(trouble.advice) == true, "\(trouble), \(path): \(error)", sourceLocation: sourceLocation)
            // The description a program logs names the key and the way out.
            #expect(error.description.contains(#"[key: "bad"]"#) && error.description.contains("[fix: "), "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(trouble), \(path): \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: Trouble.allCases)
    func readsNameTheValueAndTheWayOut(_ trouble: Trouble) throws {
        let directory = TemporaryDirectory()
        let db = try Self.makeStore(trouble, at: directory.file("store"))
        // The readable neighbour reads.
        #expect(try db.read { try $0.object(forKey: "good", inCollection: "people", as: Person.self) } == Self.good)
        Self.expectError(trouble, "point read") { _ = try db.read { try $0.object(forKey: "bad", inCollection: "people", as: Person.self) } }
        Self.expectError(trouble, "objects(forKeys:)") { _ = try db.read { try $0.objects(forKeys: ["good", "bad"], inCollection: "people", as: Person.self) } }
        Self.expectError(trouble, "enumeration") {
            try db.read { try $0.enumerateObjects(inCollection: "people", as: Person.self) { _, _, _ in } }
        }
        Self.expectError(trouble, "enumeration of all collections") {
            try db.read { try $0.enumerateObjects(inCollections: ["people"], as: Person.self) { _, _, _ in } }
        }
        Self.expectError(trouble, "rows") {
            try db.read { try $0.enumerateRows(inCollection: "people", as: Person.self, metadata: NoMetadata.self) { _, _, _, _ in } }
        }
    }

    @Test(arguments: Trouble.allCases)
    func extensionRebuildsNameTheValue(_ trouble: Trouble) throws {
        let directory = TemporaryDirectory()
        let db = try Self.makeStore(trouble, at: directory.file("store"))
        let byName = AutoView<Person, NoMetadata>(collections: ["people"], versionTag: "1", grouping: { _, _ in "all" }, sorting: { _, person in TupleKey(person.name) })
        let byLength = SecondaryIndex<Person, NoMetadata>(collections: ["people"], versionTag: "1") { _, person in TupleKey(person.name.count) }
        let search = FullTextSearch<Person, NoMetadata>(collections: ["people"], versionTag: "1", columnNames: ["name"]) { _, person in [person.name] }
        if trouble == .otherType {
            // A collection may hold several types: an extension passes over the others.
            let view = try db.register(byName, named: "byName")
            #expect(try db.read { try $0[view].numberOfItems(inGroup: "all") } == 1)
            _ = try db.register(byLength, named: "byLength")
            _ = try db.register(search, named: "search")
            return
        }
        Self.expectError(trouble, "view rebuild") { _ = try db.register(byName, named: "byName") }
        Self.expectError(trouble, "index rebuild") { _ = try db.register(byLength, named: "byLength") }
        Self.expectError(trouble, "full-text rebuild") { _ = try db.register(search, named: "search") }
    }

    @Test(arguments: Trouble.allCases.filter { $0 != .otherType })
    func migrationsAndVersionCountsNameTheValue(_ trouble: Trouble) throws {
        let directory = TemporaryDirectory()
        let db = try Self.makeStore(trouble, at: directory.file("store"))
        if trouble.isDamage {
            Self.expectError(trouble, "storedVersions") { _ = try db.storedVersions(inCollection: "people") }
            db.register(ValueMigrations(collection: "people", currentVersion: 1, steps: [MigrationStep(from: 0) { _ in }]))
        }
        Self.expectError(trouble, "migrate") { try db.migrate(collection: "people") }
    }

    @Test(arguments: Trouble.allCases.filter { !$0.isDamage })
    func historyNamesTheValue(_ trouble: Trouble) throws {
        let directory = TemporaryDirectory()
        let db = try Self.makeStore(trouble, at: directory.file("store"), history: true)
        let entries = try db.read { try $0.history(ofObjectAt: YapDB.Index(collection: "people", key: "bad")) }
        let entry = try #require(entries.first)
        Self.expectError(trouble, "history") { _ = try entry.value(as: Person.self) }
    }

    @Test(arguments: [Trouble.damagedFraming, .checksum])
    func theToolNamesADamagedValueAndTheWayOut(_ trouble: Trouble) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do { _ = try Self.makeStore(trouble, at: path) }
        for arguments in [["get", path, "people", "bad"], ["export", path, "people"]] {
            let line = try CLI.fail(arguments, status: CLI.Status.storeError)
            #expect(line.contains(#"collection "people", key "bad""#), "\(arguments): \(line)")
            #expect(line.contains("larder check"), "\(arguments): \(line)")
        }
    }

    @Test func aDamagedValueUnderExtensionsIsReplacedTheWayItsErrorSays() throws {
        for trouble in [Trouble.damagedFraming, .checksum] {
            for deletes in [false, true] {
                let directory = TemporaryDirectory()
                var configuration = Database.Configuration()
                configuration.checksumsValues = trouble == .checksum
                configuration.objectCacheLimit = 0
                let db = try Database(path: directory.file("store"), configuration: configuration)
                try db.write { txn in
                    try txn.setObject(Self.good, forKey: "good", inCollection: "people")
                    try txn.setObject(Self.bad, forKey: "bad", inCollection: "people")
                }
                let byName = AutoView<Person, NoMetadata>(collections: ["people"], versionTag: "1", grouping: { _, _ in "all" }, sorting: { _, person in TupleKey(person.name) })
                let byNameIndex = SecondaryIndex<Person, NoMetadata>(collections: ["people"], versionTag: "1") { _, person in TupleKey(person.name) }
                let searchDefinition = FullTextSearch<Person, NoMetadata>(collections: ["people"], versionTag: "1", columnNames: ["name"]) { _, person in [person.name] }
                _ = try db.register(byName, named: "byName")
                _ = try db.register(byNameIndex, named: "byName-index")
                _ = try db.register(searchDefinition, named: "search")
                let raw = try Self.damage(db, trouble)
                func replace() throws {
                    try db.write { txn in
                        if deletes {
                            _ = try txn.removeObject(forKey: "bad", inCollection: "people")
                        } else {
                            try txn.setObject(Person(id: "bad", name: "Cyd"), forKey: "bad", inCollection: "people")
                        }
                    }
                }
                // The extensions need the old value to update: the error names the value and
                // says what to do, and the write changes nothing.
                do {
                    try replace()
                    Issue.record("\(trouble) \(deletes): a write over a damaged value under extensions succeeded")
                } catch let error as LarderError {
                    #expect(error.index == YapDB.Index(collection: "people", key: "bad"), "\(error)")
                    #expect(error.recoverySuggestion?.contains("unregister") == true, "\(error)")
                }
                #expect(try ChecksumTests.rawObject(db, key: "bad", collection: "people") == raw)
                // Doing what it says works: without the extensions the value is replaced (or
                // removed), and registered again they rebuild from what the store holds now.
                for name in ["search", "byName-index", "byName"] { try db.unregisterExtension(named: name) }
                try replace()
                let view = try db.register(byName, named: "byName")
                let index = try db.register(byNameIndex, named: "byName-index")
                let search = try db.register(searchDefinition, named: "search")
                try db.read { txn in
                    let names = try txn[view].indexes(inGroup: "all").map(\.key)
                    #expect(names == (deletes ? ["good"] : ["good", "bad"]), "\(trouble) \(deletes): \(names)")
                    #expect(try txn[index].indexes(matching: .equal(TupleKey("Bea"))).isEmpty)
                    #expect(try txn[search].search("Bea").isEmpty)
                    #expect(try txn[search].search("Cyd").count == (deletes ? 0 : 1))
                }
                let report = try db.checkStructure()
                #expect(report.isConsistent, "\(trouble) \(deletes): \(report.problems)")
            }
        }
    }
}
