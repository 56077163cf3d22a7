import Foundation
import Testing
@testable import Larder

/// A node whose next node may be carried along.
struct ChainNode: Codable, Persistable, Equatable, Sendable {
    static let collection = "chain"
    var id: String
    var label: String
    var next: Ref<ChainNode>?
}

/// A class graph: people who are each other's friends.
final class Person: Codable, Persistable, @unchecked Sendable {
    static let collection = "people"
    let id: String
    var friends: [Ref<Person>] = []

    init(id: String) {
        self.id = id
    }
}

/// Builds a document `id` whose refs carry the whole tree: `pages` pages of 2 layers of 3 shapes.
func carriedDocument(_ id: String, pages: Int, sides: Int = 3) -> Doc {
    Doc(id: id, pages: (0..<pages).map { p in
        Ref(carrying: DocPage(id: "\(id).\(p)", layers: (0..<2).map { l in
            Ref(carrying: DocLayer(id: "\(id).\(p).\(l)", shapes: (0..<3).map { s in
                Ref(carrying: DocShape(id: "\(id).\(p).\(l).\(s)", sides: sides + s))
            }))
        }))
    })
}

@Suite("Saving and loading graphs")
struct GraphSavingTests {
    @Test func saveAllWritesAWholeDocumentOnceAndThenOnlyWhatChanged() throws {
        try withStore { db, _ in
            let document = carriedDocument("d", pages: 2)
            let written = try db.write { try $0.saveAll(document) }
            #expect(written.count == 1 + 2 + 4 + 12)
            #expect(written.first == document.index)
            #expect(Set(written).count == written.count)
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: "shapes") == 12)
                #expect(try txn.read(DocShape.self, key: "d.1.1.2") == DocShape(id: "d.1.1.2", sides: 5))
                // Stored refs are keys: the document reads back equal, carrying nothing.
                let stored = try #require(try txn.read(Doc.self, key: "d"))
                #expect(stored == document)
            }
            #expect(try db.write { try $0.saveAll(document) } == [])  // nothing changed, nothing written

            // One shape changes: only it is written, and the page keeps its metadata.
            _ = try db.write { try $0.replaceMetadata("note", forKey: "d.0", inCollection: "pages") }
            let changed = carriedDocument("d", pages: 2, sides: 3)
            var pages = changed.pages
            var page = try #require(pages[0].target)
            var layer = try #require(page.layers[1].target)
            layer.shapes[2] = Ref(carrying: DocShape(id: "d.0.1.2", sides: 99))
            page.layers[1] = Ref(carrying: layer)
            pages[0] = Ref(carrying: page)
            let again = try db.write { try $0.saveAll(Doc(id: "d", pages: pages)) }
            #expect(again == [DocShape.index(forKey: "d.0.1.2")])
            #expect(try db.read { try $0.read(DocShape.self, key: "d.0.1.2")?.sides } == 99)

            // A new page is written with the document that now lists it.
            let longer = carriedDocument("d", pages: 3)
            let added = try db.write { try $0.saveAll(longer) }
            #expect(added.contains(Doc.index(forKey: "d")) && added.contains(DocPage.index(forKey: "d.2")))
            #expect(added.count == 1 + 1 + 2 + 6 + 1)  // the document, the new page's tree, the shape set back to 5 sides
            #expect(try db.read { try $0.metadata(forKey: "d.0", inCollection: "pages", as: String.self) } == "note")
        }
    }

    @Test func saveAllFollowsACycleOfClassesOnce() throws {
        try withStore { db, _ in
            let alice = Person(id: "alice"), bob = Person(id: "bob"), carol = Person(id: "carol")
            alice.friends = [Ref(carrying: bob), Ref(carrying: carol)]
            bob.friends = [Ref(carrying: alice)]
            carol.friends = [Ref(carrying: bob), Ref(carrying: alice)]
            let written = try db.write { try $0.saveAll(alice) }
            #expect(written.map(\.key) == ["alice", "bob", "carol"])
            let stored = try #require(try db.read { try $0.storedObject(forKey: "carol", inCollection: "people") })
            struct StoredPerson: Decodable, Equatable { var id: String; var friends: [String] }
            #expect(try MessagePackDecoder().decode(StoredPerson.self, from: stored.bytes) == StoredPerson(id: "carol", friends: ["bob", "alice"]))
            let carolRead = try #require(try db.read { try $0.read(Person.self, key: "carol") })
            #expect(carolRead.friends.map(\.key) == ["bob", "alice"])
        }
    }

    @Test func loadingToADepthFillsTheRefsToThatDepth() throws {
        try withStore { db, _ in
            _ = try db.write { try $0.saveAll(carriedDocument("d", pages: 2)) }
            try db.read { txn throws in
                let flat = try #require(try txn.load(Doc.self, key: "d", depth: 0))
                #expect(flat.pages.allSatisfy { $0.target == nil })

                let one = try #require(try txn.load(Doc.self, key: "d", depth: 1))
                let page = try #require(one.pages[1].target)
                #expect(page.id == "d.1")
                #expect(page.layers.allSatisfy { $0.target == nil })

                let three = try #require(try txn.load(Doc.self, key: "d", depth: 3))
                let shape = try #require(three.pages[1].target?.layers[0].target?.shapes[2].target)
                #expect(shape == DocShape(id: "d.1.0.2", sides: 5))
                #expect(try txn.load(Ref<DocPage>(key: "d.0"), depth: 1)?.layers[1].target?.id == "d.0.1")
                #expect(try txn.load(Doc.self, key: "missing", depth: 3) == nil)
            }
            // A target that is gone stays unloaded.
            _ = try db.write { try $0.remove(DocPage.self, key: "d.0") }
            let loaded = try #require(try db.read { try $0.load(Doc.self, key: "d", depth: 2) })
            #expect(loaded.pages[0].target == nil)
            #expect(loaded.pages[1].target?.layers[0].target?.id == "d.1.0")
        }
    }

    @Test func aStoredCycleLoadsToTheDepthAsked() throws {
        try withStore { db, _ in
            var a = ChainNode(id: "a", label: "first", next: nil)
            let b = ChainNode(id: "b", label: "second", next: Ref(carrying: a))
            a.next = Ref(carrying: b)
            #expect(try db.write { try $0.saveAll(a) }.map(\.key) == ["a", "b"])
            try db.read { txn throws in
                let loaded = try #require(try txn.load(ChainNode.self, key: "a", depth: 5))
                var node: ChainNode? = loaded
                var labels: [String] = []
                while let current = node {
                    labels.append(current.label)
                    node = current.next?.target
                }
                #expect(labels == ["first", "second", "first", "second", "first", "second"])  // depth 5: six values
            }
        }
    }

    @Test func badValuesInAGraphAreRefused() throws {
        try withStore { db, _ in
            let bad = Doc(id: "d", pages: [Ref(carrying: DocPage(id: "", layers: []))])
            let error = #expect(throws: LarderError.self) { try db.write { try $0.saveAll(bad) } }
            #expect(error?.code == .emptyKey)
            let documents = try db.read { try $0.numberOfKeys(inCollection: "documents") }
            #expect(documents == 0)  // the failed write stored nothing
            let negative = try db.read { try $0.load(Doc.self, key: "d", depth: -3) }
            #expect(negative == nil)
        }
    }
}
