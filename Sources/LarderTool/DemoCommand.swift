#if Extras
import ArgumentParser
import Foundation
import Larder

/// The README's main job: creates a store, writes sample data, registers a view and an index,
/// queries them, observes a change, undoes it, and says what it did.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Create a store, write sample products, query a view and an index, observe a change and undo it.",
        discussion: "The demo store is emptied at the start of each run; a store that holds collections of its own is refused."
    )

    @Option(help: "Where to create the demo store (a directory; emptied first if it is a demo store).")
    var path: String = FileManager.default.temporaryDirectory.appendingPathComponent("larder-demo").path

    struct Product: Codable, Sendable, Persistable {
        static let collection = "products"
        var id: String
        var name: String
        var price: Double
    }

    struct Stock: Codable {
        var count: Int
        var checked: Date
    }

    func run() throws {
        if let contents = try? FileManager.default.contentsOfDirectory(atPath: path), !contents.isEmpty, !contents.contains("data.mdb") {
            throw CommandFailure(.badInput, "\(path) is a directory that holds other files, not a store; give --path a new directory")
        }
        var db: Database? = try StoreArgument.open(path, create: true)
        guard let store = db else { return }
        // By bytes, as the store tells collections apart.
        let others = try store.read { try $0.collections() }.filter { !ExactString.bytesEqual($0, Product.collection) && !$0.utf8.starts(with: "larder.".utf8) }
        guard others.isEmpty else {
            throw CommandFailure(.badInput, "\(path) holds collections the demo did not write (\(others.map(CommandFailure.quoted).joined(separator: ", "))); give --path a new directory")
        }
        print("Larder \(LarderVersion.string) demo: store at \(path)")
        try store.write { try $0.removeAllObjectsInAllCollections() }
        try store.clearUndoHistory()
        // A view and an index, kept up to date by every write from here on (registering them
        // again on a later run costs nothing: the store remembers their version tags).
        let bands = try store.register(
            AutoView<Product, NoMetadata>(collections: [Product.collection], versionTag: "1",
                                      grouping: { _, product in product.price < 20 ? "under 20" : "20 and over" },
                                      sorting: { _, product in TupleKey(product.price) }),
            named: "productsByPriceBand")
        let byPrice = try store.register(
            SecondaryIndex<Product, NoMetadata>(collections: [Product.collection], versionTag: "1") { _, product in TupleKey(product.price) },
            named: "productsByPrice")

        let products = [
            Product(id: "p1", name: "Hammer", price: 24.0),
            Product(id: "p2", name: "Saw", price: 31.5),
            Product(id: "p3", name: "Chisel", price: 12.5),
            Product(id: "p4", name: "Plane", price: 89.0),
            Product(id: "p5", name: "Rasp", price: 9.75),
        ]
        let start = ContinuousClock.now
        try store.write { txn in
            for (offset, product) in products.enumerated() {
                try txn.write(product, metadata: Stock(count: offset * 3 + 1, checked: Date()))
            }
        }
        print("- wrote \(products.count) products, each with stock metadata, in one transaction (\((ContinuousClock.now - start).formatted(.units(allowed: [.milliseconds], fractionalPart: .show(length: 1)))))")

        let (chisel, stock) = try store.read { txn in
            (try txn.read(Product.self, key: "p3"), try txn.metadata(forKey: "p3", inCollection: Product.collection, as: Stock.self))
        }
        print("- read p3: \(chisel?.name ?? "missing"), \(chisel?.price ?? 0); stock \(stock?.count ?? 0) (metadata read on its own)")

        let listing = try store.read { txn in
            try txn.collections().map { "\($0) (\(try txn.numberOfKeys(inCollection: $0)) keys)" }
        }
        print("- collections: \(listing.joined(separator: ", "))")

        let lastTwo = try store.read { try $0.keys(inCollection: Product.collection, range: KeyRange(reversed: true, limit: 2)) }
        print("- last two keys, newest first: \(lastTwo.joined(separator: ", "))")

        print("- view by price band, sorted by price: \(try bandListing(store, bands))")

        let midRange = try store.read { txn in
            try txn[byPrice].objects(matching: .range(from: 10.0, to: 30.0)).map { "\($0.object.name) \($0.object.price)" }
        }
        print("- index by price, 10 to 30: \(midRange.joined(separator: ", "))")

        try observeAndUndo(store, view: bands, stockBefore: stock?.count ?? 0)

        db = nil  // close the store, then open it again
        let reopened = try Database(path: path)
        let (count, after, name) = try reopened.read { txn in
            (try txn.numberOfKeys(inCollection: Product.collection),
             try txn.metadata(forKey: "p3", inCollection: Product.collection, as: Stock.self)?.count,
             try txn.read(Product.self, key: "p3")?.name)
        }
        print("- reopened: \(count) products; p3 is still \(name ?? "missing") with stock \(after ?? 0)")
    }

    /// The view's groups and the names in each, in order.
    private func bandListing(_ store: Database, _ view: ViewHandle<Product, NoMetadata>) throws -> String {
        try store.read { txn in
            try txn[view].groups().map { group in
                "\(group): " + (try txn[view].objects(inGroup: group).map(\.object.name)).joined(separator: ", ")
            }
        }.joined(separator: "; ")
    }

    /// An undoable write, seen by a user interface's connection pinned to one snapshot (it sees
    /// the write only when it moves on, and learns what changed), then undone.
    private func observeAndUndo(_ store: Database, view: ViewHandle<Product, NoMetadata>, stockBefore: Int) throws {
        let screen = store.newConnection()
        try screen.pinSnapshot()
        try store.write(undoable: "Stock take") { txn in
            _ = try txn.replaceMetadata(Stock(count: 3, checked: Date()), forKey: "p3", inCollection: Product.collection)
            _ = try txn.remove(Product.self, key: "p5")
            try txn.setCommitInfo("stock take")
        }
        print("- undoable write \"Stock take\": replaced p3's metadata only (stock \(stockBefore) -> 3) and removed p5")

        let shown = try screen.read { try $0.numberOfKeys(inCollection: Product.collection) }
        let changes = try screen.advanceSnapshot()
        let described = changes.flatMap { changeset in
            changeset.changes.sorted { $0.key < $1.key }.map { index, change in
                let halves = [change.object.map { "object \($0)" }, change.metadata.map { "metadata \($0)" }].compactMap { $0 }
                return "\(index.key) \(halves.joined(separator: ", "))"
            }
        }
        let reasons = try changes.flatMap { try $0.commitInfo(as: String.self) }
        print("- a pinned snapshot still showed \(shown) products; moving it on reported \(changes.count) commit (\(reasons.joined(separator: ", "))): \(described.joined(separator: "; "))")
        let rows = try view.changes(in: changes).flatMap(\.rows).map { "\($0.kind) \($0.index.key)" + ($0.from.map { " from \($0)" } ?? "") }
        print("- the view's row changes for a list on screen: \(rows.joined(separator: "; "))")

        let undone = try store.undo()
        let (count, restored) = try store.read { txn in
            (try txn.numberOfKeys(inCollection: Product.collection), try txn.metadata(forKey: "p3", inCollection: Product.collection, as: Stock.self)?.count)
        }
        let undoRows = try view.changes(in: screen.advanceSnapshot()).flatMap(\.rows).map { "\($0.kind) \($0.index.key)" + ($0.to.map { " at \($0)" } ?? "") }
        print("- undo \"\(undone?.name ?? "nothing")\": \(count) products again, p3's stock \(restored ?? 0); the view: \(undoRows.joined(separator: "; "))")
        screen.unpinSnapshot()
    }
}
#endif
