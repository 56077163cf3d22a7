import Foundation
import Testing
@testable import Larder

/// Everything stored: every object and metadata value, as stored bytes, by index.
func storeContents(_ db: Database) throws -> [YapDB.Index: [[UInt8]?]] {
    try db.read { txn in
        var contents: [YapDB.Index: [[UInt8]?]] = [:]
        var indexes: [YapDB.Index] = []
        try txn.enumerateKeysInAllCollections { index, _ in indexes.append(index) }
        for index in indexes {
            let object = try txn.storedObject(forKey: index.key, inCollection: index.collection)
            let metadata = try txn.storedMetadata(forKey: index.key, inCollection: index.collection)
            contents[index] = [object.map { [$0.format.rawValue] + $0.bytes }, metadata.map { [$0.format.rawValue] + $0.bytes }]
        }
        return contents
    }
}

@Suite("Undo and redo")
struct UndoTests {
    @Test func undoAndRedoARename() throws {
        try withStore { db, _ in
            try db.write { try $0.write(Product(id: "p1", name: "Hammer", price: 10)) }
            #expect(try !db.canUndo && !db.canRedo && db.undoName == nil)

            try db.write(undoable: "Rename product") { try $0.write(Product(id: "p1", name: "Claw hammer", price: 10)) }
            #expect(try db.canUndo && !db.canRedo)
            #expect(try db.undoName == "Rename product")

            let undone = try #require(try db.undo())
            #expect(undone.name == "Rename product" && undone.indexes == [Product.index(forKey: "p1")])
            #expect(try db.read { try $0.read(Product.self, key: "p1")?.name } == "Hammer")
            #expect(try !db.canUndo && db.canRedo && db.redoName == "Rename product")

            #expect(try db.redo()?.name == "Rename product")
            #expect(try db.read { try $0.read(Product.self, key: "p1")?.name } == "Claw hammer")
            #expect(try db.redo() == nil)
            #expect(try db.undo() != nil)
            #expect(try db.undo() == nil)  // nothing older: the first write was not undoable
            #expect(try db.read { try $0.read(Product.self, key: "p1")?.name } == "Hammer")
        }
    }

    @Test func insertsRemovalsAndMetadataAreUndoneExactly() throws {
        try withStore { db, _ in
            try db.write { txn in
                try txn.setObject(Product(id: "a", name: "A", price: 1), forKey: "a", inCollection: "products", metadata: ProductInfo(stock: 1, updated: Date(timeIntervalSince1970: 1)))
                try txn.write(Product(id: "b", name: "B", price: 2))
            }
            let before = try storeContents(db)
            try db.write(undoable: "Mixed") { txn in
                try txn.write(Product(id: "c", name: "C", price: 3))                       // insert
                _ = try txn.remove(Product.self, key: "b")                                  // remove
                _ = try txn.replaceMetadata(ProductInfo(stock: 7, updated: Date(timeIntervalSince1970: 7)), forKey: "a", inCollection: "products")  // metadata only
                try txn.setObject("a string", forKey: "s", inCollection: "other")
            }
            let after = try storeContents(db)
            try db.undo()
            #expect(try storeContents(db) == before)
            #expect(try db.read { try $0.numberOfKeys(inCollection: "products") } == 2)
            #expect(try db.read { try $0.numberOfKeys(inCollection: "other") } == 0)
            try db.redo()
            #expect(try storeContents(db) == after)
            #expect(try db.read { try $0.numberOfKeys(inCollection: "products") } == 2)
        }
    }

    @Test func aNewStepDropsTheRedoStepsAndEmptyWritesRecordNothing() throws {
        try withStore { db, _ in
            try db.write(undoable: "One") { try $0.write(Product(id: "p", name: "1", price: 1)) }
            try db.write(undoable: "Two") { try $0.write(Product(id: "p", name: "2", price: 1)) }
            try db.undo()
            #expect(try db.redoName == "Two")
            try db.write(undoable: "Three") { try $0.write(Product(id: "p", name: "3", price: 1)) }
            #expect(try !db.canRedo)
            #expect(try db.undoHistory().undoable.map(\.name) == ["One", "Three"])

            // Writing the bytes already stored, or nothing at all, records no step.
            try db.write(undoable: "Same again") { try $0.write(Product(id: "p", name: "3", price: 1)) }
            try db.write(undoable: "Nothing") { _ in }
            try db.write(undoable: "Back and forth") { txn in
                try txn.write(Product(id: "q", name: "temporary", price: 0))
                _ = try txn.remove(Product.self, key: "q")
            }
            #expect(try db.undoHistory().undoable.map(\.name) == ["One", "Three"])
            // A failed undoable write records nothing either.
            #expect(throws: LarderError.self) {
                try db.write(undoable: "Fails") { txn in
                    try txn.write(Product(id: "r", name: "r", price: 0))
                    try txn.write(Product(id: "", name: "no key", price: 0))
                }
            }
            #expect(try db.undoHistory().undoable.map(\.name) == ["One", "Three"])
        }
    }

    @Test func theNumberOfStepsIsBounded() throws {
        let directory = TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.undoLimit = 3
        let db = try Database(path: directory.file("store"), configuration: configuration)
        for n in 1...5 {
            try db.write(undoable: "Step \(n)") { try $0.write(Product(id: "p", name: "\(n)", price: 1)) }
        }
        #expect(try db.undoHistory().undoable.map(\.name) == ["Step 3", "Step 4", "Step 5"])
        for _ in 0..<3 { try db.undo() }
        #expect(try db.undo() == nil)
        #expect(try db.read { try $0.read(Product.self, key: "p")?.name } == "2")
        #expect(throws: LarderError.self) {
            var bad = Database.Configuration()
            bad.undoLimit = -1
            _ = try Database(path: directory.file("other"), configuration: bad)
        }
    }

    /// The asynchronous group runs its body on the caller's actor: main-actor code groups its
    /// writes and keeps mutating its own state (this did not compile: the body was sent away).
    @MainActor @Test func anAsyncGroupFromTheMainActor() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        var written: [String] = []
        try await db.undoGroup(named: "Import") {
            for n in 0..<2 {
                try await db.write(undoable: "Batch") { try $0.write(Product(id: "m\(n)", name: "main", price: 1)) }
                written.append("m\(n)")
            }
        }
        #expect(written == ["m0", "m1"])
        #expect(try db.undoHistory().undoable.map(\.name) == ["Import"])
        try db.undo()
        #expect(try await db.read { try $0.numberOfKeys(inCollection: "products") } == 0)
    }

    @Test func groupedWritesAreOneStep() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        try db.undoGroup(named: "Import") {
            for n in 0..<3 {
                try db.write(undoable: "Batch \(n)") { try $0.write(Product(id: "p\(n)", name: "imported", price: Double(n))) }
            }
            // A nested group joins the outer one; so does another connection.
            try db.undoGroup(named: "Inner") {
                try db.newConnection().write(undoable: "Fix") { try $0.write(Product(id: "p0", name: "fixed", price: 0)) }
            }
        }
        #expect(try db.undoHistory().undoable.map(\.name) == ["Import"])
        #expect(try db.undoHistory().undoable.first?.indexes.count == 3)
        try db.undo()
        #expect(try await db.read { try $0.numberOfKeys(inCollection: "products") } == 0)
        try db.redo()
        #expect(try await db.read { try $0.read(Product.self, key: "p0")?.name } == "fixed")

        // From async code, with group-committed writes.
        try await db.undoGroup(named: "Async import") {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for n in 3..<6 {
                    tasks.addTask { try await db.write(undoable: "Batch") { try $0.write(Product(id: "p\(n)", name: "async", price: 1)) } }
                }
                try await tasks.waitForAll()
            }
        }
        #expect(try db.undoHistory().undoable.map(\.name) == ["Import", "Async import"])
        try db.undo()
        #expect(try await db.read { try $0.numberOfKeys(inCollection: "products") } == 3)
    }

    @Test func concurrentAsyncUndoableWritesAreSeparateSteps() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for n in 0..<8 {
                tasks.addTask { try await db.write(undoable: "Write \(n)") { try $0.write(Product(id: "p\(n)", name: "n", price: 1)) } }
            }
            try await tasks.waitForAll()
        }
        #expect(try db.undoHistory().undoable.count == 8)
        for _ in 0..<8 { try db.undo() }
        #expect(try await db.read { try $0.numberOfKeys(inCollection: "products") } == 0)
    }

    @Test func anUndoOverNewerDataIsRefused() throws {
        try withStore { db, _ in
            try db.write(undoable: "Set price") { try $0.write(Product(id: "p", name: "P", price: 5)) }
            try db.write { try $0.write(Product(id: "p", name: "P", price: 6)) }  // not undoable
            let contents = try storeContents(db)
            let error = #expect(throws: LarderError.self) { try db.undo() }
            #expect(error?.code == .undoConflict)
            #expect(error?.index == Product.index(forKey: "p"))
            #expect(try storeContents(db) == contents)  // nothing changed
            #expect(try db.canUndo)                     // the step stays
            try db.clearUndoHistory()
            #expect(try !db.canUndo && !db.canRedo)

            // Redo is refused the same way.
            try db.write(undoable: "Rename") { try $0.write(Product(id: "p", name: "Q", price: 6)) }
            try db.undo()
            try db.write { txn in _ = try txn.replaceMetadata("note", forKey: "p", inCollection: "products") }
            #expect(throws: LarderError.self) { try db.redo() }
            #expect(try db.read { try $0.read(Product.self, key: "p")?.name } == "P")
        }
    }

    @Test func theHistorySurvivesReopening() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            try db.write(undoable: "First") { try $0.write(Product(id: "p", name: "1", price: 1)) }
            try db.write(undoable: "Second") { try $0.write(Product(id: "p", name: "2", price: 1)) }
            try db.undo()
        }
        let db = try Database(path: path)
        #expect(try db.undoName == "First" && db.redoName == "Second")
        try db.redo()
        #expect(try db.read { try $0.read(Product.self, key: "p")?.name } == "2")
        try db.undo()
        try db.undo()
        #expect(try db.read { try $0.read(Product.self, key: "p") } == nil)
    }

    @Test func anotherProcessUndoesAStepThisOneRecorded() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write(undoable: "Price") { try $0.write(Product(id: "p", name: "P", price: 1)) }
        try db.write(undoable: "Reprice") { try $0.write(Product(id: "p", name: "P", price: 2)) }
        let run = try ProcessTestSupport.run(helper, ["undo", path])
        #expect(run.status == 0 && run.standardOutput == "Reprice\n", "\(run.standardError)")
        #expect(try db.read { try $0.read(Product.self, key: "p")?.price } == 1)  // the cache followed the log
        #expect(try db.undoName == "Price" && db.redoName == "Reprice")
        try db.redo()
        #expect(try db.read { try $0.read(Product.self, key: "p")?.price } == 2)
    }

    @Test func undoIsAWriteThatObserversAndCachesFollow() throws {
        try withStore { db, _ in
            let reader = db.newConnection()
            try db.write(undoable: "Price") { try $0.write(Product(id: "p", name: "P", price: 1)) }
            #expect(try reader.read { try $0.read(Product.self, key: "p")?.price } == 1)  // cached now
            try reader.pinSnapshot()
            try db.undo()
            let changes = try reader.advanceSnapshot()
            #expect(changes.count == 1)
            #expect(changes.first?.change(for: Product.index(forKey: "p"))?.object == .removed)
            reader.unpinSnapshot()
            #expect(try reader.read { try $0.read(Product.self, key: "p") } == nil)
            try db.redo()
            #expect(try reader.read { try $0.read(Product.self, key: "p")?.price } == 1)
        }
    }

    @Test func undoRestoresCascadesViewsAndIndexes() throws {
        let budgetGraph = Relationships(versionTag: "1")
            .edges(from: BudgetItem.self) { item in [.init("budget", to: item.budget, rules: .deleteSourceWithDestination)] }
        let byAmount = AutoView<BudgetItem, NoMetadata>(collections: ["items"], versionTag: "1",
            grouping: { _, item in item.budget.key }, sorting: { _, item in TupleKey(item.amount, item.id) })
        let byBudget = SecondaryIndex<BudgetItem, NoMetadata>(collections: ["items"], versionTag: "1") { _, item in TupleKey(item.budget.key) }
        try withStore { db, _ in
            let graph = try db.register(budgetGraph, named: "graph")
            let view = try db.register(byAmount, named: "byAmount")
            let index = try db.register(byBudget, named: "byBudget")
            try db.write { txn in
                try txn.write(Budget(id: "home", name: "Home"))
                for i in 0..<4 { try txn.write(BudgetItem(id: "i\(i)", budget: Ref(id: "home"), category: nil, amount: 10 - i)) }
            }
            let before = try storeContents(db)
            try db.write(undoable: "Delete budget") { _ = try $0.remove(Budget.self, key: "home") }
            #expect(try db.read { try $0.numberOfKeys(inCollection: "items") } == 0)
            let step = try #require(try db.undoHistory().undoable.last)
            #expect(step.indexes.count == 5)  // the budget and the four items the rule deleted

            try db.undo()
            #expect(try storeContents(db) == before)
            try db.read { txn throws in
                #expect(try txn[graph].edgeCount(to: Budget.index(forKey: "home")) == 4)
                #expect(try txn[view].numberOfItems(inGroup: "home") == 4)
                #expect(try txn[index].count(matching: .equal(TupleKey("home"))) == 4)
            }
            #expect(try db.verifyExtensions().isEmpty)
            try db.redo()
            #expect(try db.read { try $0.numberOfKeys(inCollection: "items") } == 0)
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func garbageCollectedAfterAWriteIsPartOfItsStep() throws {
        let graph = Relationships(versionTag: "1")
            .edges(from: Doc.self) { doc in doc.pages.map { .init("pages", to: $0) } }
            .collectingGarbage(in: ["pages"], afterWrites: true)
        try withStore { db, _ in
            try db.register(graph, named: "graph")
            try db.write { txn in
                try txn.write(DocPage(id: "p1", layers: []))
                try txn.write(DocPage(id: "p2", layers: []))
                try txn.write(Doc(id: "d", pages: [Ref(id: "p1"), Ref(id: "p2")]))
            }
            let before = try storeContents(db)
            try db.write(undoable: "Drop page") { try $0.write(Doc(id: "d", pages: [Ref(id: "p1")])) }
            #expect(try db.read { try $0.keys(inCollection: "pages") } == ["p1"])
            try db.undo()
            #expect(try storeContents(db) == before)
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func randomUndoableWritesUndoToTheStartAndRedoToTheEnd() throws {
        let rounds = ProcessInfo.processInfo.environment["LARDER_FULL"] == nil ? 6 : 60
        let byPrice = SecondaryIndex<Product, NoMetadata>(collections: ["products"], versionTag: "1") { _, product in TupleKey(product.price) }
        for round in 0..<rounds {
            let seed = UInt64(round) &* 0x51_7CC1_B727 &+ 3
            var random = SplitMix(seed: seed)
            let directory = TemporaryDirectory()
            let path = directory.file("store")
            var configuration = Database.Configuration()
            configuration.undoLimit = 1_000
            var db: Database? = try Database(path: path, configuration: configuration)
            try db!.register(byPrice, named: "byPrice")
            try db!.write { txn in
                for n in 0..<10 { try txn.write(Product(id: "p\(n)", name: "start", price: Double(n))) }
            }
            let initial = try storeContents(db!)
            let steps = Int.random(in: 5...25, using: &random)
            for step in 0..<steps {
                try db!.write(undoable: "step \(step)") { txn in
                    for _ in 0..<Int.random(in: 1...4, using: &random) {
                        let key = "p\(Int.random(in: 0..<14, using: &random))"
                        switch Int.random(in: 0..<10, using: &random) {
                        case 0..<4: try txn.write(Product(id: key, name: "v\(step)", price: Double(Int.random(in: 0..<50, using: &random))))
                        case 4..<6: _ = try txn.remove(Product.self, key: key)
                        case 6..<8: _ = try txn.replaceMetadata(ProductInfo(stock: step, updated: Date(timeIntervalSince1970: Double(step))), forKey: key, inCollection: "products")
                        case 8: _ = try txn.removeMetadata(forKey: key, inCollection: "products")
                        default:
                            if Int.random(in: 0..<4, using: &random) == 0 {
                                try txn.removeAllObjects(inCollection: "products")
                            } else {
                                _ = try txn.replaceObject(Product(id: key, name: "r\(step)", price: 1), forKey: key, inCollection: "products")
                            }
                        }
                    }
                }
                if Int.random(in: 0..<5, using: &random) == 0 {  // close and reopen now and then
                    db = nil
                    db = try Database(path: path, configuration: configuration)
                    try db!.register(byPrice, named: "byPrice")
                }
            }
            let final = try storeContents(db!)
            while try db!.undo() != nil {}
            #expect(try storeContents(db!) == initial, "seed \(seed)")
            #expect(try db!.verifyExtensions().isEmpty, "seed \(seed)")
            db = nil
            db = try Database(path: path, configuration: configuration)
            try db!.register(byPrice, named: "byPrice")
            while try db!.redo() != nil {}
            #expect(try storeContents(db!) == final, "seed \(seed)")
            #expect(try db!.verifyExtensions().isEmpty, "seed \(seed)")
        }
    }
}
