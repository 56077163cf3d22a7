import Foundation
import Testing
@testable import Larder

/// The spatial index against a brute-force model: random inserts, moves, removals, objects left
/// out, cleared collections and rolled-back transactions, each followed by rectangle and
/// nearest-point queries answered both ways, and the R-tree's shape checked.
@Suite("Spatial index")
struct SpatialIndexTests {
    struct Place: Codable, Sendable, Equatable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double

        /// A negative width leaves the place out of the index.
        var box: SpatialBox? { width < 0 ? nil : SpatialBox(minX: x, minY: y, maxX: x + width, maxY: y + height) }
    }

    static let index = SpatialIndex<Place, NoMetadata>(collections: ["places"], versionTag: "1") { _, place in place.box }

    static func randomPlace(_ random: inout SplitMix) -> Place {
        let point = Int.random(in: 0..<3, using: &random) == 0
        let size = Double.random(in: 0...30, using: &random)
        return Place(x: Double.random(in: -500...500, using: &random).rounded(), y: Double.random(in: -500...500, using: &random).rounded(),
                     width: Int.random(in: 0..<20, using: &random) == 0 ? -1 : (point ? 0 : size.rounded()),
                     height: point ? 0 : Double.random(in: 0...30, using: &random).rounded())
    }

    static func randomRectangle(_ random: inout SplitMix) -> SpatialBox {
        let x = Double.random(in: -600...600, using: &random), y = Double.random(in: -600...600, using: &random)
        return SpatialBox(minX: x, minY: y, maxX: x + Double.random(in: 0...300, using: &random), maxY: y + Double.random(in: 0...300, using: &random))
    }

    /// Every query answered by the index and by the model agree, and the tree is well formed.
    static func check(_ db: Database, _ handle: SpatialIndexHandle<Place, NoMetadata>, _ model: [String: Place], _ random: inout SplitMix, seed: UInt64) throws {
        let boxes = model.compactMapValues(\.box)
        let rectangles = (0..<4).map { _ in randomRectangle(&random) }
        let point = (x: Double.random(in: -550...550, using: &random), y: Double.random(in: -550...550, using: &random))
        let k = Int.random(in: 0...12, using: &random)
        try db.read { txn throws in
            let reader = try txn[handle]
            #expect(try reader.count() == boxes.count, "seed \(seed)")
            for rectangle in rectangles {
                #expect(Set(try reader.indexes(intersecting: rectangle).map(\.key)) == Set(boxes.filter { $0.value.intersects(rectangle) }.keys), "seed \(seed)")
                #expect(Set(try reader.indexes(within: rectangle).map(\.key)) == Set(boxes.filter { rectangle.contains($0.value) }.keys), "seed \(seed)")
            }
            let nearest = try reader.nearest(toX: point.x, y: point.y, count: k)
            let expected = boxes.values.map { $0.distanceSquared(toX: point.x, y: point.y).squareRoot() }.sorted().prefix(k)
            #expect(nearest.map(\.distance) == Array(expected), "seed \(seed)")
            for (index, distance) in nearest {
                #expect(boxes[index.key].map { $0.distanceSquared(toX: point.x, y: point.y).squareRoot() } == distance, "seed \(seed)")
            }
            let runtime = try txn.extensionRuntime(named: handle.name, as: SpatialIndexRuntime<Place, NoMetadata>.self)
            let leaves = try runtime.tree(txn.lmdb).checkedLeafEntries()
            #expect(leaves.count == boxes.count, "seed \(seed)")
        }
    }

    @Test func queriesMatchABruteForceModelThroughRandomWrites() throws {
        let seed = ProcessInfo.processInfo.environment["LARDER_SPATIAL_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        let rounds = ProcessInfo.processInfo.environment["LARDER_FULL"] == nil ? 80 : 1_500
        print("spatial index: seed \(seed), \(rounds) rounds")
        var random = SplitMix(seed: seed)
        try withStore { db, _ in
            let handle = try db.register(Self.index, named: "places")
            var model: [String: Place] = [:]
            for round in 0..<rounds {
                let rollsBack = Int.random(in: 0..<8, using: &random) == 0
                var next = model
                let operations = Int.random(in: 1...40, using: &random)
                var script: [(key: String, place: Place?)] = []
                for _ in 0..<operations {
                    let key = "p\(Int.random(in: 0..<(model.count < 300 ? 900 : 450), using: &random))"
                    let place: Place? = Int.random(in: 0..<4, using: &random) == 0 ? nil : Self.randomPlace(&random)
                    script.append((key, place))
                    next[key] = place
                }
                let clears = Int.random(in: 0..<60, using: &random) == 0
                try db.write { txn in
                    for (key, place) in script {
                        if let place { try txn.setObject(place, forKey: key, inCollection: "places") } else { try txn.removeObject(forKey: key, inCollection: "places") }
                        try txn.setObject(1, forKey: key, inCollection: "elsewhere")
                    }
                    if clears { try txn.removeAllObjects(inCollection: "places") }
                    // Reads inside the write see its writes.
                    let inside = try txn[handle].count()
                    #expect(inside == (clears ? 0 : next.compactMapValues(\.box).count), "seed \(seed), round \(round)")
                    if rollsBack { txn.rollback() }
                }
                if !rollsBack { model = clears ? [:] : next }
                try Self.check(db, handle, model, &random, seed: seed)
                if round % 20 == 19 { #expect(try db.verifyExtensions().isEmpty, "seed \(seed), round \(round)") }
            }
            #expect(try db.verifyExtensions().isEmpty, "seed \(seed)")
        }
    }

    /// A group commit runs each caller in a nested transaction: the failing caller's boxes leave
    /// no trace in the tree; registering again with the same tag after reopening rebuilds nothing.
    @Test func aFailedCallerLeavesNoBoxAndTheIndexOutlivesTheProcess() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            let handle = try db.register(Self.index, named: "places")
            try await db.write { txn in
                for n in 0..<200 { try txn.setObject(Place(x: Double(n), y: Double(n % 7), width: 1, height: 1), forKey: "base\(n)", inCollection: "places") }
            }
            let outcomes = try await GroupCommitTests().grouped(db, 4) { caller, txn in
                for n in 0..<60 { try txn.setObject(Place(x: Double(1_000 * (caller + 1) + n), y: 0, width: 0, height: 0), forKey: "c\(caller)-\(n)", inCollection: "places") }
                try txn.removeObject(forKey: "base\(caller)", inCollection: "places")
                if caller == 2 { throw GroupCommitTests.Failure(caller: caller) }
                return caller
            }
            #expect(outcomes.filter { (try? $0.get()) == nil }.count == 1)
            try await db.read { txn throws in
                #expect(try txn[handle].count() == 200 - 3 + 180)
                #expect(try txn[handle].indexes(intersecting: SpatialBox(minX: 2_999, minY: -1, maxX: 3_100, maxY: 1)).isEmpty)  // caller 2's
                #expect(try txn[handle].indexes(intersecting: SpatialBox(minX: 3_999, minY: -1, maxX: 4_100, maxY: 1)).count == 60)
            }
            #expect(try db.verifyExtensions().isEmpty)
        }
        let db = try Database(path: path)
        var reports = 0
        let handle = try db.register(Self.index, named: "places") { _ in reports += 1 }
        #expect(reports == 0)
        let nearest = try await db.read { try $0[handle].nearest(toX: 4_000.2, y: 0, count: 2).map(\.index.key) }
        #expect(nearest == ["c3-0", "c3-1"])
        #expect(try db.verifyExtensions().isEmpty)
    }

    /// A box that is not finite, or whose minimum passes its maximum, fails the write and
    /// changes nothing; so does a query with one.
    @Test func badBoxesAndQueriesAreClearErrors() throws {
        try withStore { db, _ in
            let handle = try db.register(Self.index, named: "places")
            try db.write { try $0.setObject(Place(x: 0, y: 0, width: 1, height: 1), forKey: "good", inCollection: "places") }
            for bad in [Place(x: .nan, y: 0, width: 1, height: 1), Place(x: 0, y: .infinity, width: 0, height: 0), Place(x: 0, y: 0, width: 1, height: -2)] {
                let error = #expect(throws: LarderError.self) {
                    try db.write { try $0.setObject(bad, forKey: "bad", inCollection: "places") }
                }
                #expect(error?.code == .encodingFailed)
                #expect(error?.extensionName == "places")
            }
            try db.read { txn throws in
                #expect(try txn.object(forKey: "bad", inCollection: "places", as: Place.self) == nil)
                #expect(try txn[handle].count() == 1)
                for rectangle in [SpatialBox(minX: 1, minY: 0, maxX: 0, maxY: 1), SpatialBox(minX: -.infinity, minY: 0, maxX: 0, maxY: 1)] {
                    let error = #expect(throws: LarderError.self) { try txn[handle].indexes(intersecting: rectangle) }
                    #expect(error?.code == .invalidQuery)
                }
                let error = #expect(throws: LarderError.self) { try txn[handle].nearest(toX: .nan, y: 0, count: 1) }
                #expect(error?.code == .invalidQuery)
            }
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    /// A damaged tree (a child pointer that loops back to the root, a height past any real
    /// tree, a node whose bytes are not a node) is an error for every query and write, never a
    /// hang or a crash, and the write changes nothing.
    @Test func aDamagedTreeIsAnErrorNotAHang() throws {
        enum Damage: CaseIterable { case loop, height, garbage }
        for damage in Damage.allCases {
            try withStore { db, _ in
                let handle = try db.register(Self.index, named: "places")
                try db.write { txn in
                    for n in 0..<100 { try txn.setObject(Place(x: Double(n), y: 0, width: 1, height: 1), forKey: "p\(n)", inCollection: "places") }
                }
                try db.write { txn in
                    let runtime = try txn.extensionRuntime(named: "places", as: SpatialIndexRuntime<Place, NoMetadata>.self)
                    let tree = runtime.tree(txn.lmdb)
                    var header = try tree.header()
                    #expect(header.height == 2)
                    switch damage {
                    case .loop:
                        var root = try tree.node(header.root)
                        root.children[0] = header.root
                        try tree.write(root, at: header.root)
                    case .height:
                        header.height = 1_000
                        try tree.write(header)
                    case .garbage:
                        let root = try tree.node(header.root)
                        try withUnsafeBytes(of: root.children[0].bigEndian) { key in
                            try [UInt8](repeating: 0xEE, count: 40).withUnsafeBytes { try txn.lmdb.put(runtime.parts["nodes"], key: key, value: $0) }
                        }
                    }
                }
                try db.read { txn throws in
                    let everything = SpatialBox(minX: -10, minY: -10, maxX: 200, maxY: 10)
                    var error = #expect(throws: LarderError.self, "\(damage)") { try txn[handle].indexes(intersecting: everything) }
                    #expect(error?.code == .corrupted, "\(damage)")
                    error = #expect(throws: LarderError.self, "\(damage)") { try txn[handle].nearest(toX: 50, y: 0, count: 100) }
                    #expect(error?.code == .corrupted, "\(damage)")
                }
                let error = #expect(throws: LarderError.self, "\(damage)") {
                    try db.write { txn in
                        try txn.removeObject(forKey: "p0", inCollection: "places")
                        try txn.setObject(Place(x: 500, y: 500, width: 0, height: 0), forKey: "new", inCollection: "places")
                    }
                }
                #expect(error?.code == .corrupted, "\(damage)")
                #expect(try db.read { try $0.object(forKey: "p0", inCollection: "places", as: Place.self) } != nil)
                // Verification finds the damage: it throws, or lists differences.
                if case .success(let differences) = Result(catching: { try db.verifyExtensions() }) {
                    #expect(!differences.isEmpty, "\(damage)")
                }
            }
        }
    }

    /// Two collections whose names Swift's `String ==` calls equal are two collections: the
    /// index reads both, and clearing one leaves the other's boxes.
    @Test func twinCollectionsAreTwoCollections() throws {
        let (composed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
        let index = SpatialIndex<Place, NoMetadata>(collections: [composed, decomposed], versionTag: "1") { _, place in place.box }
        #expect(index.collections?.count == 2)
        try withStore { db, _ in
            let handle = try db.register(index, named: "places")
            try db.write { txn in
                try txn.setObject(Place(x: 1, y: 1, width: 0, height: 0), forKey: "a", inCollection: composed)
                try txn.setObject(Place(x: 2, y: 2, width: 0, height: 0), forKey: "a", inCollection: decomposed)
            }
            #expect(try db.read { try $0[handle].count() } == 2)
            try db.write { try $0.removeAllObjects(inCollection: composed) }
            let left = try db.read { try $0[handle].indexes(intersecting: SpatialBox(minX: 0, minY: 0, maxX: 5, maxY: 5)) }
            #expect(left.map { Array($0.collection.utf8) } == [Array(decomposed.utf8)])
            #expect(try db.verifyExtensions().isEmpty)
        }
    }
}
