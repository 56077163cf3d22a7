import Testing
import Larder

/// Documentation/Migrations.md.
@Suite("Samples: Migrations")
struct MigrationsSamples: SampleSuite, OpensStoresByPath {
    let environment = SampleEnvironment()

    struct ContactV2: Codable {          // the type as version 2 wrote it
        var id: String
        var givenName: String
        var familyName: String
        var email: String
        var age: String
    }

    struct Contact: Codable, Persistable, Migratable {
        static let collection = "contacts"
        static let currentVersion = 3
        static let migrationSteps = [
            // 0 → 1: a field renamed, one added.
            MigrationStep(from: 0, changes: [.rename("name", to: "fullName"), .add("email", value: .string(""))]),
            // 1 → 2: a field split in two, on the MessagePack tree.
            MigrationStep(from: 1) { value in
                let parts = (value["fullName"]?.text ?? "").split(separator: " ", maxSplits: 1)
                value["givenName"] = .string(parts.first.map(String.init) ?? "")
                value["familyName"] = .string(parts.count > 1 ? String(parts[1]) : "")
                value["fullName"] = nil
            },
            // 2 → 3: a type changed, by decoding the old type.
            MigrationStep(from: 2, decoding: ContactV2.self) { old in
                Contact(id: old.id, givenName: old.givenName, familyName: old.familyName, email: old.email, age: Int(old.age) ?? 0)
            },
        ]

        var id: String
        var givenName: String
        var familyName: String
        var email: String
        var age: Int
    }

    /// What a program before versions wrote.
    struct ContactV0: Codable {
        var id: String
        var name: String
        var age: String
    }

    @Test func declaringVersions() throws {
        do {
            let old = try Database(path: "/tmp/contacts")
            try old.write { try $0.setObject(ContactV0(id: "c1", name: "Ada Lovelace", age: "36"), forKey: "c1", inCollection: "contacts") }
        }

        let db = try Database(path: "/tmp/contacts")
        db.registerMigrations(of: Contact.self)
        let ada = try db.read { try $0.read(Contact.self, key: "c1") }   // whatever version it was written at

        #expect(ada.map { [$0.givenName, $0.familyName, $0.email, String($0.age)] } == ["Ada", "Lovelace", "", "36"])

        db.register(ValueMigrations(collection: "settings", currentVersion: 1, steps: [
            MigrationStep(from: 0, changes: [.remove("legacyTheme")]),
        ]))
        try db.write { try $0.setObject(["theme": "dark"], forKey: "ui", inCollection: "settings") }
        #expect(try db.read { try $0.storedVersion(forKey: "ui", inCollection: "settings") } == 1)
    }

    @Test func rewritingACollection() throws {
        do {
            let old = try Database(path: "/tmp/contacts")
            try old.write { txn in
                for number in 0..<1200 {
                    try txn.setObject(ContactV0(id: "c\(number)", name: "Given Family", age: "\(number)"), forKey: "c\(number)", inCollection: "contacts")
                }
            }
        }
        let db = try Database(path: "/tmp/contacts")
        db.registerMigrations(of: Contact.self)

        let done = try db.migrate(collection: "contacts", chunkSize: 500) { progress in
            print("\(progress.scanned) of \(progress.total), \(progress.migrated) rewritten")
        }
        print(try db.storedVersions(inCollection: "contacts"))   // [3: n]

        #expect(done.migrated == 1200)
        #expect(environment.printed == ["500 of 1200, 500 rewritten", "1000 of 1200, 1000 rewritten", "1200 of 1200, 1200 rewritten", "[3: 1200]"])
    }
}

/// Documentation/Migrations.md, the event: in a suite of its own, where `Database` is Larder's.
@Suite("Samples: Migrations, stranded values")
struct MigrationsEventSamples: SampleSuite {
    let environment = SampleEnvironment()

    @Test func hearingOfValuesNoStepCanRead() throws {
        let path = environment.directory + "/contacts"
        do {
            let old = try Database(path: path)
            try old.write { try $0.setObject(MigrationsSamples.ContactV0(id: "c1", name: "Ada Lovelace", age: "36"), forKey: "c1", inCollection: "contacts") }
        }

        var configuration = Database.Configuration()
        configuration.onEvent = { event in
            if case .unmigratableValues(let values) = event {
                print("\(values.collection): \(values.counts) values no step can read, first \(values.firstKey)")
            }
        }

        let db = try Database(path: path, configuration: configuration)
        db.register(ValueMigrations(collection: "contacts", currentVersion: 3, steps: Array(MigrationsSamples.Contact.migrationSteps.dropFirst())))
        #expect(environment.printed == ["contacts: [0: 1] values no step can read, first c1"])
    }
}
