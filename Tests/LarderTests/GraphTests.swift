import Foundation
import Synchronization
import Testing
@testable import Larder

struct Circle: Codable, Persistable, Equatable, Sendable {
    static let collection = "circles"
    var id: String
    var radius: Double
}

struct Venn: Codable, Persistable, Equatable, Sendable {
    static let collection = "diagrams"
    var id: String
    var left: Ref<Circle>
    var right: Ref<Circle>
}

/// References between values, and single persistent values.
@Suite("References and single values")
struct GraphTests {
    @Test func aVennDiagramResolvesItsCirclesLazily() throws {
        try withStore { db, _ in
            let a = Circle(id: "a", radius: 1), b = Circle(id: "b", radius: 2)
            let venn = Venn(id: "v", left: Ref(a), right: Ref(id: "b"))
            try db.write { txn in
                try txn.write(a)
                try txn.write(b)
                try txn.write(venn)
            }
            // The diagram stores the keys only.
            let stored = try #require(try db.read { try $0.storedObject(forKey: "v", inCollection: "diagrams") })
            let map = try MessagePackDecoder().decode([String: String].self, from: stored.bytes)
            #expect(map == ["id": "v", "left": "a", "right": "b"])

            let loaded = try #require(try db.read { try $0.read(Venn.self, key: "v") })
            #expect(loaded == venn)
            #expect(try db.read { try $0.resolve(loaded.left) } == a)
            #expect(try db.read { try $0.resolve(loaded.right) } == b)
            #expect(loaded.right.index == YapDB.Index(collection: "circles", key: "b"))

            _ = try db.write { try $0.remove(b) }
            #expect(try db.read { try $0.resolve(loaded.right) } == nil)  // gone: nil, not an error
            #expect(try db.read { try $0.exists(loaded.left) && !$0.exists(loaded.right) })
            #expect(throws: LarderError.self) { try db.read { try $0.resolve(Ref<Circle>(key: "")) } }
        }
    }

    @Test func namedRootsNameEntryPoints() throws {
        try withStore { db, _ in
            let a = Circle(id: "a", radius: 1)
            try db.write { txn in
                try txn.write(a)
                try txn.write(Venn(id: "v", left: Ref(a), right: Ref(a)))
                try txn.setRoot(Ref<Venn>(id: "v"), named: "main")
                try txn.setRoot(Ref(a), named: "favourite circle")
            }
            try db.read { txn in
                let main = try #require(try txn.root(named: "main", as: Venn.self))
                #expect(try txn.resolve(main)?.left == Ref(a))
                #expect(try txn.rootIndex(named: "favourite circle") == a.index)
                #expect(try txn.rootNames() == ["favourite circle", "main"])
                #expect(try txn.root(named: "nothing", as: Venn.self) == nil)
                let error = #expect(throws: LarderError.self) { try txn.root(named: "main", as: Circle.self) }
                #expect(error?.code == .decodingFailed)
            }
            try db.write { txn in
                try txn.setRoot(Ref(a), named: "main")  // replaced
                #expect(try txn.removeRoot(named: "favourite circle"))
                #expect(try !txn.removeRoot(named: "favourite circle"))
            }
            #expect(try db.read { try $0.rootNames() } == ["main"])
            #expect(try db.read { try $0.root(named: "main", as: Circle.self) } == Ref(a))
            #expect(throws: LarderError.self) { try db.write { try $0.setRoot(Ref(a), named: "") } }
        }
    }

    @Test func aPersistentValueReadsUpdatesAndResets() throws {
        try withStore { db, _ in
            let launches = try Persistent(db, key: "launches", default: 0)
            #expect(try launches.value == 0)
            #expect(try launches.update { $0 += 1 } == 1)
            try launches.update { $0 += 1 }
            #expect(try launches.value == 2)
            struct Failure: Error {}
            #expect(throws: Failure.self) { try launches.update { $0 = 99; throw Failure() } }
            #expect(try launches.value == 2)  // nothing stored by the failed update
            try launches.set(40)
            #expect(try Persistent(db, key: "launches", default: 0).value == 40)
            try launches.reset()
            #expect(try launches.value == 0)
            #expect(throws: LarderError.self) { try Persistent(db, key: "", default: 0) }
        }
    }

    @Test func concurrentUpdatesAreNeverLost() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let counter = try Persistent(db, key: "counter", default: 0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<25 { try! counter.update { $0 += 1 } } }
            }
        }
        #expect(try counter.value == 200)
    }

    @Test func changesElsewhereAreObserved() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let theme = try Persistent(db, key: "theme", default: "light")
        var values = theme.values().makeAsyncIterator()
        #expect(try await values.next() == "light")
        try await db.newConnection().write { try $0.setObject("dark", forKey: "theme", inCollection: Persistent<String>.defaultCollection) }
        #expect(try await values.next() == "dark")

        let seen = LockedBox<[String]>([])
        let handle = theme.onChange { value in seen.withLock { $0.append(value) } }
        #expect(await eventually { seen.withLock { $0 } == ["dark"] })
        try theme.set("sepia")
        #expect(await eventually { seen.withLock { $0 } == ["dark", "sepia"] })
        handle.cancel()
        #expect(await eventually { db.observerCount == 1 })  // only `values` is left
    }

    @Test func aPersistentValueBoundToARootFollowsTheRoot() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let none = Circle(id: "none", radius: 0)
        let current = try Persistent(db, root: "current", default: none)
        #expect(current.index == nil && current.rootName == "current")
        #expect(try current.value == none)
        var values = current.values().makeAsyncIterator()
        #expect(try await values.next() == none)

        let a = Circle(id: "a", radius: 1), b = Circle(id: "b", radius: 2)
        try current.set(a)
        #expect(try await db.read { try $0.root(named: "current", as: Circle.self) } == Ref(a))
        #expect(try await values.next() == a)
        #expect(try current.update { $0.radius = 5 } == Circle(id: "a", radius: 5))
        #expect(try await values.next() == Circle(id: "a", radius: 5))

        // Another connection changes the value the root names, then moves the root.
        try await db.newConnection().write { try $0.write(Circle(id: "a", radius: 6)) }
        #expect(try await values.next() == Circle(id: "a", radius: 6))
        try await db.newConnection().write { txn in
            try txn.write(b)
            try txn.setRoot(Ref(b), named: "current")
        }
        #expect(try await values.next() == b)
        // A change to the value the root named before is not a change of this one.
        try await db.newConnection().write { try $0.write(Circle(id: "a", radius: 7)) }
        try current.update { $0.radius = 3 }
        #expect(try await values.next() == Circle(id: "b", radius: 3))

        try current.reset()
        #expect(try current.value == none)
        #expect(try await db.read { try $0.read(Circle.self, key: "b") } == Circle(id: "b", radius: 3))  // the value stays
        #expect(try await values.next() == none)
        #expect(throws: LarderError.self) { try Persistent(db, root: "", default: none) }
    }

    @Test func twoProcessesShareAPersistentValue() async throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        let shared = try Persistent(db, key: "shared", default: 0)
        var values = shared.values().makeAsyncIterator()
        #expect(try await values.next() == 0)
        let run = try ProcessTestSupport.run(helper, ["persistent-set", path, "shared", "42"])
        #expect(run.status == 0 && run.standardOutput == "42\n", "\(run.standardError)")
        db.checkForExternalChanges()
        #expect(try await values.next() == 42)
        #expect(try shared.update { $0 += 1 } == 43)
    }
}
