import Foundation
import Testing
@testable import Larder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Four versions of one type, each a step from the one before: a field added and one renamed
// (0 → 1), one split into two (1 → 2), a type changed (2 → 3).

/// Version 0: what `Fixtures/larder-format4-store.dump` holds.
struct MemberV0: Codable, Equatable {
    var id: String
    var name: String
    var age: String
}

/// Version 1: `name` renamed `fullName`, `email` added.
struct MemberV1: Codable, Equatable {
    var id: String
    var fullName: String
    var email: String
    var age: String
}

/// Version 2: `fullName` split into `givenName` and `familyName`.
struct MemberV2: Codable, Equatable, Sendable {
    var id: String
    var givenName: String
    var familyName: String
    var email: String
    var age: String
}

/// Version 3, the current one: `age` a number.
struct Member: Codable, Equatable, Sendable, Persistable, Migratable {
    static let collection = "people"
    static let currentVersion = 3
    static var migrationSteps: [MigrationStep] { MemberMigrations.steps }
    var id: String
    var givenName: String
    var familyName: String
    var email: String
    var age: Int
}

enum MemberMigrations {
    static let steps: [MigrationStep] = [
        MigrationStep(from: 0, changes: [.rename("name", to: "fullName"), .add("email", value: .string(""))]),
        MigrationStep(from: 1) { value in
            let parts = (value["fullName"]?.text ?? "").split(separator: " ", maxSplits: 1)
            value["givenName"] = .string(parts.first.map(String.init) ?? "")
            value["familyName"] = .string(parts.count > 1 ? String(parts[1]) : "")
            value["fullName"] = nil
        },
        MigrationStep(from: 2, decoding: MemberV2.self) { old in
            Member(id: old.id, givenName: old.givenName, familyName: old.familyName, email: old.email, age: Int(old.age) ?? -1)
        },
    ]

    /// What a program at `version` declares.
    static func upTo(_ version: Int) -> ValueMigrations {
        ValueMigrations(collection: "people", currentVersion: version, steps: Array(steps.prefix(version)))
    }

    /// A view of people by the initial of their family name, youngest first: it reads fields
    /// that only the migrated values have.
    static let byFamily = AutoView<Member, NoMetadata>(
        collections: ["people"], versionTag: "1",
        grouping: { _, person in person.familyName.first.map(String.init) ?? "?" },
        sorting: { _, person in TupleKey(person.age, person.id) })
    /// An index on the age, a number only from version 3.
    static let byAge = SecondaryIndex<Member, NoMetadata>(collections: ["people"], versionTag: "1") { _, person in TupleKey(person.age) }
}

@Suite("Value migrations")
struct MigrationTests {
    /// People at version 0 (as the format-4 fixture holds them), with what each reads as now.
    static let fixturePeople: [(MemberV0, Member)] = (0..<40).map { number in
        let family = ["Lovelace", "Hopper", "Turing", "Liskov", "Knuth"][number % 5]
        let old = MemberV0(id: "p\(number)", name: "Given\(number) \(family)", age: String(20 + number))
        return (old, Member(id: "p\(number)", givenName: "Given\(number)", familyName: family, email: "", age: 20 + number))
    }

    /// The keys the view's group `initial` holds for `people`: youngest first.
    static func group(_ initial: String, of people: [String: Member]) -> [String] {
        people.values.filter { $0.familyName.hasPrefix(initial) }.sorted { ($0.age, $0.id) < ($1.age, $1.id) }.map(\.id)
    }

    /// Opens the format-4 fixture (written by Larder at 6ea75ed with `larder import`) in `directory`.
    static func loadFormatFourStore(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("store")
        try ChangeLogFormatTests.loadFixture("larder-format4-store.dump", at: path)
        return path
    }

    @Test func aFormatFourStoreReadsLazilyMigratesEagerlyAndRisesToFiveOnTheFirstVersionedWrite() throws {
        let directory = TemporaryDirectory()
        let path = try Self.loadFormatFourStore(in: directory)
        let db = try Database(path: path)
        #expect(try db.statistics().formatVersion == 4)
        #expect(try db.storedVersions(inCollection: "people") == [0: Self.fixturePeople.count])
        // Without a declaration the values read as they are stored.
        #expect(try db.read { try $0.object(forKey: "p3", inCollection: "people", as: MemberV0.self) } == Self.fixturePeople[3].0)

        db.registerMigrations(of: Member.self)
        for (_, now) in Self.fixturePeople {
            #expect(try db.read { try $0.read(Member.self, key: now.id) } == now)
        }
        #expect(try db.statistics().formatVersion == 4)  // reads write nothing
        let view = try db.register(MemberMigrations.byFamily, named: "byFamily")
        let index = try db.register(MemberMigrations.byAge, named: "byAge")
        let expectedHoppers = Self.fixturePeople.map(\.1).filter { $0.familyName == "Hopper" }.sorted { $0.age < $1.age }.map(\.id)
        func checkExtensions() throws {
            try db.read { txn throws in
                #expect(try txn[view].indexes(inGroup: "H").map(\.key) == expectedHoppers)
                #expect(try txn[index].indexes(matching: .range(from: 30, to: 35)).map(\.key) == ["p10", "p11", "p12", "p13", "p14"])
            }
            #expect(try db.verifyExtensions().isEmpty)
        }
        try checkExtensions()

        try db.write { try $0.write(Member(id: "new", givenName: "Grace", familyName: "Hopper", email: "g@navy.mil", age: 85)) }
        #expect(try db.statistics().formatVersion == 6)  // past 5 (a versioned value) to 6 (the first write moves the records)
        #expect(try db.read { try $0.storedVersion(forKey: "new", inCollection: "people") } == 3)
        _ = try db.write { try $0.removeObject(forKey: "new", inCollection: "people") }

        var reports: [MigrationProgress] = []
        let last = try db.migrate(collection: "people", chunkSize: 7) { reports.append($0) }
        #expect(last.migrated == Self.fixturePeople.count && last.scanned == Self.fixturePeople.count)
        #expect(reports.map(\.scanned) == [7, 14, 21, 28, 35, 40])
        #expect(try db.storedVersions(inCollection: "people") == [3: Self.fixturePeople.count])
        for (_, now) in Self.fixturePeople {
            #expect(try db.read { try $0.read(Member.self, key: now.id) } == now)
        }
        try checkExtensions()
        #expect(try db.migrate(collection: "people").migrated == 0)  // nothing left to do
        #expect(try db.checkStructure().isConsistent)
    }

    @Test func storesWrittenAtThreeVersionsReadAsTheCurrentOneEverywhere() throws {
        try withStore { _, directory in
            let path = directory.file("store")
            // Version 0: no declaration.
            do {
                let db = try Database(path: path)
                try db.write { txn in
                    for (old, _) in Self.fixturePeople.prefix(10) { try txn.setObject(old, forKey: old.id, inCollection: "people") }
                }
            }
            // Version 1 adds people and rewrites one of version 0.
            do {
                let db = try Database(path: path)
                db.register(MemberMigrations.upTo(1))
                #expect(try db.read { try $0.object(forKey: "p1", inCollection: "people", as: MemberV1.self) }
                        == MemberV1(id: "p1", fullName: "Given1 Hopper", email: "", age: "21"))
                try db.write { txn in
                    try txn.setObject(MemberV1(id: "v1", fullName: "Barbara Liskov", email: "b@mit.edu", age: "86"), forKey: "v1", inCollection: "people")
                    try txn.setObject(MemberV1(id: "p2", fullName: "Ada Turing", email: "a@t.org", age: "x"), forKey: "p2", inCollection: "people")
                }
            }
            // Version 2 adds another.
            do {
                let db = try Database(path: path)
                db.register(MemberMigrations.upTo(2))
                try db.write { txn in
                    try txn.setObject(MemberV2(id: "v2", givenName: "Donald", familyName: "Knuth", email: "", age: "88"), forKey: "v2", inCollection: "people")
                }
            }
            let db = try Database(path: path)
            #expect(try db.storedVersions(inCollection: "people") == [0: 9, 1: 2, 2: 1])
            db.registerMigrations(of: Member.self)
            let expected: [String: Member] = {
                var people = Dictionary(uniqueKeysWithValues: Self.fixturePeople.prefix(10).map { ($0.1.id, $0.1) })
                people["p2"] = Member(id: "p2", givenName: "Ada", familyName: "Turing", email: "a@t.org", age: -1)
                people["v1"] = Member(id: "v1", givenName: "Barbara", familyName: "Liskov", email: "b@mit.edu", age: 86)
                people["v2"] = Member(id: "v2", givenName: "Donald", familyName: "Knuth", email: "", age: 88)
                return people
            }()
            // Point reads, enumerations, and reads inside a write.
            try db.read { txn in
                for (key, person) in expected { #expect(try txn.read(Member.self, key: key) == person) }
                var enumerated: [String: Member] = [:]
                try txn.enumerateObjects(inCollection: "people", as: Member.self) { key, person, _ in enumerated[key] = person }
                #expect(enumerated == expected)
            }
            try db.write { txn throws in #expect(try txn.read(Member.self, key: "v1") == expected["v1"]) }
            // Views and indexes built over old values see them migrated.
            let view = try db.register(MemberMigrations.byFamily, named: "byFamily")
            let index = try db.register(MemberMigrations.byAge, named: "byAge")
            func checkExtensions() throws {
                try db.read { txn throws in
                    #expect(try txn[view].indexes(inGroup: "K").map(\.key) == Self.group("K", of: expected))
                    #expect(try txn[view].indexes(inGroup: "T").map(\.key) == Self.group("T", of: expected))
                    #expect(try txn[index].indexes(matching: .range(from: 86, to: 89)).map(\.key) == ["v1", "v2"])
                }
                #expect(try db.verifyExtensions().isEmpty)
            }
            try checkExtensions()
            // An old value updated through the current type moves in the view as any write.
            try db.write { txn in
                var moved = try #require(try txn.read(Member.self, key: "p7"))
                moved.familyName = "Knuth"
                try txn.write(moved)
            }
            var moved = expected
            moved["p7"]?.familyName = "Knuth"
            #expect(try db.read { try $0[view].indexes(inGroup: "K").map(\.key) } == Self.group("K", of: moved))
            #expect(try db.read { try $0.storedVersion(forKey: "p7", inCollection: "people") } == 3)
            try db.migrate(collection: "people", chunkSize: 4)
            #expect(try db.storedVersions(inCollection: "people") == [3: 12])
            #expect(try db.read { try $0[view].indexes(inGroup: "K").map(\.key) } == Self.group("K", of: moved))
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func aValueNewerThanTheProgramIsAClearErrorAndLosesNothing() throws {
        try withStore { _, directory in
            let path = directory.file("store")
            do {
                let db = try Database(path: path)
                db.registerMigrations(of: Member.self)
                try db.write { try $0.write(Member(id: "p", givenName: "Ada", familyName: "Lovelace", email: "", age: 36)) }
            }
            let db = try Database(path: path)
            db.register(MemberMigrations.upTo(2))
            let before = try db.read { try $0.storedObject(forKey: "p", inCollection: "people") }
            func expectNewer(_ body: () throws -> Void) {
                #expect {
                    try body()
                } throws: { error in
                    guard let error = error as? LarderError else { return false }
                    return error.code == .newerValueVersion && error.message.contains("version 3") && error.index?.collection == "people"
                }
            }
            expectNewer { _ = try db.read { try $0.object(forKey: "p", inCollection: "people", as: MemberV2.self) } }
            expectNewer { try db.read { try $0.enumerateObjects(inCollection: "people", as: MemberV2.self) { _, _, _ in } } }
            expectNewer { try db.migrate(collection: "people") }
            #expect(try db.read { try $0.storedObject(forKey: "p", inCollection: "people") }?.bytes == before?.bytes)
            #expect(try db.read { try $0.storedVersion(forKey: "p", inCollection: "people") } == 3)
        }
    }

    @Test func stepsThatCannotRunAreClearErrorsAndWriteNothing() throws {
        struct Refused: Error {}
        try withStore { db, _ in
            db.register(JSONArchiver<MemberV0>(), forCollection: "json")
            try db.write { txn in
                for number in 0..<10 { try txn.setObject(MemberV0(id: "p\(number)", name: "N \(number)", age: "1"), forKey: "p\(number)", inCollection: "people") }
                try txn.setObject(MemberV0(id: "j", name: "J Son", age: "2"), forKey: "j", inCollection: "json")
            }
            func expectFailed(_ body: () throws -> Void) {
                #expect { try body() } throws: { ($0 as? LarderError)?.code == .migrationFailed }
            }
            // No step from version 0.
            db.register(ValueMigrations(collection: "people", currentVersion: 2, steps: [MemberMigrations.steps[1]]))
            expectFailed { _ = try db.read { try $0.object(forKey: "p1", inCollection: "people", as: MemberV2.self) } }
            // A step that refuses one value: the chunk holding it is not written, those before are.
            db.register(ValueMigrations(collection: "people", currentVersion: 1, steps: [MigrationStep(from: 0) { value in
                if value["id"]?.text == "p7" { throw Refused() }
                value["name"] = .string("migrated")
            }]))
            expectFailed { try db.migrate(collection: "people", chunkSize: 5) }
            #expect(try db.storedVersions(inCollection: "people") == [0: 5, 1: 5])
            // A tree step over a JSON value.
            db.register(ValueMigrations(collection: "json", currentVersion: 1, steps: [MigrationStep(from: 0, changes: [.remove("age")])]))
            expectFailed { _ = try db.read { try $0.object(forKey: "j", inCollection: "json", as: MemberV0.self) } }
            // A step that decodes the old type reads JSON as the Codable archivers do.
            db.register(ValueMigrations(collection: "json", currentVersion: 1, steps: [MigrationStep(from: 0, decoding: MemberV0.self) { old in
                MemberV1(id: old.id, fullName: old.name, email: "none", age: old.age)
            }]))
            #expect(try db.read { try $0.object(forKey: "j", inCollection: "json", as: MemberV1.self) } == MemberV1(id: "j", fullName: "J Son", email: "none", age: "2"))
            // No declaration: nothing to migrate.
            #expect { try db.migrate(collection: "nothing") } throws: { ($0 as? LarderError)?.code == .invalidConfiguration }
        }
    }

    /// Issue 31, item 6: a program that declares versions with no step from a version the store
    /// holds hears of it when it registers them, before a read fails.
    @Test func registeringStepsThatStrandStoredValuesIsAnEvent() throws {
        let heard = LockedEvents()
        var configuration = Database.Configuration()
        configuration.onEvent = { event in
            if case .unmigratableValues(let values) = event { heard.append(values) }
        }
        try withStore(configuration) { db, _ in
            try db.write { txn in
                for key in ["b", "a", "c"] { try txn.setObject(MemberV0(id: key, name: "N", age: "1"), forKey: key, inCollection: "people") }
                try txn.setObject(MemberV0(id: "m", name: "N", age: "1"), forKey: "m", inCollection: "people", metadata: 1)
            }
            // Steps from 0 on: every stored version reaches the current one.
            db.register(MemberMigrations.upTo(3))
            db.registerMigrations(of: Member.self)
            #expect(heard.values.isEmpty)
            // No step from 0 (the app of the outside check): the four values are stranded.
            db.register(ValueMigrations(collection: "people", currentVersion: 3, steps: Array(MemberMigrations.steps.dropFirst())))
            #expect(heard.values == [UnmigratableValues(collection: "people", metadata: false, currentVersion: 3, counts: [0: 4], firstKey: "a")])
            // A gap higher up strands the versions below it too; values above it are fine.
            try db.write { try $0.setObject(Member(id: "d", givenName: "D", familyName: "E", email: "", age: 2), forKey: "d", inCollection: "people") }
            db.register(ValueMigrations(collection: "people", currentVersion: 4, steps: [MemberMigrations.steps[0], MemberMigrations.steps[2]]))
            #expect(heard.values.last == UnmigratableValues(collection: "people", metadata: false, currentVersion: 4, counts: [0: 4, 3: 1], firstKey: "a"))
            // Metadata are their own half.
            db.register(ValueMigrations(collection: "people", metadata: true, currentVersion: 1, steps: []))
            #expect(heard.values.last == UnmigratableValues(collection: "people", metadata: true, currentVersion: 1, counts: [0: 1], firstKey: "m"))
            // A collection that holds nothing stranded: nothing is heard.
            let count = heard.values.count
            db.register(ValueMigrations(collection: "empty", currentVersion: 2, steps: []))
            #expect(heard.values.count == count)
            // Reading a stranded value fails as the event said it would, naming it.
            db.register(ValueMigrations(collection: "people", currentVersion: 3, steps: Array(MemberMigrations.steps.dropFirst())))
            #expect { _ = try db.read { try $0.object(forKey: "a", inCollection: "people", as: Member.self) } } throws: { error in
                let error = error as? LarderError
                return error?.code == .migrationFailed && error?.index?.key == "a" && error?.recoverySuggestion?.contains("from version 0") == true
            }
        }
    }

    @Test func undoAndHistoryFromBeforeAMigrationStillRestore() throws {
        var configuration = Database.Configuration()
        configuration.keepsValueHistory = true
        try withStore(configuration) { _, directory in
            let path = directory.file("store")
            do {
                let db = try Database(path: path, configuration: configuration)
                db.register(MemberMigrations.upTo(1))
                try db.write { try $0.setObject(MemberV1(id: "p", fullName: "Alan Turing", email: "", age: "41"), forKey: "p", inCollection: "people") }
                try db.write(undoable: "Email") { txn in
                    try txn.setObject(MemberV1(id: "p", fullName: "Alan Turing", email: "alan@bletchley.uk", age: "41"), forKey: "p", inCollection: "people")
                }
            }
            let db = try Database(path: path, configuration: configuration)
            db.registerMigrations(of: Member.self)
            try db.migrate(collection: "people")
            #expect(try db.read { try $0.storedVersion(forKey: "p", inCollection: "people") } == 3)
            let history = try db.read { try $0.history(of: Member.self, key: "p") }
            // Newest first: the migration, the edit, the insert; each reads at the current version.
            #expect(history.map(\.value?.email) == ["alan@bletchley.uk", "alan@bletchley.uk", ""])
            #expect(history.map(\.value?.familyName) == ["Turing", "Turing", "Turing"])
            // Undoing the edit (the migration rewrote the value it left: the same value) puts back
            // its version-1 bytes, which read as version 3.
            #expect(try db.undo()?.name == "Email")
            #expect(try db.read { try $0.storedVersion(forKey: "p", inCollection: "people") } == 1)
            #expect(try db.read { try $0.read(Member.self, key: "p") } == Member(id: "p", givenName: "Alan", familyName: "Turing", email: "", age: 41))
        }
    }

    @Test func versionFramingRoundTripsWithChecksumsAndRefusesDamage() throws {
        var configuration = Database.Configuration()
        configuration.checksumsValues = true
        try withStore(configuration, leavesDamage: true) { db, _ in
            db.register(ValueMigrations(collection: "c", currentVersion: 300, steps: [MigrationStep(from: 0) { _ in }]))
            try db.write { txn in
                try txn.setObject("text", forKey: "k", inCollection: "c")
                try txn.setObject("plain", forKey: "k", inCollection: "other")
            }
            #expect(try db.read { try $0.object(forKey: "k", inCollection: "c", as: String.self) } == "text")
            #expect(try db.read { try $0.storedVersion(forKey: "k", inCollection: "c") } == 300)
            #expect(try db.read { try $0.storedVersion(forKey: "k", inCollection: "other") } == 0)
            #expect(try db.checkStructure().isConsistent)
            // The framing's bytes: 0x3F, the checksum, 0x3E, 300 as LEB128 (0xAC 0x02), the format.
            let raw = try db.read { txn in
                try StorageKey.with(collection: "c", key: "k", maxKeySize: txn.maxKeySize, operation: "test") { try txn.lmdb.get(txn.lmdb.databases.objects, key: $0).map { [UInt8]($0) } }
            }
            #expect(raw.map { Array($0[5..<9]) } == [0x3E, 0xAC, 0x02, 0x01])
        }
        for damaged: [UInt8] in [[0x3E], [0x3E, 0x80], [0x3E, 0x00, 0x01, 0xA0], [0x3E, 0x01], [0x3E, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x01], [0x3E, 0x01, 0x3E, 0x01, 0xA0]] {
            #expect(throws: LarderError.self) { try damaged.withUnsafeBytes { _ = try ValueFraming.unframe($0) } }
        }
        #expect(try ([0x3E, 0x05, 0x01, 0xA0] as [UInt8]).withUnsafeBytes { try ValueFraming.unframe($0).version } == 5)
    }

    @Test func aMigrationKilledMidwayKeepsItsChunksAndFinishesWhenRunAgain() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable(), "larder-test-helper not found beside the test binary")
        try withStore { db, _ in
            let count = 3000
            try db.write { txn in
                for number in 0..<count { try txn.setObject(["text": "note \(number)"], forKey: String(format: "n%05d", number), inCollection: "notes") }
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: helper)
            process.arguments = ["migrate-slowly", db.path, "100"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            var text = ""
            while text.components(separatedBy: "chunk ").count - 1 < 4 {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "the migration ended before it was killed: \(text)")
            let versions = try db.storedVersions(inCollection: "notes")
            #expect((versions[1] ?? 0) >= 400 && (versions[0] ?? 0) > 0 && versions.values.reduce(0, +) == count, "\(versions)")
            db.register(ValueMigrations(collection: "notes", currentVersion: 1, steps: [MigrationStep(from: 0, changes: [.rename("text", to: "body")])]))
            try db.read { txn throws in
                for number in stride(from: 0, to: count, by: 37) {
                    #expect(try txn.object(forKey: String(format: "n%05d", number), inCollection: "notes", as: [String: String].self) == ["body": "note \(number)"])
                }
            }
            let finished = try db.migrate(collection: "notes", chunkSize: 500)
            #expect(finished.migrated == versions[0] ?? 0)
            #expect(try db.storedVersions(inCollection: "notes") == [1: count])
        }
    }
}

/// Events gathered from any thread.
final class LockedEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var gathered: [UnmigratableValues] = []

    func append(_ values: UnmigratableValues) { lock.withLock { gathered.append(values) } }
    var values: [UnmigratableValues] { lock.withLock { gathered } }
}
