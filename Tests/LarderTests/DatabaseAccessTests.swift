import Foundation
import Testing
@testable import Larder

/// Renames a product through any ``DatabaseAccess``: the conveniences are written once, for
/// `Database` and `Connection` alike.
private func rename(_ id: String, to name: String, in store: some DatabaseAccess) throws {
    try store.write(undoable: "Rename") { txn in
        guard var product = try txn.read(Product.self, key: id) else { return }
        product.name = name
        try txn.write(product)
    }
}

@Suite("One access protocol (DatabaseAccess)")
struct DatabaseAccessTests {
    @Test func databaseAndConnectionShareEveryConvenience() throws {
        try withStore { db, _ in
            let connection = db.newConnection()
            for (store, name) in [(db as any DatabaseAccess, "from the database"), (connection, "from a connection")] {
                try store.write(Product(id: "p1", name: "Hammer", price: 10))
                try rename("p1", to: name, in: store)
                #expect(try store.read(Product.self, key: "p1")?.name == name)
                #expect(try store.undoName == "Rename" && store.canUndo)
                #expect(try store.undo()?.name == "Rename")
                #expect(try store.read(Product.self, key: "p1")?.name == "Hammer")
                #expect(try store.redo()?.name == "Rename")
                #expect(try store.readAll(Product.self).map(\.name) == [name])
                #expect(try store.remove(Product(id: "p1", name: "", price: 0)) == 1)
                #expect(store.database === db)
            }
            // One history for the store, whichever side wrote the step.
            #expect(try db.undoHistory() == connection.undoHistory())
        }
    }

    /// The synchronous `undo()`, `redo()` and `Persistent` calls keep compiling without `await`
    /// in an `async` function (no `async` overload of the same name captures them), and the
    /// asynchronous forms run through the writer thread's grouped writes.
    @Test func undoRedoAndPersistentFromSeveralTasks() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let counter = try Persistent(db, key: "counter", default: 0)

        // Ten undoable writes from ten tasks, then every one undone and redone from other tasks.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<10 {
                group.addTask { try await db.write(undoable: "Add \(i)") { try $0.write(Product(id: "p\(i)", name: "n\(i)", price: Double(i))) } }
            }
            try await group.waitForAll()
        }
        #expect(try db.undoHistory().undoable.count == 10)
        let undone = try await withThrowingTaskGroup(of: UndoStep?.self) { group in
            for _ in 0..<10 { group.addTask { try await db.write { try $0.undo() } } }
            return try await group.reduce(into: [UndoStep]()) { if let step = $1 { $0.append(step) } }
        }
        #expect(Set(undone.map(\.id)).count == 10)
        #expect(try db.readAll(Product.self).isEmpty)
        #expect(try await db.write { try $0.undo() } == nil)
        let redone = try await withThrowingTaskGroup(of: UndoStep?.self) { group in
            for _ in 0..<10 { group.addTask { try await db.newConnection().write { try $0.redo() } } }
            return try await group.reduce(into: [UndoStep]()) { if let step = $1 { $0.append(step) } }
        }
        #expect(Set(redone.map(\.id)) == Set(undone.map(\.id)))
        #expect(try db.readAll(Product.self).count == 10)

        // The synchronous forms, called from this async function without `await`.
        #expect(try db.undo() != nil)
        #expect(try db.redo() != nil)
        try counter.set(1)
        #expect(try counter.update { $0 += 1 } == 2)

        // Persistent from several tasks: updates on the writer thread are never lost.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<25 { _ = try await db.write { try counter.update(in: $0) { $0 += 1 } } } }
            }
            try await group.waitForAll()
        }
        #expect(try counter.value == 202)
        #expect(try await db.read { try counter.value(in: $0) } == 202)
        try await db.write { try counter.set(7, in: $0) }
        #expect(try counter.value == 7)
        try await db.write { try counter.reset(in: $0) }
        #expect(try counter.value == 0)
        #expect(try await db.read { try $0.hasObject(forKey: "counter", inCollection: Persistent<Int>.defaultCollection) } == false)
    }

    /// An undo inside a grouped write that throws is rolled back with it: the step stays undoable.
    @Test func anUndoRolledBackWithItsWriteChangesNothing() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        try await db.write(undoable: "Add") { try $0.write(Product(id: "p1", name: "Hammer", price: 10)) }
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await db.write { txn in
                _ = try txn.undo()
                throw Refused()
            }
        }
        #expect(try db.read(Product.self, key: "p1") != nil)
        #expect(try db.undoName == "Add")
    }

    /// A persistent value belongs to its store: writing it in another store's transaction stops.
    @Test func aPersistentValueWrittenInAnotherStoreStops() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store"), other = directory.file("other")
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String, other = other as String] in
            stoppingChild {
                let db = try Database(path: path)
                let counter = try Persistent(db, key: "counter", default: 0)
                try Database(path: other).write { try counter.set(1, in: $0) }
            }
        }
        expectStop(result, message: "Persistent value was written in a transaction of another store")
    }

    /// An undo cannot be recorded as a step of its own: undo() inside an undoable write stops.
    @Test func undoInsideAnUndoableWriteStops() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            stoppingChild {
                let db = try Database(path: path)
                try db.write(undoable: "Add") { try $0.write(Product(id: "p1", name: "Hammer", price: 10)) }
                try db.write(undoable: "Undo") { _ = try $0.undo() }
            }
        }
        expectStop(result, message: "undo() or redo() was called inside an undoable write")
    }
}

/// Runs a misuse in an exit test's child: a throw or no stop at all exits with status 4.
private func stoppingChild(_ body: () throws -> Void) {
    do {
        try body()
        FileHandle.standardError.write(Data("the misuse did not stop the process\n".utf8))
    } catch {
        FileHandle.standardError.write(Data("threw instead of stopping: \(error)\n".utf8))
    }
    exit(4)
}

private func expectStop(_ result: ExitTest.Result?, message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let result else { return }  // #expect already recorded the wrong exit
    let standardError = String(decoding: result.standardErrorContent, as: UTF8.self)
    guard case .signal = result.exitStatus else {
        Issue.record("the child exited with \(result.exitStatus) instead of stopping on a precondition: \(standardError)", sourceLocation: sourceLocation)
        return
    }
    #expect(standardError.contains(message), "\(standardError)", sourceLocation: sourceLocation)
}

@Suite("Relationship writes (txn[handle] in a write)")
struct RelationshipsWriterTests {
    static let graph = Relationships(versionTag: "1").edges(from: Doc.self) { doc in doc.pages.map { .init("pages", to: $0) } }

    @Test func writesAndReadsGoThroughTheSameSubscript() throws {
        try withStore { db, _ in
            let graph = try db.register(Self.graph, named: "graph")
            let a = DocPage(id: "a", layers: []), b = DocPage(id: "b", layers: [])
            try db.write { txn in
                try txn.write(a)
                try txn.write(b)
                let edges = try txn[graph]
                try edges.addEdge("linksTo", from: a.index, to: b.index, rules: .notifyDestination)
                // The writer's queries see the transaction's own edge.
                #expect(try edges.edges(from: a).map(\.destination) == [b.index])
                #expect(try edges.edges(to: b.index, named: "linksTo").map(\.rules) == [.notifyDestination])
                #expect(try edges.edgeCount(from: a.index) == 1 && edges.edgeCount(to: b.index) == 1)
            }
            // A read transaction still gets a reader.
            let reader: RelationshipsReader = try db.read { try $0[graph] }
            _ = reader
            #expect(try db.read { try $0[graph].edgeCount(to: b.index, named: "linksTo") } == 1)
            #expect(try db.write { try $0[graph].removeEdge("linksTo", from: a.index, to: b.index) })
            #expect(try db.read { try $0[graph].edgeCount(from: a.index) } == 0)
            #expect(try db.write { try $0[graph].removeEdge("linksTo", from: a.index, to: b.index) } == false)
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    /// The 0.1 methods still work for one release, as deprecated forwarders.
    @available(*, deprecated, message: "exercises the deprecated forwarders")
    @Test func theDeprecatedWriteMethodsForward() throws {
        try withStore { db, _ in
            let graph = try db.register(Self.graph, named: "graph")
            let a = DocPage(id: "a", layers: []), b = DocPage(id: "b", layers: [])
            try db.write { txn in
                try txn.write(a)
                try txn.addEdge("linksTo", from: a.index, to: b.index, in: graph)
            }
            #expect(try db.read { try $0[graph].edges(from: a.index).map(\.isManual) } == [true])
            #expect(try db.write { try $0.removeEdge("linksTo", from: a.index, to: b.index, in: graph) })
            #expect(try db.write { try $0.collectGarbage(in: graph) } == [])
            #expect(throws: LarderError.self) {
                try db.write { try $0.addEdge("x", from: a.index, to: b.index, in: RelationshipsHandle(name: "missing")) }
            }
        }
    }
}

/// Code written against 0.1 keeps compiling against the built module: the shared protocol adds
/// no overload that captures an existing call, and the old relationship write methods only warn.
@Suite("DatabaseAccess: existing code compiles")
struct DatabaseAccessCompatibilityTests {
    @Test(.enabled(if: TopLevelAwaitTests.compiler != nil && TopLevelAwaitTests.modules != nil, "needs swiftc and the built Larder module"))
    func existingCallsKeepTheirMeaning() throws {
        let diagnostics = try TopLevelAwaitTests.typeCheck("""
            import Larder
            struct Item: Codable, Sendable, Persistable { static let collection = "items"; var id: String }
            func run(_ db: Database, _ graph: RelationshipsHandle) async throws -> Int {
                let connection = db.newConnection()
                try db.undo()                       // synchronous, no await, in an async function
                try await connection.write(undoable: "Add") { try $0.write(Item(id: "a")) }
                try connection.redo()               // new on a connection, synchronous too
                let count = try await connection.read { try $0.numberOfKeys(inCollection: "items") }
                let names = try await db.write { txn in try txn.readAll(Item.self).map(\\.id) }
                try await db.write { txn in
                    try txn.addEdge("x", from: Item.index(forKey: "a"), to: Item.index(forKey: "b"), in: graph)
                    _ = try txn[graph].edges(from: Item.index(forKey: "a"))
                }
                return count + names.count
            }
            """)
        #expect(!diagnostics.contains("error:"), "\(diagnostics)")
        #expect(!diagnostics.contains(TopLevelAwaitTests.warning), "\(diagnostics)")
        #expect(diagnostics.contains("'addEdge(_:from:to:rules:in:)' is deprecated") && diagnostics.contains("txn[handle].addEdge"), "\(diagnostics)")
    }
}
