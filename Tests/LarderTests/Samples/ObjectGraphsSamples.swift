import Testing
import Larder

/// Documentation/ObjectGraphs.md.
@Suite("Samples: Object graphs")
struct ObjectGraphsSamples: SampleSuite {
    let environment = SampleEnvironment()

    // The types the guide's examples use.
    struct Document: Codable, Persistable { static let collection = "documents"; var id: String; var pages: [Ref<Page>] }
    struct Page: Codable, Persistable { static let collection = "pages"; var id: String; var layers: [Ref<Layer>] }
    struct Layer: Codable, Persistable { static let collection = "layers"; var id: String; var shapes: [Ref<Shape>] }
    struct Shape: Codable, Persistable { static let collection = "shapes"; var id: String; var sides: Int }

    @Test func references() throws {
        let db = try sampleStore()

        struct Circle: Codable, Persistable { static let collection = "circles"; var id: String; var radius: Double }
        struct Venn: Codable, Persistable {
            static let collection = "diagrams"
            var id: String
            var left: Ref<Circle>
            var right: Ref<Circle>
        }

        let a = Circle(id: "a", radius: 1), b = Circle(id: "b", radius: 2)
        try db.write { txn in
            try txn.write(a); try txn.write(b)
            try txn.write(Venn(id: "v", left: Ref(a), right: Ref(id: "b")))   // from a value, or by its id
        }
        let venn = try db.read { try $0.read(Venn.self, key: "v") }!
        let left = try db.read { try $0.resolve(venn.left) }     // Circle?, nil when the circle is gone

        #expect(left?.radius == 1)
        #expect(venn.right == Ref(b))
        _ = try db.write { try $0.remove(a) }
        #expect(try db.read { try $0.resolve(venn.left) } == nil)
    }

    @Test func savingAGraph() throws {
        let db = try sampleStore()

        let shape = Shape(id: "s1", sides: 3)
        let layer = Layer(id: "l1", shapes: [Ref(carrying: shape)])
        let page = Page(id: "p1", layers: [Ref(carrying: layer)])
        let written = try db.write { try $0.saveAll(Document(id: "d", pages: [Ref(carrying: page)])) }
        // [documents/d, pages/p1, layers/l1, shapes/s1]

        #expect(written.map(\.description) == ["documents/d", "pages/p1", "layers/l1", "shapes/s1"])
        #expect(try db.write { try $0.saveAll(Document(id: "d", pages: [Ref(carrying: page)])) }.isEmpty)
    }

    @Test func loadingAGraph() throws {
        let db = try sampleStore()
        let layerToSave = Layer(id: "l1", shapes: [Ref(carrying: Shape(id: "s1", sides: 3))])
        let pageToSave = Page(id: "p1", layers: [Ref(carrying: layerToSave)])
        try db.write { _ = try $0.saveAll(Document(id: "d", pages: [Ref(carrying: pageToSave)])) }

        let document = try db.read { try $0.load(Document.self, key: "d", depth: 2) }
        let firstLayer = document?.pages[0].target?.layers[0].target   // loaded: depth 2
        let shape = firstLayer?.shapes[0].target                        // nil: beyond depth 2

        #expect(firstLayer?.id == "l1")
        #expect(shape == nil)
    }

    // MARK: Polymorphic collections

    protocol Figure: Sendable { var area: Double { get } }

    struct Disc: Figure, Codable, Persistable {
        static let collection = "figures"
        var id: String
        var radius: Double
        var area: Double { .pi * radius * radius }
    }

    struct Square: Figure, Codable, Persistable {
        static let collection = "figures"
        var id: String
        var side: Double
        var area: Double { side * side }
    }

    struct Drawing: Codable, Persistable {
        static let collection = "drawings"
        var id: String
        var highlight: PolymorphicRef<any Figure>
    }

    @Test func polymorphicCollections() throws {
        let db = try sampleStore()

        let figures = PolymorphicArchiver<any Figure>(["disc": Disc.self, "square": Square.self])
        db.register(figures, forCollection: "figures")

        let square = Square(id: "s", side: 2)
        try db.write { txn in
            try txn.write(Disc(id: "c", radius: 1))          // a concrete type
            let figure: any Figure = square                       // or the protocol, with the archiver
            try txn.setObject(figure, forKey: "s", inCollection: "figures", archiver: figures)
            try txn.write(Drawing(id: "d", highlight: PolymorphicRef(square)))
        }
        let totalArea = try db.read { txn in
            var total = 0.0
            try txn.enumerateObjects(inCollection: "figures", archiver: figures) { _, figure, _ in total += figure.area }
            return total
        }
        let highlight = try db.read { txn in
            try txn.read(Drawing.self, key: "d").flatMap { try txn.resolve($0.highlight) }   // a Square
        }

        #expect(totalArea == .pi + 4)
        #expect((highlight as? Square)?.side == 2)
    }

    // MARK: Relationships

    @Test func deleteRules() throws {
        let db = try sampleStore()

        struct Budget: Codable, Persistable { static let collection = "budgets"; var id: String; var name: String }
        struct Category: Codable, Persistable { static let collection = "categories"; var id: String }
        struct Item: Codable, Persistable {
            static let collection = "items"
            var id: String
            var budget: Ref<Budget>
            var category: Ref<Category>?
            var amount: Int
        }

        let graph = Relationships(versionTag: "1")
            .edges(from: Item.self, { item in
                var links: [Relationships.Link] = [.init("budget", to: item.budget, rules: .deleteSourceWithDestination)]
                if let category = item.category { links.append(.init("category", to: category, rules: .nullifySource)) }
                return links
            }, nullify: { item, edge in
                if edge.name == "category" { item.category = nil }
            })
        let relationships = try db.register(graph, named: "relationships")

        let food = Category(id: "food")
        try db.write { txn in
            try txn.write([Budget(id: "home", name: "Home"), Budget(id: "trip", name: "Trip")])
            try txn.write(food)
            try txn.write([Item(id: "rent", budget: Ref(id: "home"), category: nil, amount: 900),
                           Item(id: "snacks", budget: Ref(id: "trip"), category: Ref(food), amount: 20)])
        }
        _ = try db.write { try $0.remove(Budget.self, key: "home") }   // the home budget's items go with it: rent
        _ = try db.write { try $0.remove(food) }                        // items filed under food stay, without it

        let items = try db.read { try $0.readAll(Item.self) }
        #expect(items.map(\.id) == ["snacks"])
        #expect(items.first?.category == nil)
        #expect(try db.read { try $0[relationships].edgeCount(to: Budget.index(forKey: "trip")) } == 1)
    }

    // MARK: Roots and garbage collection

    @Test func roots() throws {
        let db = try sampleStore()
        let document = Document(id: "d", pages: [])
        try db.write { try $0.write(document) }

        try db.write { try $0.setRoot(Ref(document), named: "main") }
        let main = try db.read { try $0.root(named: "main", as: Document.self) }   // Ref<Document>?

        #expect(main == Ref(document))
    }

    @Test func garbageCollection() throws {
        let db = try sampleStore()
        try db.write { txn in
            try txn.write(Page(id: "orphan", layers: []))
            try txn.write(Page(id: "kept", layers: []))
            try txn.write(Document(id: "d", pages: [Ref(id: "kept")]))
        }

        let graph = Relationships(versionTag: "1")
            .edges(from: Document.self) { doc in doc.pages.map { .init("pages", to: $0) } }
            .edges(from: Page.self) { page in page.layers.map { .init("layers", to: $0) } }
            .edges(from: Layer.self) { layer in layer.shapes.map { .init("shapes", to: $0) } }
            .collectingGarbage(in: ["pages", "layers", "shapes"], afterWrites: true)
        let relationships = try db.register(graph, named: "graph")
        let deleted = try db.write { try $0[relationships].collectGarbage() }   // on request

        #expect(deleted == [Page.index(forKey: "orphan")])
        #expect(try db.read { try $0.read(Page.self, key: "kept") } != nil)
    }

    // MARK: Identity maps

    @Test func identityMaps() throws {
        let db = try sampleStore()

        final class Note: Codable, Persistable, IdentityRefreshable {
            static let collection = "notes"
            let id: String
            var text: String
            init(id: String, text: String) { self.id = id; self.text = text }
            func refresh(from newer: Note) { text = newer.text }
        }

        let connection = db.newConnection()
        connection.keepsIdentityMap = true   // or Configuration.keepsIdentityMap for every new connection

        try connection.write { try $0.write(Note(id: "n1", text: "Buy milk")) }
        let note = try connection.read { try $0.read(Note.self, key: "n1") }!
        let again = try connection.read { try $0.read(Note.self, key: "n1") }!
        assert(note === again)  // one instance while it is alive

        // Elsewhere, another connection changes it.
        try db.newConnection().write { try $0.write(Note(id: "n1", text: "Buy oat milk")) }

        // The next load refreshes the instance everyone holds (Note is IdentityRefreshable).
        let current = try connection.read { try $0.read(Note.self, key: "n1") }!
        assert(current === note && note.text == "Buy oat milk")

        #expect(current === note && again === note && note.text == "Buy oat milk")
    }

    // MARK: Persistent values

    @Test func persistentValues() async throws {
        let db = try sampleStore()

        let launches = try Persistent(db, key: "launches", default: 0)
        try launches.update { $0 += 1 }                 // read-modify-write in one transaction
        let count = try launches.value                  // 1 now; the default until something is stored
        let watcher = Task {                            // now, then after every change, from anywhere
            for try await value in launches.values() { print("launches:", value) }
        }
        let handle = launches.onChange { print("changed to", $0) }   // a callback; cancel() or release it
        // Later: watcher.cancel() ends the loop; handle.cancel() stops the callbacks.

        #expect(count == 1)
        try await eventually { environment.printed.contains("launches: 1") }
        try launches.update { $0 += 1 }
        try await eventually { environment.printed.contains("launches: 2") && environment.printed.contains("changed to 2") }
        watcher.cancel()
        handle.cancel()
        try await watcher.value
        #expect(environment.printed.contains("launches: 2"))
        #expect(environment.printed.contains("changed to 2"))
    }

    @Test func persistentValuesFromAsynchronousCode() async throws {
        let db = try sampleStore()

        let launches = try Persistent(db, key: "launches", default: 0)
        let count = try await db.write { try launches.update(in: $0) { $0 += 1 } }
        try await db.write { try launches.set(0, in: $0) }

        #expect(count == 1)
        #expect(try launches.value == 0)
    }

    @Test func persistentValueBoundToARoot() throws {
        let db = try sampleStore()
        let opened = Document(id: "plans", pages: [])

        let current = try Persistent(db, root: "currentDocument", default: Document(id: "untitled", pages: []))
        try current.set(opened)        // stores `opened` at documents/<its key> and points the root at it

        #expect(try current.value.id == "plans")
        #expect(try db.read { try $0.root(named: "currentDocument", as: Document.self) } == Ref(opened))
    }
}
