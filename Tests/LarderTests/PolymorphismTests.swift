import Foundation
import Testing
@testable import Larder

/// Collections and references that hold several concrete types of one protocol.
@Suite("Polymorphism")
struct PolymorphismTests {
    protocol Shape: Sendable {
        var area: Double { get }
    }

    struct Circle: Shape, Codable, Persistable, Equatable {
        static let collection = "shapes"
        var id: String
        var radius: Double
        var area: Double { .pi * radius * radius }
    }

    struct Square: Shape, Codable, Persistable, Equatable {
        static let collection = "shapes"
        var id: String
        var side: Double
        var area: Double { side * side }
    }

    /// A shape no archiver registers.
    struct Triangle: Shape, Codable, Persistable, Equatable {
        static let collection = "shapes"
        var id: String
        var base: Double
        var height: Double
        var area: Double { base * height / 2 }
    }

    struct Drawing: Codable, Persistable, Equatable {
        static let collection = "drawings"
        var id: String
        var highlight: PolymorphicRef<any Shape>
        var others: [PolymorphicRef<any Shape>] = []
    }

    struct Note: Codable, Equatable {
        var text: String
    }

    static let shapes = PolymorphicArchiver<any Shape>(["circle": Circle.self, "square": Square.self])

    /// A store whose connections keep no decoded values, so that every read decodes.
    static let uncached: Database.Configuration = {
        var configuration = Database.Configuration()
        configuration.objectCacheLimit = 0
        return configuration
    }()

    static func cacheConfiguration(_ objectCacheLimit: Int) -> Database.Configuration {
        var configuration = Database.Configuration()
        configuration.objectCacheLimit = objectCacheLimit
        return configuration
    }

    // MARK: One collection, several types

    @Test(arguments: [0, 250])
    func severalTypesShareOneCollection(objectCacheLimit: Int) throws {
        try withStore(Self.cacheConfiguration(objectCacheLimit)) { db, _ in
            db.register(Self.shapes, forCollection: "shapes")
            let circle = Circle(id: "c1", radius: 1.5)
            let square = Square(id: "s1", side: 2)
            let other = Circle(id: "c2", radius: 0)
            try db.write { txn in
                try txn.write(circle)                                   // concrete, Persistable
                try txn.setObject(square as any Shape, forKey: "s1", inCollection: "shapes", archiver: Self.shapes)
                try txn.setObject(other, forKey: "c2", inCollection: "shapes")  // concrete, plain
            }

            // As the existential: each value comes back as its own concrete type.
            let all = try db.read { txn in
                var found: [(String, any Shape)] = []
                try txn.enumerateObjects(inCollection: "shapes", archiver: Self.shapes) { key, shape, _ in found.append((key, shape)) }
                return found
            }
            #expect(all.map(\.0) == ["c1", "c2", "s1"])
            #expect(all[0].1 as? Circle == circle)
            #expect(all[1].1 as? Circle == other)
            #expect(all[2].1 as? Square == square)
            #expect(all.map(\.1.area) == [circle.area, 0, 4])
            let one = try db.read { try $0.object(forKey: "s1", inCollection: "shapes", archiver: Self.shapes) }
            #expect(one as? Square == square)

            // As a concrete type.
            #expect(try db.read { try $0.read(Circle.self, key: "c1") } == circle)
            #expect(try db.read { try $0.read(Square.self, id: "s1") } == square)
            #expect(try db.read { try $0.object(forKey: "c2", inCollection: "shapes", as: Circle.self) } == other)
            #expect(try db.read { try $0.read(Circle.self, key: "missing") } == nil)

            // Every value of one concrete type: the others of the family are skipped (this threw).
            #expect(try db.readAll(Circle.self) == [circle, other])
            #expect(try db.read { try $0.readAll(Square.self) } == [square])

            // As the wrong concrete type: a clear error, not a garbled value.
            let error = #expect(throws: LarderError.self) { try db.read { try $0.read(Circle.self, key: "s1") } }
            #expect(error?.code == .decodingFailed)
            #expect(error?.message.contains("\"square\" (Square), not a \"circle\" (Circle)") == true, "\(String(describing: error))")
            #expect(error?.index == YapDB.Index(collection: "shapes", key: "s1"))
        }
    }

    @Test func aConcreteWriteStoresTheSameBytesAsAnExistentialOne() throws {
        try withStore(Self.uncached) { db, _ in
            db.register(Self.shapes, forCollection: "shapes")
            let circle = Circle(id: "c", radius: 3)
            try db.write { txn in
                try txn.write(circle)
                try txn.setObject(circle as any Shape, forKey: "c-existential", inCollection: "shapes", archiver: Self.shapes)
            }
            let (concrete, existential) = try db.read { txn in
                (try txn.storedObject(forKey: "c", inCollection: "shapes"), try txn.storedObject(forKey: "c-existential", inCollection: "shapes"))
            }
            #expect(try #require(concrete).bytes == (try #require(existential)).bytes)
            #expect(concrete?.format == .messagePack)
        }
    }

    @Test func otherValuesInThePolymorphicCollectionAreLeftAlone() throws {
        try withStore(Self.uncached) { db, _ in
            db.register(Self.shapes, forCollection: "shapes")
            let circle = Circle(id: "c", radius: 1)
            try db.write { txn in
                try txn.write(circle, metadata: Note(text: "first"))
                try txn.setObject(Note(text: "not a shape"), forKey: "note", inCollection: "shapes")
            }
            try db.read { txn in
                #expect(try txn.readMetadata(of: circle, as: Note.self) == Note(text: "first"))
                #expect(try txn.object(forKey: "note", inCollection: "shapes", as: Note.self) == Note(text: "not a shape"))
                // A note is stored as itself, not in an envelope.
                let stored = try #require(try txn.storedObject(forKey: "note", inCollection: "shapes"))
                #expect(try MessagePackDecoder().decode([String: String].self, from: stored.bytes) == ["text": "not a shape"])
            }
        }
    }

    // MARK: The stored form

    @Test func theStoredFormIsTheNameThenTheValue() throws {
        try withStore(Self.uncached) { db, _ in
            db.register(Self.shapes, forCollection: "shapes")
            try db.write { try $0.write(Square(id: "s", side: 2)) }
            let stored = try #require(try db.read { try $0.storedObject(forKey: "s", inCollection: "shapes") })
            #expect(stored.format == .messagePack)
            let expected: [UInt8] = [0x92,                                    // array of 2
                                     0xa6] + Array("square".utf8) + [         // the name
                                     0x82,                                    // the value: a map of 2
                                     0xa2, 0x69, 0x64, 0xa1, 0x73,            // "id": "s"
                                     0xa4, 0x73, 0x69, 0x64, 0x65,            // "side":
                                     0xcb, 0x40, 0, 0, 0, 0, 0, 0, 0]         // 2.0 as float64
            #expect(stored.bytes == expected)

            // With the format byte, the whole stored value as LMDB holds it.
            let raw = try #require(try db.read { try $0.withStoredObject(forKey: "s", inCollection: "shapes") { format, bytes in [format.rawValue] + bytes } })
            #expect(raw == [0x01] + expected)
        }
    }

    @Test func anIndependentMessagePackReaderSeesTheNameAndTheValue() throws {
        guard try MessagePackPythonInteropTests.requireMsgpack() else { return }
        try withStore(Self.uncached) { db, directory in
            db.register(Self.shapes, forCollection: "shapes")
            try db.write { try $0.write(Circle(id: "c1", radius: 2.5)) }
            let stored = try #require(try db.read { try $0.storedObject(forKey: "c1", inCollection: "shapes") })
            let file = directory.file("circle.msgpack")
            try Data(stored.bytes).write(to: URL(fileURLWithPath: file))
            let script = """
            import json, sys, msgpack
            value = msgpack.unpackb(open(sys.argv[1], 'rb').read(), raw=False)
            print(json.dumps(value, sort_keys=True))
            """
            let run = try MessagePackPythonInteropTests.runPython(script, [file])
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.trimmingCharacters(in: .whitespacesAndNewlines) == #"["circle", {"id": "c1", "radius": 2.5}]"#)
        }
    }

    // MARK: Unregistered types and names

    @Test func anUnregisteredTypeIsNotWritten() throws {
        try withStore(Self.uncached) { db, _ in
            db.register(Self.shapes, forCollection: "shapes")
            let triangle = Triangle(id: "t", base: 3, height: 4)
            try db.write { txn in
                // Through the polymorphic archiver.
                let direct = #expect(throws: LarderError.self) {
                    try txn.setObject(triangle as any Shape, forKey: "t", inCollection: "shapes", archiver: Self.shapes)
                }
                #expect(direct?.code == .unregisteredType)
                #expect(direct?.message.contains("Triangle is not registered with PolymorphicArchiver<Shape>") == true, "\(String(describing: direct))")
                #expect(direct?.message.contains("circle (Circle), square (Square)") == true)
                #expect(direct?.index == YapDB.Index(collection: "shapes", key: "t"))

                // Through the concrete type's own path, which would otherwise store a plain map.
                let plain = #expect(throws: LarderError.self) { try txn.write(triangle) }
                #expect(plain?.code == .unregisteredType)
                #expect(plain?.message.contains("Triangle is a Shape but is not registered") == true, "\(String(describing: plain))")

                // Nothing was stored, and the transaction goes on.
                #expect(try !txn.hasObject(forKey: "t", inCollection: "shapes"))
                try txn.write(Circle(id: "c", radius: 1))
            }
            #expect(try db.read { try $0.keys(inCollection: "shapes") } == ["c"])
            #expect(try db.read { try $0.numberOfKeys(inCollection: "shapes") } == 1)

            // In a collection without the polymorphic archiver, a triangle is just a value.
            try db.write { try $0.setObject(triangle, forKey: "t", inCollection: "elsewhere") }
            #expect(try db.read { try $0.object(forKey: "t", inCollection: "elsewhere", as: Triangle.self) } == triangle)
        }
    }

    @Test func anUnregisteredStoredNameIsReportedByName() throws {
        try withStore(Self.uncached) { db, _ in
            db.register(Self.shapes, forCollection: "shapes")
            try db.write { txn in
                try txn.write(Circle(id: "c", radius: 1))
                try txn.write(Square(id: "s", side: 1))
            }
            let circlesOnly = PolymorphicArchiver<any Shape>(["circle": Circle.self])
            #expect(circlesOnly.names == ["circle"])
            #expect(try db.read { try $0.object(forKey: "c", inCollection: "shapes", archiver: circlesOnly) } as? Circle == Circle(id: "c", radius: 1))
            let error = #expect(throws: LarderError.self) {
                try db.read { try $0.object(forKey: "s", inCollection: "shapes", archiver: circlesOnly) }
            }
            #expect(error?.code == .unregisteredType)
            #expect(error?.message.contains("the stored type name \"square\" is not registered") == true, "\(String(describing: error))")
            #expect(error?.message.contains("which knows circle (Circle)") == true)
            #expect(error?.index == YapDB.Index(collection: "shapes", key: "s"))

            // Registering again replaces the archiver and the concrete archivers it brought: a
            // square can no longer be written there, nor read.
            db.register(circlesOnly, forCollection: "shapes")
            let write = #expect(throws: LarderError.self) { try db.write { try $0.write(Square(id: "s2", side: 1)) } }
            #expect(write?.code == .unregisteredType)
            let read = #expect(throws: LarderError.self) {
                try db.read { try $0.enumerateObjects(inCollection: "shapes", archiver: circlesOnly) { _, _, _ in } }
            }
            #expect(read?.code == .unregisteredType)
            #expect(try db.read { try $0.read(Circle.self, key: "c") } == Circle(id: "c", radius: 1))
        }
    }

    @Test func bytesThatAreNotAnEnvelopeAreRefused() throws {
        let circle = try MessagePackEncoder().encode(Circle(id: "c", radius: 1))
        let name = [0xa6] + Array("circle".utf8)
        let notEnvelopes: [(String, [UInt8])] = [
            ("nothing", []),
            ("a bare value", circle),
            ("an array of one", [0x91] + name),
            ("an array of three", [0x93] + name + circle + [0xc0]),
            ("a name that is not a string", [0x92, 0x01] + circle),
            ("a name of invalid UTF-8", [0x92, 0xa2, 0xff, 0xfe] + circle),
            ("a name and no value", [0x92] + name),
            ("a truncated name", [0x92, 0xa6, 0x63]),
        ]
        for (label, bytes) in notEnvelopes {
            let error = #expect(throws: LarderError.self, "\(label)") {
                try bytes.withUnsafeBytes { try Self.shapes.unarchive($0, format: .messagePack) }
            }
            #expect(error?.code == .decodingFailed, "\(label)")
            #expect(error?.message.contains("not a polymorphic value") == true, "\(label): \(String(describing: error))")
        }

        // An envelope whose value is not what its name says, or is followed by more bytes.
        let wrongValue = [0x92] + name + (try MessagePackEncoder().encode(Square(id: "s", side: 1)))
        let trailing = [0x92] + name + circle + [0xc0]
        for bytes in [wrongValue, trailing] {
            let error = #expect(throws: LarderError.self) { try bytes.withUnsafeBytes { try Self.shapes.unarchive($0, format: .messagePack) } }
            #expect(error?.code == .decodingFailed)
            #expect(error?.message.contains("the stored \"circle\" does not decode as Circle") == true, "\(String(describing: error))")
            #expect(error?.underlying != nil)
        }

        // Not MessagePack at all.
        let json = #expect(throws: LarderError.self) { try Array(#"["circle",{}]"#.utf8).withUnsafeBytes { try Self.shapes.unarchive($0, format: .json) } }
        #expect(json?.code == .unknownFormat)

        // And in a store: a plain circle written before the collection was polymorphic.
        try withStore(Self.uncached) { db, _ in
            try db.write { try $0.write(Circle(id: "old", radius: 1)) }
            db.register(Self.shapes, forCollection: "shapes")
            for read in [{ try db.read { try $0.object(forKey: "old", inCollection: "shapes", archiver: Self.shapes) } as Any },
                         { try db.read { try $0.read(Circle.self, key: "old") } as Any }] {
                let error = #expect(throws: LarderError.self) { _ = try read() }
                #expect(error?.code == .decodingFailed)
                #expect(error?.index == YapDB.Index(collection: "shapes", key: "old"))
            }
        }
    }

    // MARK: References

    @Test func aPolymorphicRefResolvesToTheConcreteType() throws {
        try withStore(Self.uncached) { db, _ in
            db.register(Self.shapes, forCollection: "shapes")
            let circle = Circle(id: "c", radius: 1), square = Square(id: "s", side: 2)
            let drawing = Drawing(id: "d", highlight: PolymorphicRef(square), others: [PolymorphicRef(circle), PolymorphicRef(collection: "shapes", key: "s")])
            try db.write { txn in
                try txn.write(circle)
                try txn.write(square)
                try txn.write(drawing)
            }
            #expect(drawing.highlight.index == YapDB.Index(collection: "shapes", key: "s"))
            #expect(drawing.highlight == drawing.others[1])
            #expect(drawing.highlight.description == "PolymorphicRef<Shape>(shapes/s)")

            // A reference is stored as [collection, key].
            struct StoredDrawing: Decodable { var id: String; var highlight: [String]; var others: [[String]] }
            let stored = try #require(try db.read { try $0.storedObject(forKey: "d", inCollection: "drawings") })
            let plain = try MessagePackDecoder().decode(StoredDrawing.self, from: stored.bytes)
            #expect(plain.highlight == ["shapes", "s"])
            #expect(plain.others == [["shapes", "c"], ["shapes", "s"]])

            let loaded = try #require(try db.read { try $0.read(Drawing.self, key: "d") })
            #expect(loaded == drawing)
            try db.read { txn throws in
                #expect(try txn.resolve(loaded.highlight) as? Square == square)
                #expect(try txn.resolve(loaded.others[0]) as? Circle == circle)
                #expect(try txn.resolve(loaded.others[0], archiver: Self.shapes) as? Circle == circle)
                #expect(try txn.exists(loaded.highlight))
            }

            _ = try db.write { try $0.remove(square) }
            try db.read { txn throws in
                #expect(try txn.resolve(loaded.highlight) == nil)   // gone: nil, not an error
                #expect(try !txn.exists(loaded.highlight))
                #expect(try txn.exists(loaded.others[0]))
            }

            // A collection without an archiver of the base type.
            let nowhere = PolymorphicRef<any Shape>(collection: "drawings", key: "d")
            let error = #expect(throws: LarderError.self) { try db.read { try $0.resolve(nowhere) } }
            #expect(error?.code == .archiverNotRegistered)
            #expect(error?.message.contains("PolymorphicArchiver<Shape>") == true)
            #expect(error?.index == YapDB.Index(collection: "drawings", key: "d"))
        }
    }

    @Test func aReferenceDecodesOnlyFromTwoStrings() throws {
        let decoder = MessagePackDecoder(), encoder = MessagePackEncoder()
        let ref = PolymorphicRef<any Shape>(collection: "shapes", key: "c")
        #expect(try decoder.decode(PolymorphicRef<any Shape>.self, from: encoder.encode(ref)) == ref)
        #expect(try encoder.encode(ref) == [0x92, 0xa6] + Array("shapes".utf8) + [0xa1, 0x63])
        #expect(throws: DecodingError.self) { try decoder.decode(PolymorphicRef<any Shape>.self, from: encoder.encode(["shapes"])) }
        #expect(throws: DecodingError.self) { try decoder.decode(PolymorphicRef<any Shape>.self, from: encoder.encode(["shapes", "c", "x"])) }
        #expect(throws: DecodingError.self) { try decoder.decode(PolymorphicRef<any Shape>.self, from: encoder.encode("c")) }
    }

    // MARK: Reopening

    @Test func valuesSurviveReopening() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let drawing = Drawing(id: "d", highlight: PolymorphicRef(Circle(id: "c", radius: 1)))
        do {
            let db = try Database(path: path)
            db.register(Self.shapes, forCollection: "shapes")
            try db.write { txn in
                try txn.write(Circle(id: "c", radius: 1))
                try txn.setObject(Square(id: "s", side: 3) as any Shape, forKey: "s", inCollection: "shapes", archiver: Self.shapes)
                try txn.write(drawing)
            }
        }
        let db = try Database(path: path)
        // Registration is per open: without it the reference has no archiver to read with.
        #expect(throws: LarderError.self) { try db.read { txn in try txn.read(Drawing.self, key: "d").map { try txn.resolve($0.highlight) } } }
        db.register(Self.shapes, forCollection: "shapes")
        try db.read { txn in
            let loaded = try #require(try txn.read(Drawing.self, key: "d"))
            #expect(try txn.resolve(loaded.highlight) as? Circle == Circle(id: "c", radius: 1))
            #expect(try txn.object(forKey: "s", inCollection: "shapes", archiver: Self.shapes) as? Square == Square(id: "s", side: 3))
            #expect(try txn.read(Square.self, key: "s") == Square(id: "s", side: 3))
        }
    }

    // MARK: Misuse

    @Test func aNameGivenTwiceStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = PolymorphicArchiver<any Shape>(["circle": Circle.self, "circle": Square.self])
        }
        Self.expectStopped(result, message: "the name \"circle\" is given twice to PolymorphicArchiver<Shape>")
    }

    @Test func aTypeGivenTwoNamesStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = PolymorphicArchiver<any Shape>(["circle": Circle.self, "round": Circle.self])
        }
        Self.expectStopped(result, message: "Circle is given two names in PolymorphicArchiver<Shape>")
    }

    @Test func aReferenceToAValueOfAnotherTypeStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = PolymorphicRef<any Shape>(Drawing(id: "d", highlight: PolymorphicRef(collection: "shapes", key: "c")))
        }
        Self.expectStopped(result, message: "a PolymorphicRef<Shape> was made to a Drawing, which is not a Shape")
    }

    /// Checks that the child stopped on a trap and, in debug builds (where preconditions print
    /// their message), that it named the misuse.
    static func expectStopped(_ result: ExitTest.Result?, message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let result else { return }  // #expect already recorded the wrong exit
        let standardError = String(decoding: result.standardErrorContent, as: UTF8.self)
        guard case .signal = result.exitStatus else {
            Issue.record("the child exited with \(result.exitStatus) instead of stopping on a precondition: \(standardError)", sourceLocation: sourceLocation)
            return
        }
        #if DEBUG
        #expect(standardError.contains("Larder misuse: " + message), "stderr: \(standardError)", sourceLocation: sourceLocation)
        #endif
    }

    // The guide's example (Documentation/ObjectGraphs.md, "Polymorphic collections") runs in
    // Samples/ObjectGraphsSamples.swift.
}
