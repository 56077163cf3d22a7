import Testing
import Larder

/// Documentation/UndoAndHistory.md.
@Suite("Samples: Undo and history")
struct UndoAndHistorySamples: SampleSuite {
    let environment = SampleEnvironment()

    struct Product: Codable, Sendable, Persistable {
        static let collection = "products"
        var id: String
        var name: String
        var price: Double
    }

    @Test func undoAndRedo() throws {
        let db = try sampleStore()
        try db.write { try $0.write(Product(id: "p1", name: "Hammer", price: 10)) }

        try db.write(undoable: "Rename product") { txn in
            try txn.write(Product(id: "p1", name: "Claw hammer", price: 10))
        }
        let name = try db.undoName  // "Rename product"
        try db.undo()              // the old name is back: a new commit, seen by observers and caches
        let undone = try db.read { try $0.read(Product.self, key: "p1") }
        try db.redo()              // and the new one again

        #expect(name == "Rename product")
        #expect(undone?.name == "Hammer")
        #expect(try db.read { try $0.read(Product.self, key: "p1") }?.name == "Claw hammer")
    }

    @Test func whichCommitsUndidOrRedid() async throws {
        let db = try sampleStore()
        try await db.write(undoable: "Rename product") { try $0.write(Product(id: "p1", name: "Claw hammer", price: 10)) }
        let listener = Task {
            for await changes in db.changes() {
                for action in changes.undoActions {
                    print("\(action.kind) of “\(action.stepName)” (step \(action.stepID))")
                }
            }
        }
        // The stream sees commits from the moment the task subscribed: go back and forth until it has.
        for attempt in 0..<200 where !environment.printed.contains(where: { $0.contains("of “Rename product”") }) {
            try await db.write { txn in _ = try (attempt % 2 == 0 ? txn.undo() : txn.redo()) }
            try await Task.sleep(for: .milliseconds(20))
        }
        listener.cancel()
        let step = try #require(try db.undoHistory().undoable.first ?? db.undoHistory().redoable.first)
        #expect(environment.printed.contains { $0 == "undo of “Rename product” (step \(step.id))" || $0 == "redo of “Rename product” (step \(step.id))" })
    }

    @Test func undoAndRedoFromAsynchronousCode() async throws {
        let db = try sampleStore()
        try await db.write(undoable: "Add") { try $0.write(Product(id: "p1", name: "Hammer", price: 10)) }

        let step = try await db.write { try $0.undo() }   // the UndoStep undone, nil when none
        _ = try await db.write { try $0.redo() }

        #expect(step?.name == "Add")
        #expect(try db.read(Product.self, key: "p1")?.name == "Hammer")
    }

    @Test func readingTheHistory() throws {
        let db = try sampleStore()
        try db.write(undoable: "Add") { try $0.write(Product(id: "p1", name: "Hammer", price: 10)) }
        try db.write(undoable: "Rename") { try $0.write(Product(id: "p1", name: "Claw hammer", price: 10)) }
        try db.undo()

        let history = try db.undoHistory()
        let undoable = history.undoable   // [UndoStep], oldest first: undo() reverts the last
        let redoable = history.redoable   // [UndoStep], next first: redo() re-applies the first
        let (canUndo, canRedo) = (try db.canUndo, try db.canRedo)   // and undoName, redoName

        #expect(undoable.map(\.name) == ["Add"])
        #expect(redoable.map(\.name) == ["Rename"])
        #expect(canUndo && canRedo)
    }

    @Test func severalWritesInOneStep() throws {
        let db = try sampleStore()
        let batches = [[Product(id: "p1", name: "Hammer", price: 10)],
                       [Product(id: "p2", name: "Saw", price: 20), Product(id: "p3", name: "Drill", price: 80)]]

        try db.undoGroup(named: "Import") {
            for batch in batches {
                try db.write(undoable: "Import batch") { try $0.write(batch) }
            }
        }
        try db.undo()   // the whole import

        #expect(try db.read { try $0.numberOfKeys(inCollection: "products") } == 0)
    }
}
