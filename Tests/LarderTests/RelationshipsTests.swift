import Foundation
import Testing
@testable import Larder

// A document of pages of layers of shapes.
struct Doc: Codable, Persistable, Equatable, Sendable {
    static let collection = "documents"
    var id: String
    var pages: [Ref<DocPage>]
}

struct DocPage: Codable, Persistable, Equatable, Sendable {
    static let collection = "pages"
    var id: String
    var layers: [Ref<DocLayer>]
}

struct DocLayer: Codable, Persistable, Equatable, Sendable {
    static let collection = "layers"
    var id: String
    var shapes: [Ref<DocShape>]
}

struct DocShape: Codable, Persistable, Equatable, Sendable {
    static let collection = "shapes"
    var id: String
    var sides: Int
}

// A budget with items, each optionally filed under a category.
struct Budget: Codable, Persistable, Equatable, Sendable {
    static let collection = "budgets"
    var id: String
    var name: String
}

struct BudgetItem: Codable, Persistable, Equatable, Sendable {
    static let collection = "items"
    var id: String
    var budget: Ref<Budget>
    var category: Ref<Category>?
    var amount: Int
}

struct Category: Codable, Persistable, Equatable, Sendable {
    static let collection = "categories"
    var id: String
}

/// A node of a random graph: its edges, each with its rules.
struct GraphNode: Codable, Persistable, Equatable, Sendable {
    static let collection = "nodes"
    struct Out: Codable, Equatable, Sendable {
        var name: String
        var to: String
        var rules: UInt8
    }
    var id: String
    var out: [Out]
}

/// The edges of random graphs: each node's edges as it lists them, with their rules.
let nodeGraph = Relationships(versionTag: "1").edges(from: GraphNode.self) { node in
    node.out.map { .init($0.name, to: GraphNode.index(forKey: $0.to), rules: DeleteRules(rawValue: $0.rules)) }
}

/// The document graph: deleting a value deletes what it owns, down the tree.
let documentGraph = Relationships(versionTag: "1")
    .edges(from: Doc.self) { doc in doc.pages.map { .init("pages", to: $0, rules: .deleteDestinationWithSource) } }
    .edges(from: DocPage.self) { page in page.layers.map { .init("layers", to: $0, rules: .deleteDestinationWithSource) } }
    .edges(from: DocLayer.self) { layer in layer.shapes.map { .init("shapes", to: $0, rules: .deleteDestinationWithSource) } }

/// Builds document `id` with `pages` pages of 2 layers of 3 shapes.
func writeDocument(_ id: String, pages: Int, in txn: ReadWriteTransaction) throws {
    var pageRefs: [Ref<DocPage>] = []
    for p in 0..<pages {
        var layerRefs: [Ref<DocLayer>] = []
        for l in 0..<2 {
            var shapeRefs: [Ref<DocShape>] = []
            for s in 0..<3 {
                let shape = DocShape(id: "\(id).\(p).\(l).\(s)", sides: s + 3)
                try txn.write(shape)
                shapeRefs.append(Ref(shape))
            }
            let layer = DocLayer(id: "\(id).\(p).\(l)", shapes: shapeRefs)
            try txn.write(layer)
            layerRefs.append(Ref(layer))
        }
        let page = DocPage(id: "\(id).\(p)", layers: layerRefs)
        try txn.write(page)
        pageRefs.append(Ref(page))
    }
    try txn.write(Doc(id: id, pages: pageRefs))
}

@Suite("Relationships and delete rules")
struct RelationshipsTests {
    @Test func deletingADocumentDeletesItsPagesLayersAndShapes() throws {
        try withStore { db, _ in
            let graph = try db.register(documentGraph, named: "graph")
            try db.write { txn throws in
                try writeDocument("d1", pages: 3, in: txn)
                try writeDocument("d2", pages: 2, in: txn)
            }
            try db.read { txn throws in
                #expect(try txn[graph].edgeCount(from: Doc.index(forKey: "d1")) == 3)
                #expect(try txn[graph].edges(to: DocShape.index(forKey: "d1.0.1.2")).map(\.source) == [DocLayer.index(forKey: "d1.0.1")])
                #expect(try txn[graph].edges(from: DocLayer.index(forKey: "d1.0.1"), named: "shapes").count == 3)
                #expect(try txn[graph].edges(from: DocLayer.index(forKey: "d1.0.1"), named: "pages").isEmpty)
            }
            let watcher = db.newConnection()
            try watcher.pinSnapshot()
            _ = try db.write { try $0.remove(Doc.self, key: "d1") }
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: "documents") == 1)
                #expect(try txn.numberOfKeys(inCollection: "pages") == 2)
                #expect(try txn.numberOfKeys(inCollection: "layers") == 4)
                #expect(try txn.numberOfKeys(inCollection: "shapes") == 12)
                #expect(try txn.keys(inCollection: "shapes").allSatisfy { $0.hasPrefix("d2.") })
                #expect(try txn[graph].edgeCount(from: Doc.index(forKey: "d1")) == 0)
                #expect(try txn[graph].edgeCount(to: DocShape.index(forKey: "d1.0.1.2")) == 0)
            }
            // One commit, with every cascaded removal in its changeset.
            let changesets = try watcher.advanceSnapshot()
            #expect(changesets.count == 1)
            let changeset = try #require(changesets.first)
            #expect(changeset.hasChange(inCollection: "shapes"))
            #expect(changeset.change(for: DocShape.index(forKey: "d1.2.1.2"))?.object == .removed)
            #expect(changeset.changes.filter { $0.value.object == .removed }.count == 1 + 3 + 6 + 18)
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func aBudgetTakesItsItemsAndACategoryIsNullified() throws {
        let budgetGraph = Relationships(versionTag: "1")
            .edges(from: BudgetItem.self, { item in
                var links: [Relationships.Link] = [.init("budget", to: item.budget, rules: .deleteSourceWithDestination)]
                if let category = item.category { links.append(.init("category", to: category, rules: .nullifySource)) }
                return links
            }, nullify: { item, edge in
                if edge.name == "category" { item.category = nil }
            })
        try withStore { db, _ in
            let graph = try db.register(budgetGraph, named: "budget")
            let food = Category(id: "food")
            try db.write { txn throws in
                try txn.write(Budget(id: "home", name: "Home"))
                try txn.write(Budget(id: "work", name: "Work"))
                try txn.write(food)
                for i in 0..<5 {
                    try txn.write(BudgetItem(id: "h\(i)", budget: Ref(id: "home"), category: i.isMultiple(of: 2) ? Ref(food) : nil, amount: i))
                    try txn.write(BudgetItem(id: "w\(i)", budget: Ref(id: "work"), category: Ref(food), amount: 10 * i))
                }
            }
            #expect(try db.read { try $0[graph].edgeCount(to: food.index, named: "category") } == 8)

            _ = try db.write { try $0.remove(Budget.self, key: "home") }
            try db.read { txn throws in
                #expect(try txn.keys(inCollection: "items") == (0..<5).map { "w\($0)" })
                #expect(try txn.numberOfKeys(inCollection: "budgets") == 1)
                #expect(try txn[graph].edgeCount(to: food.index) == 5)
            }

            // Deleting the category nullifies the items' references: they stay, without it.
            _ = try db.write { try $0.remove(food) }
            try db.read { txn throws in
                let items = try txn.read(BudgetItem.self, keys: (0..<5).map { "w\($0)" })
                #expect(items.count == 5)
                #expect(items.allSatisfy { $0.category == nil && $0.budget == Ref(id: "work") })
                #expect(try txn[graph].edgeCount(to: food.index) == 0)
                #expect(try txn[graph].edgeCount(from: BudgetItem.index(forKey: "w3")) == 1)
            }
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func aCycleIsDeletedOnceAndTheCascadeEnds() throws {
        try withStore { db, _ in
            try db.register(nodeGraph, named: "ring")
            let cascade = DeleteRules.deleteDestinationWithSource.rawValue
            try db.write { txn throws in
                // a → b → c → a, and c → d; e stands alone.
                try txn.write(GraphNode(id: "a", out: [.init(name: "next", to: "b", rules: cascade)]))
                try txn.write(GraphNode(id: "b", out: [.init(name: "next", to: "c", rules: cascade)]))
                try txn.write(GraphNode(id: "c", out: [.init(name: "next", to: "a", rules: cascade), .init(name: "next", to: "d", rules: cascade)]))
                try txn.write(GraphNode(id: "d", out: []))
                try txn.write(GraphNode(id: "e", out: []))
            }
            _ = try db.write { try $0.remove(GraphNode.self, key: "b") }
            #expect(try db.read { try $0.keys(inCollection: "nodes") } == ["e"])
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func lastSourceAndLastDestinationRules() throws {
        try withStore { db, _ in
            try db.register(nodeGraph, named: "g")
            let lastSource = DeleteRules.deleteDestinationWithLastSource.rawValue
            let lastDestination = DeleteRules.deleteSourceWithLastDestination.rawValue
            try db.write { txn throws in
                // Two notes share a tag; an album holds two photos.
                try txn.write(GraphNode(id: "note1", out: [.init(name: "tag", to: "tag", rules: lastSource)]))
                try txn.write(GraphNode(id: "note2", out: [.init(name: "tag", to: "tag", rules: lastSource), .init(name: "other", to: "photo1", rules: 0)]))
                try txn.write(GraphNode(id: "tag", out: []))
                try txn.write(GraphNode(id: "album", out: [.init(name: "photos", to: "photo1", rules: lastDestination), .init(name: "photos", to: "photo2", rules: lastDestination)]))
                try txn.write(GraphNode(id: "photo1", out: []))
                try txn.write(GraphNode(id: "photo2", out: []))
            }
            _ = try db.write { try $0.remove(GraphNode.self, key: "note1") }
            #expect(try db.read { try $0.hasObject(forKey: "tag", inCollection: "nodes") })
            _ = try db.write { try $0.remove(GraphNode.self, key: "note2") }
            #expect(try db.read { try !$0.hasObject(forKey: "tag", inCollection: "nodes") })

            _ = try db.write { try $0.remove(GraphNode.self, key: "photo1") }
            #expect(try db.read { try $0.hasObject(forKey: "album", inCollection: "nodes") })
            _ = try db.write { try $0.remove(GraphNode.self, key: "photo2") }
            #expect(try db.read { try $0.keys(inCollection: "nodes") } == [])
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func edgesAddedByHandFollowTheirEndsAndSurviveARebuild() throws {
        try withStore { db, directory in
            var graph = try db.register(documentGraph, named: "graph")
            let pageA = DocPage(id: "a", layers: []), pageB = DocPage(id: "b", layers: []), shape = DocShape(id: "s", sides: 4)
            try db.write { txn throws in
                try txn.write(pageA)
                try txn.write(pageB)
                try txn.write(shape)
                try txn[graph].addEdge("linksTo", from: pageA.index, to: pageB.index)
                try txn[graph].addEdge("uses", from: pageB.index, to: shape.index, rules: .deleteDestinationWithSource)
            }
            try db.read { txn throws in
                let edge = try #require(try txn[graph].edges(from: pageA).first)
                #expect(edge.isManual && edge.name == "linksTo" && edge.destination == pageB.index && edge.rules == [])
                #expect(try txn[graph].edges(to: shape).map(\.rules) == [.deleteDestinationWithSource])
                #expect(try txn.numberOfKeys(inCollection: graph.manualEdgesCollection) == 2)
            }
            // A new tag rebuilds from the values: the manual edges are values too.
            let retagged = Relationships(versionTag: "2").edges(from: Doc.self) { doc in doc.pages.map { .init("pages", to: $0) } }
            try db.unregisterExtension(named: "graph")
            graph = try db.register(retagged, named: "graph")
            #expect(try db.read { try $0[graph].edgeCount(from: pageA.index) } == 1)
            #expect(try db.verifyExtensions().isEmpty)

            // Deleting an end removes the edge (and its object), after running its rule.
            _ = try db.write { try $0.remove(pageB) }
            try db.read { txn throws in
                #expect(try txn[graph].edgeCount(from: pageA.index) == 0)
                #expect(try !txn.hasObject(forKey: "s", inCollection: "shapes"))
                #expect(try txn.numberOfKeys(inCollection: graph.manualEdgesCollection) == 0)
            }
            try db.write { txn throws in
                try txn[graph].addEdge("linksTo", from: pageA.index, to: DocPage.index(forKey: "elsewhere"))
                #expect(try txn[graph].removeEdge("linksTo", from: pageA.index, to: DocPage.index(forKey: "elsewhere")))
                #expect(try !txn[graph].removeEdge("linksTo", from: pageA.index, to: DocPage.index(forKey: "elsewhere")))
            }
            #expect(try db.read { try $0.hasObject(forKey: "a", inCollection: "pages") })  // removing an edge deletes no end
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func referencesAreFoundByReflection() throws {
        let graph = Relationships(versionTag: "1").references(from: Venn.self, rules: .deleteDestinationWithSource)
        try withStore { db, _ in
            let handle = try db.register(graph, named: "refs")
            let a = Circle(id: "a", radius: 1), b = Circle(id: "b", radius: 2)
            try db.write { txn throws in
                try txn.write(a)
                try txn.write(b)
                try txn.write(Venn(id: "v", left: Ref(a), right: Ref(b)))
            }
            let edges = try db.read { try $0[handle].edges(from: Venn.index(forKey: "v")) }
            #expect(edges.map(\.name) == ["left", "right"])
            #expect(edges.map(\.destination) == [a.index, b.index])
            _ = try db.write { try $0.remove(Venn.self, key: "v") }
            #expect(try db.read { try $0.numberOfKeys(inCollection: "circles") } == 0)
        }
    }

    @Test func garbageCollectionDeletesWhatNoRootReaches() throws {
        let graph = Relationships(versionTag: "1")
            .edges(from: Doc.self) { doc in doc.pages.map { .init("pages", to: $0) } }
            .edges(from: DocPage.self) { page in page.layers.map { .init("layers", to: $0) } }
            .edges(from: DocLayer.self) { layer in layer.shapes.map { .init("shapes", to: $0) } }
        try withStore { db, _ in
            let handle = try db.register(graph.collectingGarbage(in: ["documents", "pages", "layers", "shapes"]), named: "graph")
            try db.write { txn throws in
                try writeDocument("main", pages: 2, in: txn)
                try writeDocument("orphan", pages: 1, in: txn)
                try txn.setRoot(Ref<Doc>(id: "main"), named: "main")
            }
            let deleted = try db.write { try $0[handle].collectGarbage() }
            let orphan = ["orphan", "orphan.0", "orphan.0.0", "orphan.0.1"] + (0..<2).flatMap { l in (0..<3).map { "orphan.0.\(l).\($0)" } }
            #expect(Set(deleted.map(\.key)) == Set(orphan))
            #expect(try db.read { try $0.numberOfKeys(inCollection: "shapes") } == 12)
            #expect(try db.write { try $0[handle].collectGarbage() } == [])

            // Dropping a page from the document leaves it unreachable; it is collected on request.
            try db.write { txn throws in
                var main = try #require(try txn.read(Doc.self, key: "main"))
                main.pages.removeLast()
                try txn.write(main)
            }
            #expect(try db.read { try $0.numberOfKeys(inCollection: "pages") } == 2)
            #expect(try db.write { try $0[handle].collectGarbage() }.count == 1 + 2 + 6)
            #expect(try db.read { try $0.keys(inCollection: "pages") } == ["main.0"])
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func garbageCollectionAfterWritesFollowsRemovedReferencesAndRoots() throws {
        let graph = Relationships(versionTag: "1")
            .edges(from: Doc.self) { doc in doc.pages.map { .init("pages", to: $0) } }
            .edges(from: DocPage.self) { page in page.layers.map { .init("layers", to: $0) } }
            .edges(from: DocLayer.self) { layer in layer.shapes.map { .init("shapes", to: $0) } }
            .collectingGarbage(in: ["pages", "layers", "shapes"], afterWrites: true)
        try withStore { db, _ in
            try db.register(graph, named: "graph")
            try db.write { txn throws in
                try writeDocument("d", pages: 2, in: txn)
                // A shape no one references yet: it stays until a write removes a reference.
                try txn.write(DocShape(id: "loose", sides: 9))
            }
            #expect(try db.read { try $0.numberOfKeys(inCollection: "shapes") } == 13)
            try db.write { txn throws in
                var layer = try #require(try txn.read(DocLayer.self, key: "d.1.1"))
                layer.shapes.removeFirst()
                try txn.write(layer)
            }
            try db.read { txn throws in
                #expect(try !txn.hasObject(forKey: "d.1.1.0", inCollection: "shapes"))
                #expect(try !txn.hasObject(forKey: "loose", inCollection: "shapes"))
                #expect(try txn.numberOfKeys(inCollection: "shapes") == 11)
            }
            // Documents are not collected: they keep what they reach. Deleting one drops the rest.
            _ = try db.write { try $0.remove(Doc.self, key: "d") }
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: "pages") == 0)
                #expect(try txn.numberOfKeys(inCollection: "shapes") == 0)
            }
            // A root keeps a page alive; removing the root lets it go.
            try db.write { txn throws in
                try txn.write(DocPage(id: "kept", layers: []))
                try txn.setRoot(Ref<DocPage>(id: "kept"), named: "start")
            }
            try db.write { try $0.write(DocPage(id: "kept", layers: [])) }
            #expect(try db.read { try $0.hasObject(forKey: "kept", inCollection: "pages") })
            _ = try db.write { try $0.removeRoot(named: "start") }
            #expect(try db.read { try $0.numberOfKeys(inCollection: "pages") } == 0)
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func clearingACollectionRunsTheRules() throws {
        try withStore { db, _ in
            try db.register(documentGraph, named: "graph")
            try db.write { txn throws in
                try writeDocument("d1", pages: 2, in: txn)
                try writeDocument("d2", pages: 1, in: txn)
            }
            try db.write { try $0.removeAllObjects(inCollection: "pages") }
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: "layers") == 0)
                #expect(try txn.numberOfKeys(inCollection: "shapes") == 0)
                #expect(try txn.numberOfKeys(inCollection: "documents") == 2)
            }
            #expect(try db.verifyExtensions().isEmpty)
            try db.write { try $0.removeAllObjectsInAllCollections() }
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func badInputIsRefusedAndLosesNothing() throws {
        try withStore { db, _ in
            let graph = try db.register(documentGraph, named: "graph")
            let long = String(repeating: "k", count: 600)
            try db.write { try $0.write(DocPage(id: "p", layers: [])) }
            // An edge too long to store fails its write, which stores nothing.
            let error = #expect(throws: LarderError.self) {
                try db.write { try $0.write(DocPage(id: "p", layers: [Ref(key: long)])) }
            }
            #expect(error?.code == .keyTooLong)
            #expect(try db.read { try $0.read(DocPage.self, key: "p") } == DocPage(id: "p", layers: []))
            // An extension that is not registered here.
            let missing = RelationshipsHandle(name: "missing")
            #expect(throws: LarderError.self) { try db.read { try $0[missing].edgeCount(from: DocPage.index(forKey: "p")) } }
            #expect(throws: LarderError.self) { try db.write { try $0[missing].addEdge("x", from: DocPage.index(forKey: "p"), to: DocPage.index(forKey: "q")) } }
            // A value of another type in a source collection declares no edges.
            try db.write { try $0.setObject("not a page", forKey: "odd", inCollection: "pages") }
            #expect(try db.read { try $0[graph].edgeCount(from: DocPage.index(forKey: "odd")) } == 0)
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test func randomGraphsDeleteExactlyTheClosureOfTheRules() throws {
        let rounds = ProcessInfo.processInfo.environment["LARDER_FULL"] == nil ? 12 : 200
        for round in 0..<rounds {
            let seed = UInt64(round) &* 0x9E37_79B9 &+ 17
            var random = SplitMix(seed: seed)
            try withStore { db, _ in
                try db.register(nodeGraph, named: "g")
                var model: [String: GraphNode] = [:]
                let names = (0..<24).map { "n\($0)" }
                func randomNode(_ id: String) -> GraphNode {
                    // Mostly a few links; now and then many, with the same edge declared twice.
                    let count = Int.random(in: 0..<8, using: &random) == 0 ? Int.random(in: 17...40, using: &random) : Int.random(in: 0...3, using: &random)
                    return GraphNode(id: id, out: (0..<count).map { _ in
                        GraphNode.Out(name: ["a", "b"].randomElement(using: &random)!, to: names.randomElement(using: &random)!,
                                      rules: UInt8.random(in: 0..<16, using: &random))
                    })
                }
                try db.write { txn throws in
                    for id in names.shuffled(using: &random).prefix(20) {
                        let node = randomNode(id)
                        model[id] = node
                        try txn.write(node)
                    }
                }
                for _ in 0..<6 {
                    guard let victim = model.keys.sorted().randomElement(using: &random) else { break }
                    // Rewrite a few nodes first, so that edges change before deletions.
                    try db.write { txn throws in
                        for id in model.keys.sorted().shuffled(using: &random).prefix(2) {
                            let node = randomNode(id)
                            model[id] = node
                            try txn.write(node)
                        }
                    }
                    let expected = Self.closure(deleting: victim, in: model)
                    _ = try db.write { try $0.remove(GraphNode.self, key: victim) }
                    for id in expected { model[id] = nil }
                    let remaining = try db.read { try $0.keys(inCollection: "nodes") }
                    #expect(remaining == model.keys.sorted(), "seed \(seed): deleting \(victim)")
                }
                #expect(try db.verifyExtensions().isEmpty, "seed \(seed)")
            }
        }
    }

    /// The nodes deleted when `victim` is: the smallest set containing it and closed under every
    /// rule, computed by iterating to a fixed point over the whole model.
    static func closure(deleting victim: String, in nodes: [String: GraphNode]) -> Set<String> {
        var deleted: Set<String> = [victim]
        let edges = nodes.values.flatMap { node in node.out.map { (source: node.id, name: $0.name, destination: $0.to, rules: DeleteRules(rawValue: $0.rules)) } }
        func gone(_ id: String) -> Bool { deleted.contains(id) || nodes[id] == nil }
        var changed = true
        while changed {
            changed = false
            func add(_ id: String) {
                if nodes[id] != nil, deleted.insert(id).inserted { changed = true }
            }
            for edge in edges {
                if deleted.contains(edge.source) && edge.rules.contains(.deleteDestinationWithSource) { add(edge.destination) }
                if deleted.contains(edge.destination) && edge.rules.contains(.deleteSourceWithDestination) { add(edge.source) }
                if deleted.contains(edge.source) && edge.rules.contains(.deleteDestinationWithLastSource),
                   edges.allSatisfy({ $0.destination != edge.destination || $0.name != edge.name || gone($0.source) }) {
                    add(edge.destination)
                }
                if deleted.contains(edge.destination) && edge.rules.contains(.deleteSourceWithLastDestination),
                   edges.allSatisfy({ $0.source != edge.source || $0.name != edge.name || gone($0.destination) }) {
                    add(edge.source)
                }
            }
        }
        return deleted
    }
}
