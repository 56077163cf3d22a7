import Foundation
import Testing
import Larder

/// Documentation/Extensions.md.
@Suite("Samples: Extensions")
struct ExtensionsSamples: SampleSuite {
    let environment = SampleEnvironment()

    @Test func handlesInAStructAndTheirChanges() async throws {
        let db = try sampleStore()
        struct Product: Codable, Sendable, Persistable { static let collection = "products"; var id: String; var category: String; var price: Double; var stock: Int }
        var printed: [String] = []
        func print(_ changes: ViewChanges) { printed.append(changes.description) }

        /// The app's extensions, registered once at launch.
        struct Catalog {
            let byCategory: ViewHandle<Product, NoMetadata>
            let byPrice: SecondaryIndexHandle<Product, NoMetadata>

            init(_ db: Database) throws {
                byCategory = try db.register(AutoView<Product, NoMetadata>(collections: ["products"], versionTag: "1",
                    grouping: { _, product in product.category },
                    sorting: { _, product in TupleKey(product.price, product.id) }), named: "byCategory")
                byPrice = try db.register(SecondaryIndex<Product, NoMetadata>(collections: ["products"], versionTag: "1") { _, product in
                    TupleKey(product.category, product.price)
                }, named: "byPrice")
            }
        }

        let catalog = try Catalog(db)
        let stream = db.changes(inCollection: "products")
        try await db.write { try $0.write(Product(id: "p4", category: "tools", price: 20, stock: 3)) }
        for await changeset in stream {
            for changes in try catalog.byCategory.changes(in: changeset) {
                print(changes)   // insert section tools; insert products/p4 at tools[0]
            }
            break   // an app keeps following; the sample stops after one commit
        }

        #expect(printed == ["insert section tools; insert products/p4 at tools[0]"])
        #expect(try await db.read { try $0[catalog.byPrice].indexes(matching: .range(where: TupleKey("tools"), from: 0.0, to: 50.0)) }.map(\.key) == ["p4"])
    }

    @Test func theOpeningExample() throws {
        let db = try sampleStore()

        struct Product: Codable, Sendable, Persistable { static let collection = "products"; var id: String; var category: String; var price: Double; var stock: Int }

        let byCategory = try db.register(AutoView<Product, NoMetadata>(collections: ["products"], versionTag: "1",
            grouping: { _, product in product.category },
            sorting: { _, product in TupleKey(product.price, product.id) }), named: "byCategory")
        let inStock = try db.register(FilteredView(parent: byCategory, versionTag: "1") { _, _, product, _ in product.stock > 0 },
                                      named: "inStock")
        let byPrice = try db.register(SecondaryIndex<Product, NoMetadata>(collections: ["products"], versionTag: "1") { _, product in
            TupleKey(product.category, product.price)
        }, named: "byPrice")

        try db.write { txn in   // the view and the index are updated inside this transaction
            try txn.write([Product(id: "p1", category: "tools", price: 12, stock: 0),
                           Product(id: "p2", category: "tools", price: 30, stock: 2),
                           Product(id: "p3", category: "toys", price: 5, stock: 1)])
        }
        let (firstPage, cheapTools, toolsInStock) = try db.read { txn in
            (try txn[byCategory].objects(inGroup: "tools", positions: 0..<20),          // [(index, Product)], by price
             try txn[byPrice].indexes(matching: .range(where: TupleKey("tools"), from: 0.0, to: 20.0)),
             try txn[inStock].numberOfItems(inGroup: "tools"))
        }

        #expect(firstPage.map(\.object.id) == ["p1", "p2"])
        #expect(cheapTools.map(\.key) == ["p1"])
        #expect(toolsInStock == 1)
        #expect(try db.verifyExtensions().isEmpty)
    }

    @Test func anObjectInSeveralGroups() throws {
        let db = try sampleStore()
        struct Note: Codable, Sendable { var title: String; var tags: [String]; var modified: Double }
        let byTag = try db.register(AutoView<Note, NoMetadata>(collections: ["notes"], versionTag: "1",
            groups: { _, note in note.tags },
            sorting: { _, note in TupleKey(note.modified) }), named: "byTag")
        let tagged = try db.register(SecondaryIndex<Note, NoMetadata>(collections: ["notes"], versionTag: "1", entries: { _, note in
            note.tags.map { TupleKey($0) }
        }), named: "tagged")

        try db.write { try $0.setObject(Note(title: "Milk", tags: ["home", "shopping"], modified: 1), forKey: "n1", inCollection: "notes") }
        try db.read { txn throws in
            #expect(try txn[byTag].groups() == ["home", "shopping"])
            #expect(try txn[byTag].locations(of: YapDB.Index(collection: "notes", key: "n1")).map(\.group) == ["home", "shopping"])
            #expect(try txn[tagged].indexes(matching: .equal(TupleKey("shopping"))).map(\.key) == ["n1"])
        }
        #expect(try db.verifyExtensions().isEmpty)
    }

    @Test func followingAView() async throws {
        let db = try sampleStore()
        struct Product: Codable, Sendable { var category: String; var price: Double }
        let byCategory = try db.register(AutoView<Product, NoMetadata>(collections: ["products"], versionTag: "1",
            grouping: { _, product in product.category }, sorting: { _, product in TupleKey(product.price) }), named: "byCategory")
        try await db.write { try $0.setObject(Product(category: "tools", price: 3), forKey: "saw", inCollection: "products") }

        let consumer = Task {
            let inbox = db.observe(byCategory, groups: ["tools", "toys"], range: .first(50))
            for try await page in inbox {
                if page.isReset {
                    print("show", page.sections.map { "\($0.group): \($0.items.count) of \($0.numberOfItems)" })
                } else {
                    print("apply", page.rowChanges.count, "row changes")
                }
                if page.sections[0].numberOfItems > 50 { inbox.setRange(.first(100)) }   // the list scrolled
            }
        }
        try await eventually { environment.printed.contains("show [\"tools: 1 of 1\", \"toys: 0 of 0\"]") }
        try await db.write { try $0.setObject(Product(category: "toys", price: 1), forKey: "ball", inCollection: "products") }
        try await eventually { environment.printed.contains("apply 1 row changes") }
        consumer.cancel()
        try await consumer.value
    }

    @Test @MainActor func aLiveView() async throws {
        let db = try sampleStore()
        struct Product: Codable, Sendable { var category: String; var price: Double }
        let byCategory = try db.register(AutoView<Product, NoMetadata>(collections: ["products"], versionTag: "1",
            grouping: { _, product in product.category }, sorting: { _, product in TupleKey(product.price) }), named: "byCategory")
        let toys = db.liveView(byCategory, groups: ["toys"], range: .first(50))
        // In a SwiftUI view: List(toys.page?.sections.first?.items ?? [], id: \.index) { Text($0.index.key) }
        try await db.write { try $0.setObject(Product(category: "toys", price: 1), forKey: "ball", inCollection: "products") }
        let deadline = ContinuousClock.now + .seconds(10)
        while toys.page?.sections.first?.items.map(\.index.key) != ["ball"] && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(toys.page?.sections.first?.items.map(\.index.key) == ["ball"])
    }

    @Test func descendingOrder() throws {
        let db = try sampleStore()

        struct Note: Codable, Sendable { var folder: String; var title: String; var modified: Date }

        let recent = try db.register(AutoView<Note, NoMetadata>(collections: ["notes"], versionTag: "1",
            grouping: { _, note in note.folder },
            sorting: { _, note in TupleKey(Descending(note.modified), note.title) }), named: "recent")   // newest first, then by title
        let byDay = try db.register(SecondaryIndex<Note, NoMetadata>(collections: ["notes"], versionTag: "1") { _, note in
            TupleKey(note.folder, Descending(note.modified))
        }, named: "byDay")

        let now = Date()
        try db.write { txn in
            try txn.setObject(Note(folder: "inbox", title: "Groceries", modified: now - 3_600), forKey: "n1", inCollection: "notes")
            try txn.setObject(Note(folder: "inbox", title: "Agenda", modified: now - 3_600), forKey: "n2", inCollection: "notes")
            try txn.setObject(Note(folder: "inbox", title: "Taxes", modified: now - 200_000), forKey: "n3", inCollection: "notes")
        }
        let (newestFirst, oldestFirst, lastDay) = try db.read { txn in
            (try txn[recent].objects(inGroup: "inbox", positions: 0..<20),
             try txn[recent].objects(inGroup: "inbox", positions: 0..<20, reversed: true),   // the same page, last first
             try txn[byDay].indexes(matching: .range(where: TupleKey("inbox"), from: Descending(now), to: Descending(now - 86_400))))
        }
        // newestFirst: Agenda, Groceries (same time, by title), Taxes; oldestFirst the reverse;
        // lastDay: n1 and n2, the last 24 hours

        #expect(newestFirst.map(\.object.title) == ["Agenda", "Groceries", "Taxes"])
        #expect(oldestFirst.map(\.object.title) == ["Taxes", "Groceries", "Agenda"])
        #expect(lastDay.map(\.key) == ["n1", "n2"])   // a tie on the date: then by key
        #expect(try db.verifyExtensions().isEmpty)
    }

    @Test func aSpatialIndex() throws {
        let db = try sampleStore()

        struct Shop: Codable, Sendable { var name: String; var x: Double; var y: Double }
        let byPlace = try db.register(SpatialIndex<Shop, NoMetadata>(collections: ["shops"], versionTag: "1") { _, shop in
            SpatialBox(x: shop.x, y: shop.y)
        }, named: "byPlace")
        try db.write { txn in
            try txn.setObject(Shop(name: "North", x: 2, y: 9), forKey: "s1", inCollection: "shops")
            try txn.setObject(Shop(name: "South", x: 3, y: -4), forKey: "s2", inCollection: "shops")
        }
        let (inTheBox, nearest) = try db.read { txn in
            (try txn[byPlace].indexes(intersecting: SpatialBox(minX: 0, minY: 0, maxX: 10, maxY: 10)),   // [s1]
             try txn[byPlace].nearest(toX: 0, y: 0, count: 1))                                            // [(s2, 5.0)]
        }

        #expect(inTheBox.map(\.key) == ["s1"])
        #expect(nearest.map(\.index.key) == ["s2"] && nearest.map(\.distance) == [5.0])
        #expect(try db.verifyExtensions().isEmpty)
    }
}
