import Foundation
import Synchronization
import Testing
@testable import Larder

/// A connection's identity map (`Connection.keepsIdentityMap`): one live instance per index,
/// held weakly, evicted or refreshed in place as commits change the index.
@Suite("Identity map")
struct IdentityMapTests {
    /// A class refreshed in place (the guide's example).
    final class Note: Codable, Persistable, IdentityRefreshable {
        static let collection = "notes"
        let id: String
        var text: String

        init(id: String, text: String) {
            self.id = id
            self.text = text
        }

        func refresh(from newer: Note) { text = newer.text }
    }

    /// A class that is not refreshable: a changed index gets a new instance.
    final class Tag: Codable {
        var name: String
        init(name: String) { self.name = name }
    }

    /// What `larder-test-helper commit` writes at ("external", "shared"), a string, as a class.
    class Label: Codable {
        var text: String
        init(text: String) { self.text = text }
        required init(from decoder: any Decoder) throws { text = try decoder.singleValueContainer().decode(String.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
    }

    /// `Label`, refreshed in place.
    final class LiveLabel: Label, IdentityRefreshable {
        func refresh(from newer: LiveLabel) { text = newer.text }
    }

    /// A refreshable counter safe to share between threads (its state behind a mutex).
    final class SharedCount: Codable, IdentityRefreshable, Sendable {
        private let state: Mutex<Int>
        var value: Int { state.withLock { $0 } }

        init(_ value: Int) { state = Mutex(value) }
        init(from decoder: any Decoder) throws { state = Mutex(try decoder.singleValueContainer().decode(Int.self)) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
        func refresh(from newer: SharedCount) {
            let value = newer.value
            state.withLock { $0 = value }
        }
    }

    /// A connection with the identity map on; `objectCacheLimit` 0 unless given, so that only the
    /// map can return an instance a second time.
    func mappedConnection(_ db: Database, objectCacheLimit: Int = 0) -> Connection {
        let connection = db.newConnection()
        connection.keepsIdentityMap = true
        connection.objectCacheLimit = objectCacheLimit
        return connection
    }

    func note(_ connection: Connection, _ key: String = "n1") throws -> Note? {
        try connection.read { try $0.read(Note.self, key: key) }
    }

    // MARK: Off and on

    @Test func offByDefault() throws {
        #expect(Database.Configuration().keepsIdentityMap == false)
        try withStore { db, _ in
            try db.write { try $0.write(Note(id: "n1", text: "one")) }
            let connection = db.newConnection()
            #expect(connection.keepsIdentityMap == false)
            connection.objectCacheLimit = 0
            let first = try #require(try note(connection))
            let second = try #require(try note(connection))
            #expect(first !== second)
            #expect(connection.cacheStatistics.identityMapHits == 0)
        }
    }

    @Test func theConfigurationTurnsItOnForNewConnections() throws {
        var configuration = Database.Configuration()
        configuration.keepsIdentityMap = true
        configuration.objectCacheLimit = 0
        try withStore(configuration) { db, _ in
            try db.write { try $0.write(Note(id: "n1", text: "one")) }
            let connection = db.newConnection()
            #expect(connection.keepsIdentityMap)
            let first = try #require(try note(connection))
            #expect(try note(connection) === first)
            // Turning it off forgets the instances.
            connection.keepsIdentityMap = false
            #expect(try note(connection) !== first)
            #expect(connection.core.cache.counts.identities == 0)
        }
    }

    @Test func everyTypedReadReturnsTheLiveInstance() throws {
        try withStore { db, _ in
            try db.write { try $0.write(Note(id: "n1", text: "one"), metadata: 7) }
            let connection = mappedConnection(db)
            let first = try #require(try note(connection))
            try connection.read { txn throws in
                #expect(try txn.object(forKey: "n1", inCollection: "notes", as: Note.self) === first)
                #expect(try txn.object(at: Note.index(forKey: "n1"), as: Note.self) === first)
                #expect(try txn.object(forKey: "n1", inCollection: "notes", archiver: MessagePackArchiver<Note>()) === first)
                #expect(try txn.objects(forKeys: ["n1"], inCollection: "notes", as: Note.self)["n1"] === first)
                #expect(try txn.row(forKey: "n1", inCollection: "notes", as: Note.self, metadata: Int.self)?.object === first)
                #expect(try txn.read(Note.self, id: "n1") === first)
            }
            // Inside a write too, for an index the write has not changed.
            try connection.write { txn throws in
                #expect(try txn.read(Note.self, key: "n1") === first)
            }
            let statistics = connection.cacheStatistics
            #expect(statistics.identityMapHits == 7 && statistics.objectMisses == 1)
        }
    }

    @Test func valueTypesAreNotMapped() throws {
        try withStore { db, _ in
            try db.write { try $0.write(Product(id: "p1", name: "Hammer", price: 9)) }
            let connection = mappedConnection(db)
            #expect(try connection.read { try $0.read(Product.self, key: "p1") }?.name == "Hammer")
            #expect(connection.core.cache.counts.identities == 0)
        }
    }

    // MARK: Weakness

    @Test func theMapDoesNotKeepInstancesAlive() throws {
        try withStore { db, _ in
            try db.write { try $0.write(Note(id: "n1", text: "one")) }
            let connection = mappedConnection(db)
            weak var released: Note?
            do {
                let first = try #require(try note(connection))
                released = first
                #expect(try note(connection) === first)
            }
            #expect(released == nil)
            let misses = connection.cacheStatistics.objectMisses
            #expect(try note(connection)?.text == "one")
            #expect(connection.cacheStatistics.objectMisses == misses + 1)  // decoded anew
        }
    }

    @Test func theObjectCacheKeepsAnInstanceOnlyUntilItIsEvicted() throws {
        try withStore { db, _ in
            try db.write { txn in
                for key in ["n1", "n2", "n3"] { try txn.write(Note(id: key, text: key)) }
            }
            let connection = mappedConnection(db, objectCacheLimit: 2)
            weak var released: Note?
            do {
                released = try note(connection, "n1")
            }
            #expect(released != nil)  // the object cache holds it
            #expect(try note(connection, "n1") === released)
            _ = try note(connection, "n2")
            _ = try note(connection, "n3")  // evicts "n1" from the object cache
            #expect(released == nil)
        }
    }

    @Test func deadEntriesArePruned() throws {
        try withStore { db, _ in
            let count = 2_000
            try db.write { txn in
                for i in 0..<count { try txn.write(Note(id: "n\(i)", text: "\(i)")) }
            }
            let connection = mappedConnection(db)
            var held: [Note] = []
            for i in 0..<count {
                let loaded = try #require(try note(connection, "n\(i)"))
                if i % 10 == 0 { held.append(loaded) }
            }
            // At most twice the live instances after a sweep, plus the floor below which it never sweeps.
            let bound = max(IdentityMap.pruneFloor, 2 * held.count) + 1
            #expect(connection.core.cache.counts.identities < bound)
            #expect(connection.core.cache.counts.identities >= held.count)
            for (n, instance) in held.enumerated() {
                #expect(try note(connection, "n\(n * 10)") === instance)
            }
            held.removeAll()
            for i in 0..<count { _ = try note(connection, "n\(i)") }
            #expect(connection.core.cache.counts.identities < IdentityMap.pruneFloor)
        }
    }

    // MARK: Coherence

    @Test func aWriteOnAnotherConnectionEvicts() throws {
        try withStore { db, _ in
            try db.write { try $0.setObject(Tag(name: "red"), forKey: "t", inCollection: "tags") }
            let reader = mappedConnection(db)
            let tag = { try reader.read { try $0.object(forKey: "t", inCollection: "tags", as: Tag.self) } }
            let first = try #require(try tag())
            #expect(try tag() === first)
            try db.newConnection().write { try $0.setObject(Tag(name: "blue"), forKey: "t", inCollection: "tags") }
            let second = try #require(try tag())
            #expect(second !== first && second.name == "blue" && first.name == "red")
            #expect(try tag() === second)
            // A change to the metadata alone leaves the instance.
            _ = try db.write { try $0.replaceMetadata("note", forKey: "t", inCollection: "tags") }
            #expect(try tag() === second)
        }
    }

    @Test func aRefreshableInstanceIsRefreshedInPlaceAtItsNextLoad() throws {
        try withStore { db, _ in
            try db.write { try $0.write(Note(id: "n1", text: "one")) }
            let reader = mappedConnection(db)
            let writer = db.newConnection()
            let first = try #require(try note(reader))
            try writer.write { try $0.write(Note(id: "n1", text: "two")) }
            #expect(first.text == "one")  // refreshed at the next load, not at the commit
            #expect(try note(reader) === first)
            #expect(first.text == "two")
            #expect(reader.cacheStatistics.identityMapRefreshes == 1)
            // Touching counts as a change: refreshed again (to the same state).
            _ = try writer.write { try $0.touchObject(forKey: "n1", inCollection: "notes") }
            #expect(try note(reader) === first && reader.cacheStatistics.identityMapRefreshes == 2)
            // A removed object's instance is forgotten: what comes back later is a new object.
            _ = try writer.write { try $0.remove(Note.self, key: "n1") }
            #expect(try note(reader) == nil)
            try writer.write { try $0.write(Note(id: "n1", text: "three")) }
            let third = try #require(try note(reader))
            #expect(third !== first && third.text == "three" && first.text == "two")
        }
    }

    @Test func aRefreshableInstanceFollowsMetadataUnchanged() throws {
        try withStore { db, _ in
            try db.write { try $0.write(Note(id: "n1", text: "one"), metadata: 1) }
            let reader = mappedConnection(db)
            let first = try #require(try note(reader))
            _ = try db.write { try $0.replaceMetadata(2, forKey: "n1", inCollection: "notes") }
            #expect(try note(reader) === first)
            #expect(reader.cacheStatistics.identityMapRefreshes == 0)
        }
    }

    @Test func anotherProcessesWriteEvictsOrRefreshes() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable(), "larder-test-helper not found beside the test binary")
        func commitElsewhere(_ path: String, count: Int) throws {
            let run = try ProcessTestSupport.run(helper, ["commit", path, String(count), "1000"])
            #expect(run.status == 0, "helper failed: \(run.standardError)")
        }
        try withStore { db, directory in
            let connection = mappedConnection(db, objectCacheLimit: 10)  // write-through needs room
            let label = { try connection.read { try $0.object(forKey: "shared", inCollection: "external", as: Label.self) } }
            let written = Label(text: "mine")
            try connection.write { try $0.setObject(written, forKey: "shared", inCollection: "external") }
            #expect(try label() === written)

            try commitElsewhere(directory.file("store"), count: 1)  // "value-0"
            let replaced = try #require(try label())
            #expect(replaced !== written && replaced.text == "value-0" && written.text == "mine")
            #expect(connection.cacheStatistics.flushes == 0)  // learned from the log, not a reset

            let live = { try connection.read { try $0.object(forKey: "shared", inCollection: "external", as: LiveLabel.self) } }
            let refreshable = try #require(try live())
            #expect(refreshable !== replaced && refreshable.text == "value-0")
            try commitElsewhere(directory.file("store"), count: 2)  // "value-0", then "value-1"
            #expect(try live() === refreshable)
            #expect(refreshable.text == "value-1")
        }
    }

    @Test func aResetClearsTheMap() throws {
        var configuration = Database.Configuration()
        configuration.changeLogLimit = 2
        try withStore(configuration) { db, _ in
            try db.write { try $0.write(Note(id: "n1", text: "one")) }
            let reader = mappedConnection(db)
            let first = try #require(try note(reader))
            // More commits than the log keeps and than the process remembers, none of them to "n1".
            for i in 0..<(ChangeHub.recentLimit + 10) {
                try db.write { try $0.write(Note(id: "other", text: "\(i)")) }
            }
            let second = try #require(try note(reader))
            #expect(reader.cacheStatistics.flushes == 1)
            #expect(second !== first && second.text == "one")
            #expect(reader.cacheStatistics.identityMapRefreshes == 0)
        }
    }

    @Test func clearingACollectionOrEverythingForgetsItsInstances() throws {
        try withStore { db, _ in
            try db.write { txn in
                try txn.write(Note(id: "n1", text: "one"))
                try txn.setObject(Tag(name: "red"), forKey: "t", inCollection: "tags")
            }
            let reader = mappedConnection(db)
            let tag = { try reader.read { try $0.object(forKey: "t", inCollection: "tags", as: Tag.self) } }
            let firstNote = try #require(try note(reader))
            let firstTag = try #require(try tag())
            try db.write { txn in
                try txn.removeAllObjects(inCollection: "notes")
                try txn.write(Note(id: "n1", text: "again"))
            }
            let secondNote = try #require(try note(reader))
            #expect(secondNote !== firstNote && secondNote.text == "again")
            #expect(try tag() === firstTag)  // another collection: kept
            try db.write { txn in
                try txn.removeAllObjectsInAllCollections()
                try txn.setObject(Tag(name: "red"), forKey: "t", inCollection: "tags")
            }
            #expect(try tag() !== firstTag)
        }
    }

    // MARK: Snapshots and writes

    @Test func aPinnedOlderSnapshotDoesNotGetTheNewerInstance() throws {
        try withStore { db, _ in
            let connection = mappedConnection(db, objectCacheLimit: 10)
            let old = Note(id: "n1", text: "v1")
            try connection.write { try $0.write(old) }
            try connection.pinSnapshot()
            let newer = Note(id: "n1", text: "v2")
            try connection.write { try $0.write(newer) }  // moves the map past the pinned snapshot
            let pinned = try #require(try note(connection))
            #expect(pinned.text == "v1" && pinned !== newer && pinned !== old)
            #expect(newer.text == "v2")  // not refreshed backwards
            #expect(try note(connection) !== pinned)  // and the pinned read recorded nothing
            connection.unpinSnapshot()
            #expect(try note(connection) === newer)
        }
    }

    @Test func aPinnedOlderSnapshotSharesTheInstancesNoCommitChanged() throws {
        try withStore { db, _ in
            try db.write { txn in
                try txn.write(Note(id: "a", text: "a1"))
                try txn.write(Note(id: "b", text: "b1"))
            }
            let connection = mappedConnection(db, objectCacheLimit: 10)
            try connection.pinSnapshot()
            let a = try #require(try note(connection, "a"))
            let b = try #require(try note(connection, "b"))
            let newB = Note(id: "b", text: "b2")
            try connection.write { try $0.write(newB) }  // the map moves past the pinned snapshot
            #expect(try note(connection, "a") === a)  // unchanged since it was loaded
            let pinnedB = try #require(try note(connection, "b"))
            #expect(pinnedB !== newB && pinnedB.text == "b1" && newB.text == "b2")
            _ = try connection.advanceSnapshot()
            #expect(try note(connection, "a") === a)
            #expect(try note(connection, "b") === newB)
            withExtendedLifetime(b) {}
        }
    }

    @Test func aPinnedSnapshotKeepsItsInstanceUntilItAdvances() throws {
        try withStore { db, _ in
            try db.write { try $0.write(Note(id: "n1", text: "one")) }
            let reader = mappedConnection(db)
            try reader.pinSnapshot()
            let first = try #require(try note(reader))
            try db.newConnection().write { try $0.write(Note(id: "n1", text: "two")) }
            #expect(try note(reader) === first && first.text == "one")
            let skipped = try reader.advanceSnapshot()
            #expect(skipped.count == 1)
            #expect(try note(reader) === first && first.text == "two")
        }
    }

    @Test func writeThroughReturnsTheWrittenInstance() throws {
        try withStore { db, _ in
            let connection = mappedConnection(db, objectCacheLimit: 10)
            let written = Note(id: "n1", text: "one")
            try connection.write { try $0.write(written) }
            #expect(try note(connection) === written)
            // The usual pattern: load, change, write back; every holder has the one instance.
            let loaded = try #require(try note(connection))
            loaded.text = "changed"
            try connection.write { try $0.write(loaded) }
            #expect(try note(connection) === written && written.text == "changed")
            // Writing another instance for the index makes it the one loads return.
            let replacement = Note(id: "n1", text: "replacement")
            try connection.write { try $0.write(replacement) }
            #expect(try note(connection) === replacement)
            #expect(connection.cacheStatistics.objectMisses == 0)
        }
    }

    @Test func aWriteReadsItsOwnChangesNotTheMap() throws {
        try withStore { db, _ in
            try db.write { try $0.write(Note(id: "n1", text: "one")) }
            let connection = mappedConnection(db, objectCacheLimit: 10)
            let first = try #require(try note(connection))
            try connection.write { txn in
                try txn.write(Note(id: "n1", text: "two"))
                let inside = try #require(try txn.read(Note.self, key: "n1"))
                #expect(inside !== first && inside.text == "two")
            }
            #expect(first.text == "one")
            // The written instance wins; the first is no longer the index's.
            #expect(try note(connection)?.text == "two")
            #expect(try note(connection) !== first)
        }
    }

    @Test func abandonedWritesLeaveTheMapAlone() throws {
        struct Failure: Error {}
        try withStore { db, _ in
            try db.write { try $0.write(Note(id: "n1", text: "one")) }
            let connection = mappedConnection(db, objectCacheLimit: 10)
            let first = try #require(try note(connection))
            #expect(throws: Failure.self) {
                try connection.write { txn in
                    try txn.write(Note(id: "n1", text: "two"))
                    throw Failure()
                }
            }
            #expect(try note(connection) === first && first.text == "one")
        }
    }

    // MARK: Threads

    @Test func threadsOfOneConnectionShareOneInstanceAcrossCommits() throws {
        try withStore { db, _ in
            try db.write { try $0.setObject(SharedCount(0), forKey: "n", inCollection: "counts") }
            let connection = mappedConnection(db)
            let load: @Sendable () throws -> SharedCount? = {
                try connection.read { try $0.object(forKey: "n", inCollection: "counts", as: SharedCount.self) }
            }
            let held = try #require(try load())
            let full = ProcessInfo.processInfo.environment["LARDER_FULL"] != nil
            let last = full ? 3_000 : 200
            let loadedBackwards = Atomic<Int>(0)
            let heldBackwards = Atomic<Int>(0)
            let timedOut = Atomic<Int>(0)
            let reader: @Sendable () -> Void = {
                var seen = 0
                var heldSeen = 0
                let deadline = ContinuousClock.now + .seconds(60)  // a stale read would loop forever
                while seen < last {
                    if ContinuousClock.now > deadline {
                        timedOut.add(1, ordering: .relaxed)
                        return
                    }
                    // A read that began before another thread moved the connection to a newer
                    // commit may get an instance of its own for its snapshot; either way, neither
                    // what it loads nor the shared instance ever goes back.
                    let loaded = try! load()!
                    let loadedValue = loaded.value, heldValue = held.value
                    if loadedValue < seen { loadedBackwards.add(1, ordering: .relaxed) }
                    if heldValue < heldSeen { heldBackwards.add(1, ordering: .relaxed) }
                    seen = loadedValue
                    heldSeen = heldValue
                }
            }
            ProcessTestSupport.runOnThreads([
                {
                    let writer = db.newConnection()
                    for i in 1...last { try! writer.write { try $0.setObject(SharedCount(i), forKey: "n", inCollection: "counts") } }
                },
                reader, reader, reader,
            ] + (full ? [reader, reader, reader] : []))
            #expect(loadedBackwards.load(ordering: .acquiring) == 0)
            #expect(heldBackwards.load(ordering: .acquiring) == 0)
            #expect(timedOut.load(ordering: .acquiring) == 0)
            #expect(try load() === held && held.value == last)
        }
    }

    // MARK: Misuse

    @Test func aRefreshThatUsesItsConnectionStops() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = TemporaryDirectory()
            let db = try! Database(path: directory.file("store"))
            try! db.write { try $0.setObject(IdentityMapReentrant(value: 1), forKey: "r", inCollection: "reentrant") }
            let connection = db.newConnection()
            connection.keepsIdentityMap = true
            IdentityMapReentrant.connection.withLock { $0 = connection }
            let first = try! connection.read { try $0.object(forKey: "r", inCollection: "reentrant", as: IdentityMapReentrant.self) }
            try! db.write { try $0.setObject(IdentityMapReentrant(value: 2), forKey: "r", inCollection: "reentrant") }
            _ = try! connection.read { try $0.object(forKey: "r", inCollection: "reentrant", as: IdentityMapReentrant.self) }
            withExtendedLifetime(first) {}
        }
        guard let result else { return }
        let standardError = String(decoding: result.standardErrorContent, as: UTF8.self)
        guard case .signal = result.exitStatus else {
            Issue.record("the child exited with \(result.exitStatus) instead of stopping: \(standardError)")
            return
        }
        #if DEBUG
        #expect(standardError.contains("Larder misuse: IdentityRefreshable.refresh(from:) used the connection"), "stderr: \(standardError)")
        #endif
    }

    // The guide's example (Documentation/ObjectGraphs.md, "Identity maps for classes") runs in
    // Samples/ObjectGraphsSamples.swift.
}

/// A refreshable class whose refresh misuses the connection that loads it.
final class IdentityMapReentrant: Codable, IdentityRefreshable {
    static let connection = LockedBox<Connection?>(nil)
    var value: Int
    init(value: Int) { self.value = value }
    func refresh(from newer: IdentityMapReentrant) {
        value = newer.value
        let connection = Self.connection.withLock { $0 }
        _ = try? connection?.read { _ in 0 }
    }
}
