import Foundation
import Testing
@testable import Larder

@Suite("Objects and metadata")
struct ObjectTests {
    let hammer = Product(id: "p1", name: "Hammer", price: 24, tags: ["tools"])
    let saw = Product(id: "p2", name: "Saw", price: 31.5)
    let info = ProductInfo(stock: 4, updated: Date(timeIntervalSince1970: 1_700_000_000))

    @Test func setReadAndExistence() throws {
        try withStore { db, _ in
            let returned = try db.write { txn throws in
                try txn.setObject(hammer, forKey: "p1", inCollection: "products")
                // A write sees its own writes.
                return try txn.object(forKey: "p1", inCollection: "products", as: Product.self)
            }
            #expect(returned == hammer)
            try db.read { txn throws in
                #expect(try txn.object(forKey: "p1", inCollection: "products", as: Product.self) == hammer)
                #expect(try txn.object(forKey: "nope", inCollection: "products", as: Product.self) == nil)
                #expect(try txn.object(forKey: "p1", inCollection: "other", as: Product.self) == nil)
                #expect(try txn.hasObject(forKey: "p1", inCollection: "products"))
                #expect(try !txn.hasObject(forKey: "p2", inCollection: "products"))
                #expect(try txn.object(at: YapDB.Index(collection: "products", key: "p1"), as: Product.self) == hammer)
            }
        }
    }

    @Test func metadataIsSeparateFromTheObject() throws {
        try withStore { db, _ in
            try db.write { try $0.setObject(hammer, forKey: "p1", inCollection: "products", metadata: info) }
            try db.read { txn throws in
                #expect(try txn.metadata(forKey: "p1", inCollection: "products", as: ProductInfo.self) == info)
                let row = try txn.row(forKey: "p1", inCollection: "products", as: Product.self, metadata: ProductInfo.self)
                #expect(row?.object == hammer)
                #expect(row?.metadata == info)
                #expect(try txn.row(forKey: "p9", inCollection: "products", as: Product.self, metadata: ProductInfo.self) == nil)
            }
            // Metadata that does not decode as Product proves reads of one half never touch the other.
            try db.write { txn throws in
                #expect(try txn.replaceMetadata("not a ProductInfo", forKey: "p1", inCollection: "products"))
            }
            try db.read { txn throws in
                #expect(try txn.object(forKey: "p1", inCollection: "products", as: Product.self) == hammer)
                #expect(throws: LarderError.self) { try txn.metadata(forKey: "p1", inCollection: "products", as: ProductInfo.self) }
            }
        }
    }

    @Test func setObjectWithoutMetadataRemovesIt() throws {
        try withStore { db, _ in
            try db.write { txn throws in
                try txn.setObject(hammer, forKey: "p1", inCollection: "products", metadata: info)
                try txn.setObject(hammer, forKey: "p1", inCollection: "products")
            }
            #expect(try db.read { try $0.metadata(forKey: "p1", inCollection: "products", as: ProductInfo.self) } == nil)
            try db.write { try $0.setObject(hammer, forKey: "p1", inCollection: "products", metadata: info) }
            try db.write { try $0.setObject(saw, forKey: "p1", inCollection: "products", metadata: nil as ProductInfo?) }
            #expect(try db.read { try $0.metadata(forKey: "p1", inCollection: "products", as: ProductInfo.self) } == nil)
        }
    }

    @Test func replaceTouchesOnlyItsHalfAndOnlyExistingRows() throws {
        try withStore { db, _ in
            try db.write { txn throws in
                #expect(try !txn.replaceObject(saw, forKey: "p1", inCollection: "products"))
                #expect(try !txn.replaceMetadata(info, forKey: "p1", inCollection: "products"))
                #expect(try txn.numberOfKeys(inCollection: "products") == 0)
                try txn.setObject(hammer, forKey: "p1", inCollection: "products", metadata: info)
                #expect(try txn.replaceObject(saw, forKey: "p1", inCollection: "products"))
            }
            try db.read { txn throws in
                #expect(try txn.object(forKey: "p1", inCollection: "products", as: Product.self) == saw)
                #expect(try txn.metadata(forKey: "p1", inCollection: "products", as: ProductInfo.self) == info)
            }
            var newer = info
            newer.stock = 9
            try db.write { txn throws in #expect(try txn.replaceMetadata(newer, forKey: "p1", inCollection: "products")) }
            try db.read { txn throws in
                #expect(try txn.object(forKey: "p1", inCollection: "products", as: Product.self) == saw)
                #expect(try txn.metadata(forKey: "p1", inCollection: "products", as: ProductInfo.self) == newer)
            }
            try db.write { txn throws in
                #expect(try txn.replaceMetadata(nil as ProductInfo?, forKey: "p1", inCollection: "products"))
                #expect(try !txn.removeMetadata(forKey: "p1", inCollection: "products"))
            }
            #expect(try db.read { try $0.metadata(forKey: "p1", inCollection: "products", as: ProductInfo.self) } == nil)
            #expect(try db.read { try $0.hasObject(forKey: "p1", inCollection: "products") })
        }
    }

    @Test func storedBytesAreLentWithoutCopying() throws {
        try withStore { db, _ in
            try db.write { txn in
                try txn.setObject([UInt8]([1, 2, 3]), forKey: "raw", inCollection: "bytes")
                try txn.setObject(hammer, forKey: "p1", inCollection: "products")
            }
            try db.read { txn throws in
                let lent = try txn.withStoredObject(forKey: "raw", inCollection: "bytes") { format, bytes in (format, [UInt8](bytes)) }
                #expect(lent?.0 == .raw && lent?.1 == [1, 2, 3])
                #expect(try txn.withStoredObject(forKey: "p1", inCollection: "products") { format, _ in format } == .messagePack)
                #expect(try txn.withStoredObject(forKey: "absent", inCollection: "bytes") { _, _ in 1 } == nil)
                #expect(throws: LarderError.self) { try txn.withStoredObject(forKey: "", inCollection: "bytes") { _, _ in 1 } }
            }
        }
    }

    @Test func touchRecordsAChangeWithoutWriting() throws {
        try withStore { db, _ in
            try db.write { try $0.setObject(hammer, forKey: "p1", inCollection: "products", metadata: info) }
            let record = try db.write { txn throws in
                #expect(try txn.touchObject(forKey: "p1", inCollection: "products"))
                #expect(try txn.touchMetadata(forKey: "p1", inCollection: "products"))
                #expect(try !txn.touchObject(forKey: "p2", inCollection: "products"))
                var recorder = txn.state.changes
                return recorder.changeset()
            }
            let index = YapDB.Index(collection: "products", key: "p1")
            #expect(record.changes == [index: Changeset.IndexChange(object: .updated, metadata: .updated)])
            #expect(try db.read { try $0.object(forKey: "p1", inCollection: "products", as: Product.self) } == hammer)
        }
    }

    @Test func removeOneManyCollectionAndEverything() throws {
        try withStore { db, _ in
            try db.write { txn throws in
                for i in 0..<10 { try txn.setObject(Product(id: "k\(i)", name: "n\(i)", price: Double(i)), forKey: "k\(i)", inCollection: "a", metadata: info) }
                for i in 0..<5 { try txn.setObject(i, forKey: "k\(i)", inCollection: "b") }
                try txn.setObject(1, forKey: "k", inCollection: "ab")  // shares a prefix with "a"
            }
            try db.write { txn throws in
                #expect(try txn.removeObject(forKey: "k0", inCollection: "a"))
                #expect(try !txn.removeObject(forKey: "k0", inCollection: "a"))
                #expect(try txn.removeObjects(forKeys: ["k1", "k2", "missing"], inCollection: "a") == 2)
                #expect(try txn.numberOfKeys(inCollection: "a") == 7)
            }
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: "a") == 7)
                #expect(try txn.metadata(forKey: "k0", inCollection: "a", as: ProductInfo.self) == nil)
                #expect(try txn.numberOfKeysInAllCollections() == 13)
            }
            try db.write { try $0.removeAllObjects(inCollection: "a") }
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: "a") == 0)
                #expect(try txn.keys(inCollection: "a").isEmpty)
                #expect(try txn.collections() == ["ab", "b"])
                #expect(try txn.numberOfKeys(inCollection: "ab") == 1)
                #expect(try txn.metadata(forKey: "k5", inCollection: "a", as: ProductInfo.self) == nil)
            }
            try db.write { try $0.removeAllObjectsInAllCollections() }
            try db.read { txn throws in
                #expect(try txn.numberOfCollections() == 0)
                #expect(try txn.numberOfKeysInAllCollections() == 0)
            }
        }
    }

    @Test func countsAndCollectionsInsideAndAcrossTransactions() throws {
        try withStore { db, _ in
            try db.write { txn throws in
                try txn.setObject(1, forKey: "x", inCollection: "c2")
                try txn.setObject(1, forKey: "x", inCollection: "c1")
                try txn.setObject(2, forKey: "x", inCollection: "c1")  // update: no new key
                try txn.setObject(1, forKey: "y", inCollection: "c1")
                #expect(try txn.numberOfKeys(inCollection: "c1") == 2)
                #expect(try txn.collections() == ["c1", "c2"])
            }
            try db.write { txn throws in
                _ = try txn.removeObject(forKey: "x", inCollection: "c2")
                #expect(try txn.collections() == ["c1"])
                try txn.setObject(1, forKey: "z", inCollection: "")
                #expect(try txn.numberOfCollections() == 2)
            }
            try db.read { txn throws in
                #expect(try txn.collections() == ["", "c1"])
                #expect(try txn.numberOfCollections() == 2)
                #expect(try txn.numberOfKeys(inCollection: "c1") == 2)
                #expect(try txn.numberOfKeys(inCollection: "c2") == 0)
                #expect(try txn.numberOfKeys(inCollection: "") == 1)
            }
        }
    }

    @Test func throwingOrRollingBackKeepsNothing() throws {
        struct Abort: Error {}
        try withStore { db, _ in
            try db.write { try $0.setObject(hammer, forKey: "p1", inCollection: "products") }
            #expect(throws: Abort.self) {
                try db.write { txn throws in
                    try txn.setObject(saw, forKey: "p2", inCollection: "products")
                    _ = try txn.removeObject(forKey: "p1", inCollection: "products")
                    throw Abort()
                }
            }
            let value = try db.write { txn -> Int in
                try txn.setObject(saw, forKey: "p2", inCollection: "products")
                txn.rollback()
                return 42
            }
            #expect(value == 42)
            try db.read { txn throws in
                #expect(try txn.keys(inCollection: "products") == ["p1"])
                #expect(try txn.numberOfKeys(inCollection: "products") == 1)
            }
        }
    }

    @Test func persistableValues() throws {
        try withStore { db, _ in
            try db.write { txn throws in
                try txn.write([hammer, saw])
                try txn.write(Product(id: "p3", name: "Chisel", price: 12.5), metadata: info)
            }
            try db.read { txn throws in
                #expect(try txn.read(Product.self, key: "p1") == hammer)
                #expect(try txn.read(Product.self, id: "p2") == saw)
                #expect(try txn.read(Product.self, keys: ["p2", "nope", "p1"]) == [saw, hammer])
                #expect(try txn.readAll(Product.self).map(\.id) == ["p1", "p2", "p3"])
                #expect(try txn.readMetadata(of: Product(id: "p3", name: "", price: 0), as: ProductInfo.self) == info)
                #expect(hammer.index == YapDB.Index(collection: "products", key: "p1"))
            }
            try db.write { txn throws in
                #expect(try txn.writeMetadata(info, of: hammer))
                #expect(try txn.remove(saw))
                #expect(try txn.remove(Product.self, keys: ["p3", "p9"]) == 1)
            }
            try db.read { txn throws in
                #expect(try txn.readAll(Product.self) == [hammer])
                #expect(try txn.readMetadata(of: hammer, as: ProductInfo.self) == info)
            }
        }
    }

    struct Ticket: Codable, Persistable, Equatable {
        static let collection = "tickets"
        var id: UUID
        var seat: Int
    }

    @Test func uuidAndIntegerIdentifiers() throws {
        struct Counter: Codable, Persistable, Equatable {
            static let collection = "counters"
            var id: Int
        }
        try withStore { db, _ in
            let ticket = Ticket(id: UUID(), seat: 12)
            try db.write { txn throws in
                try txn.write(ticket)
                try txn.write(Counter(id: 7))
            }
            try db.read { txn throws in
                #expect(try txn.read(Ticket.self, id: ticket.id) == ticket)
                #expect(try txn.keys(inCollection: "tickets") == [ticket.id.uuidString])
                #expect(try txn.read(Counter.self, key: "7") == Counter(id: 7))
            }
        }
    }

    @Test func rawBytesAndDataAreStoredAsTheyAre() throws {
        try withStore { db, _ in
            let bytes: [UInt8] = [0, 1, 2, 255]
            try db.write { txn throws in
                try txn.setObject(bytes, forKey: "bytes", inCollection: "raw")
                try txn.setObject(Data([9, 8, 7]), forKey: "data", inCollection: "raw")
                try txn.setObject([UInt8](), forKey: "empty", inCollection: "raw")
            }
            try db.read { txn throws in
                #expect(try txn.object(forKey: "bytes", inCollection: "raw", as: [UInt8].self) == bytes)
                #expect(try txn.object(forKey: "data", inCollection: "raw", as: Data.self) == Data([9, 8, 7]))
                #expect(try txn.object(forKey: "empty", inCollection: "raw", as: [UInt8].self) == [])
                let stored = try txn.storedObject(forKey: "bytes", inCollection: "raw")
                #expect(stored?.format == .raw)
                #expect(stored?.bytes == bytes)
            }
        }
    }

    @Test func registeredArchiverWinsForItsCollection() throws {
        try withStore { db, _ in
            db.register(JSONArchiver<Product>(), forCollection: "json-products")
            try db.write { txn throws in
                try txn.setObject(hammer, forKey: "p1", inCollection: "json-products")
                try txn.setObject(hammer, forKey: "p1", inCollection: "products")
            }
            try db.read { txn throws in
                let json = try txn.storedObject(forKey: "p1", inCollection: "json-products")
                #expect(json?.format == .json)
                let decoded = try JSONDecoder().decode(Product.self, from: Data(json?.bytes ?? []))
                #expect(decoded == hammer)
                #expect(try txn.storedObject(forKey: "p1", inCollection: "products")?.format == .messagePack)
                #expect(try txn.object(forKey: "p1", inCollection: "json-products", as: Product.self) == hammer)
            }
            // Both Codable archivers read both formats, so a collection can change format.
            try db.read { txn throws in
                #expect(try txn.object(forKey: "p1", inCollection: "json-products", archiver: MessagePackArchiver<Product>()) == hammer)
                #expect(try txn.object(forKey: "p1", inCollection: "products", archiver: JSONArchiver<Product>()) == hammer)
            }
        }
    }

    struct Celsius: Saveable, Codable, Equatable {
        var degrees: Double
        static var archiver: CelsiusArchiver { CelsiusArchiver() }
    }

    struct CelsiusArchiver: Archiver {
        var format: ArchiveFormat { .custom(0x40) }
        func archive(_ value: Celsius, into bytes: inout [UInt8]) throws {
            withUnsafeBytes(of: value.degrees.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
        }
        func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Celsius {
            guard format == self.format, bytes.count == 8 else { throw LarderError(.decodingFailed, "not a temperature") }
            return Celsius(degrees: Double(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))))
        }
    }

    @Test func saveableArchiverWinsOverCodable() throws {
        try withStore { db, _ in
            try db.write { txn throws in
                try txn.setObject(Celsius(degrees: -3.5), forKey: "today", inCollection: "weather")
                try txn.setObject(hammer, forKey: "m", inCollection: "weather", metadata: Celsius(degrees: 20))
            }
            try db.read { txn throws in
                let stored = try txn.storedObject(forKey: "today", inCollection: "weather")
                #expect(stored?.format == .custom(0x40))
                #expect(stored?.bytes.count == 8)
                #expect(try txn.object(forKey: "today", inCollection: "weather", as: Celsius.self) == Celsius(degrees: -3.5))
                // Metadata typed as Codable still uses the type's own archiver when it is Saveable.
                #expect(try txn.storedMetadata(forKey: "m", inCollection: "weather")?.format == .custom(0x40))
                #expect(try txn.metadata(forKey: "m", inCollection: "weather", as: Celsius.self) == Celsius(degrees: 20))
                #expect(try txn.row(forKey: "m", inCollection: "weather", as: Product.self, metadata: Celsius.self)?.metadata == Celsius(degrees: 20))
            }
        }
    }

    @Test func valuesSurviveReopening() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            try db.write { try $0.setObject(hammer, forKey: "p1", inCollection: "products", metadata: info) }
        }
        #expect(EnvironmentRegistry.openCount(path: path) == 0)
        let db = try Database(path: path)
        try db.read { txn throws in
            #expect(try txn.object(forKey: "p1", inCollection: "products", as: Product.self) == hammer)
            #expect(try txn.metadata(forKey: "p1", inCollection: "products", as: ProductInfo.self) == info)
            #expect(try txn.numberOfKeys(inCollection: "products") == 1)
        }
    }

    @Test func connectionOneCallHelpers() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let connection = db.newConnection()
        try await connection.write(hammer, saw)
        #expect(try connection.read(Product.self, key: "p1") == hammer)
        #expect(try connection.read(Product.self, keys: ["p2", "zz", "p1"]) == [saw, hammer])
        #expect(try connection.readAll(Product.self) == [hammer, saw])
        #expect(try await connection.remove(hammer, Product(id: "nope", name: "", price: 0)) == 1)
        #expect(try connection.readAll(Product.self) == [saw])
        let indexes = [YapDB.Index(collection: "products", key: "p2"), YapDB.Index(collection: "products", key: "p1")]
        let found = try await db.read { try $0.objects(at: indexes, as: Product.self) }
        #expect(found == [indexes[0]: saw])
    }

    @Test func connectionsShareTheDatabase() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let a = db.newConnection()
        let b = db.newConnection()
        try await a.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
        #expect(try await b.read { try $0.object(forKey: "k", inCollection: "c", as: Int.self) } == 1)
        let written = try await b.write { txn throws in
            try txn.setObject(2, forKey: "k", inCollection: "c")
            return "done"
        }
        #expect(written == "done")
        #expect(try await a.read { try $0.object(forKey: "k", inCollection: "c", as: Int.self) } == 2)
    }
}
