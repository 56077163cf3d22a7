import Foundation
import Synchronization
import Testing
@testable import Larder

/// Registration, version tags, unregistering, staleness and verification, shown on secondary
/// indexes (the machinery is the same for every kind).
@Suite("Extensions")
struct ExtensionTests {
    /// An index on `Item.price` that counts how often its columns closure runs.
    static func countingIndex(tag: String = "1", calls: Counter) -> SecondaryIndex<Item, NoMetadata> {
        SecondaryIndex(collections: ["items"], versionTag: tag) { _, item in
            calls.value.add(1, ordering: .relaxed)
            return TupleKey(item.price)
        }
    }

    final class Counter: Sendable {
        let value = Atomic<Int>(0)
        var count: Int { value.load(ordering: .acquiring) }
    }

    static func fill(_ db: Database, count: Int) throws {
        try db.write { txn in
            for i in 0..<count {
                try txn.setObject(Item(category: "c", price: Double(i % 97), name: "n\(i)"), forKey: "k\(i)", inCollection: "items")
            }
        }
    }

    @Test func registeringWithTheStoredTagDoesNoWork() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let calls = Counter()
        do {
            let db = try Database(path: path)
            try Self.fill(db, count: 2_000)
            try db.register(Self.countingIndex(calls: calls), named: "byPrice")
            #expect(calls.count == 2_000)
            // Again in the same process: the same definition is already there.
            try db.register(Self.countingIndex(calls: calls), named: "byPrice")
            #expect(calls.count == 2_000)
        }
        // A new process (here: the store closed and opened again) registers at launch.
        let decodes = DecodeCounter()
        let db = try Database(path: path)
        db.register(CountingArchiver<Item>(counter: decodes), forCollection: "items")
        var reports: [RegistrationProgress] = []
        let handle = try db.register(Self.countingIndex(calls: calls), named: "byPrice") { reports.append($0) }
        #expect(calls.count == 2_000 && decodes.value == 0 && reports.isEmpty)
        #expect(try db.read { try $0[handle].count() } == 2_000)
    }

    @Test func aChangedTagRebuildsWithProgress() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let calls = Counter()
        do {
            let db = try Database(path: path)
            try Self.fill(db, count: 3_000)
            try db.register(Self.countingIndex(calls: calls), named: "byPrice")
        }
        let db = try Database(path: path)
        let before = calls.count
        var reports: [RegistrationProgress] = []
        let changes = db.changes()
        let handle = try db.register(Self.countingIndex(tag: "2", calls: calls), named: "byPrice") { reports.append($0) }
        #expect(calls.count - before == 3_000)
        #expect(reports.first == RegistrationProgress(extensionName: "byPrice", processed: 0, total: 3_000))
        #expect(reports.last == RegistrationProgress(extensionName: "byPrice", processed: 3_000, total: 3_000))
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.processed <= $1.processed })
        #expect(try db.read { try $0[handle].count() } == 3_000)
        let rebuilt = try #require(changes.lease.subscription.takeBuffered().last)
        #expect(rebuilt.extensionChanges(named: "byPrice") == [ExtensionPayload.rebuilt])
        #expect(try db.verifyExtensions().isEmpty)
    }

    /// A definition that depends on an extension nobody registered: registering it must fail
    /// before its runtime is made.
    struct Dependent: ExtensionDefinition {
        var versionTag: String { "1" }

        func registration(named name: String, in database: Database) -> ExtensionRegistration<Int> {
            ExtensionRegistration(kind: "test", collections: nil, dependencies: ["missing"], parts: ["p"], handle: 0) { _ in
                Issue.record("must not be built")
                throw CancellationError()
            }
        }
    }

    @Test func conflictsAndBadNamesAreClearErrors() throws {
        try withStore { db, _ in
            let calls = Counter()
            try db.register(Self.countingIndex(calls: calls), named: "byPrice")
            var error = #expect(throws: LarderError.self) { try db.register(Self.countingIndex(tag: "2", calls: calls), named: "byPrice") }
            #expect(error?.code == .extensionConflict)
            for name in ["", "a\u{0}b", String(repeating: "x", count: 201)] {
                error = #expect(throws: LarderError.self) { try db.register(Self.countingIndex(calls: calls), named: name) }
                #expect(error?.code == .invalidExtensionName)
            }
            error = #expect(throws: LarderError.self) { try db.register(Dependent(), named: "dependent") }
            #expect(error?.code == .extensionNotRegistered)
            #expect(db.registeredExtensions == ["byPrice"])
        }
    }

    @Test func unregisteringRemovesTheStateAndTheHandle() throws {
        try withStore { db, _ in
            try Self.fill(db, count: 50)
            let calls = Counter()
            let handle = try db.register(Self.countingIndex(calls: calls), named: "byPrice")
            try db.unregisterExtension(named: "byPrice")
            #expect(db.registeredExtensions.isEmpty)
            let error = #expect(throws: LarderError.self) { try db.read { try $0[handle].count() } }
            #expect(error?.code == .extensionNotRegistered)
            try db.read { txn in
                #expect(try ExtensionRecord.read("byPrice", in: txn.lmdb) == nil)
                let entries = try txn.lmdb.openDatabase("x.byPrice.entries", create: false)
                #expect(try txn.lmdb.count(entries) == 0)
            }
            // Writes go on without it; registering again rebuilds.
            try db.write { try $0.setObject(Item(category: "c", price: 1, name: "new"), forKey: "new", inCollection: "items") }
            let again = try db.register(Self.countingIndex(calls: calls), named: "byPrice")
            #expect(try db.read { try $0[again].count() } == 51)
            #expect(calls.count == 101)
        }
    }

    /// Unregistering an extension this process did not register finds its databases by their
    /// names, whatever its kind: one of a kind this Larder does not know (written by a later
    /// one) is emptied too, and the databases of extension `a.b` are not extension `a`'s.
    @Test func unregisteringAnExtensionOfAnyKindEmptiesItsDatabasesOnly() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            try Self.fill(db, count: 20)
            try db.register(Self.countingIndex(calls: Counter()), named: "a.b")
            try db.write { txn in
                let record = ExtensionRecord(kind: "aKindFromTheFuture", versionTag: "1", collections: nil, stale: false)
                try record.write("a", in: txn.lmdb)
                for part in ["first", "second"] {
                    let database = try txn.lmdb.openDatabase(ExtensionParts.databaseName(extension: "a", part: part), create: true)
                    try txn.lmdb.put(database, key: part, value: UnsafeRawBufferPointer(start: nil, count: 0))
                }
            }
        }
        let db = try Database(path: path)
        try db.unregisterExtension(named: "a")
        try db.read { txn throws in
            #expect(try ExtensionRecord.read("a", in: txn.lmdb) == nil)
            for part in ["first", "second"] {
                #expect(try txn.lmdb.count(txn.lmdb.openDatabase("x.a.\(part)", create: false)) == 0)
            }
            #expect(try ExtensionRecord.read("a.b", in: txn.lmdb) != nil)
            #expect(try txn.lmdb.count(txn.lmdb.openDatabase("x.a.b.entries", create: false)) == 20)
        }
        let calls = Counter()
        let index = try db.register(Self.countingIndex(calls: calls), named: "a.b")
        #expect(calls.count == 0)  // kept: nothing to rebuild
        #expect(try db.read { try $0[index].count() } == 20)
        #expect(try db.verifyExtensions().isEmpty)
    }

    @Test func writesWithoutTheExtensionMakeItStale() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let calls = Counter()
        do {
            let db = try Database(path: path)
            try Self.fill(db, count: 10)
            try db.register(Self.countingIndex(calls: calls), named: "byPrice")
        }
        do {  // a process that does not register it writes a collection it does not read: still current
            let db = try Database(path: path)
            try db.write { try $0.setObject(1, forKey: "x", inCollection: "elsewhere") }
            try db.read { txn throws in #expect(try ExtensionRecord.read("byPrice", in: txn.lmdb)?.stale == false) }
        }
        do {  // ... and one that writes its collection: stale
            let db = try Database(path: path)
            _ = try db.write { try $0.removeObject(forKey: "k3", inCollection: "items") }
            try db.read { txn throws in #expect(try ExtensionRecord.read("byPrice", in: txn.lmdb)?.stale == true) }
        }
        let db = try Database(path: path)
        let handle = try db.register(Self.countingIndex(calls: calls), named: "byPrice")
        #expect(calls.count == 19)  // rebuilt over the 9 items left
        #expect(try db.read { try $0[handle].indexes().contains(YapDB.Index(collection: "items", key: "k3")) } == false)
        #expect(try db.verifyExtensions().isEmpty)
    }

    @Test func verificationFindsWhatIsWrong() throws {
        try withStore { db, _ in
            try Self.fill(db, count: 30)
            let handle = try db.register(Self.countingIndex(calls: Counter()), named: "byPrice")
            #expect(try db.verifyExtensions().isEmpty)
            // Damage the index behind the store's back: drop one entry, add a bogus one.
            try db.write { txn in
                let runtime = try txn.extensionRuntime(named: "byPrice", as: SecondaryIndexRuntime<Item, NoMetadata>.self)
                let first = try #require(try txn[handle].indexes(limit: 1).first)
                let key = TupleKey([.double(0), .string(first.collection), .string(first.key)]).bytes
                #expect(try key.withUnsafeBytes { try txn.lmdb.delete(runtime.parts["entries"], key: $0) })
                let bogus = TupleKey([.double(-1), .string("items"), .string("ghost")]).bytes
                try bogus.withUnsafeBytes { try txn.lmdb.put(runtime.parts["entries"], key: $0, value: UnsafeRawBufferPointer(start: nil, count: 0)) }
            }
            let differences = try db.verifyExtensions()
            #expect(differences.count == 2)
            #expect(differences.allSatisfy { $0.extensionName == "byPrice" && $0.part == "entries" })
            #expect(differences.contains { $0.detail.hasPrefix("missing entry") })
            #expect(differences.contains { $0.detail.hasPrefix("unexpected entry") && $0.detail.contains("ghost") })
            // Verification changed nothing.
            #expect(try db.verifyExtensions().count == 2)
        }
    }

    @Test func aFailingClosureInAGroupLeavesTheIndexConsistent() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let handle = try db.register(Self.countingIndex(calls: Counter()), named: "byPrice")
        struct Failure: Error {}
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<16 {
                group.addTask {
                    do {
                        try await db.write { txn in
                            try txn.setObject(Item(category: "c", price: Double(i), name: "n"), forKey: "k\(i)", inCollection: "items")
                            if i % 4 == 0 { throw Failure() }
                        }
                    } catch is Failure {}
                }
            }
            try await group.waitForAll()
        }
        let keys = try await db.read { try $0[handle].indexes().map(\.key) }
        #expect(Set(keys) == Set((0..<16).filter { $0 % 4 != 0 }.map { "k\($0)" }))
        #expect(try await db.read { try $0.numberOfKeys(inCollection: "items") } == 12)
        #expect(try db.verifyExtensions().isEmpty)
    }
}
