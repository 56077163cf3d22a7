import Foundation
import Testing
@testable import Larder

/// A connection's cache answers a read only with a value decoded (or written) by the same
/// archiver, so that a cached read returns or throws what an uncached one does.
@Suite("Cache and archivers")
struct CacheArchiverTests {
    typealias Shape = PolymorphismTests.Shape
    typealias Circle = PolymorphismTests.Circle
    typealias Square = PolymorphismTests.Square

    static let allShapes = PolymorphicArchiver<any Shape>(["circle": Circle.self, "square": Square.self])
    static let circlesOnly = PolymorphicArchiver<any Shape>(["circle": Circle.self])

    /// The error an uncached read (a new connection) of `key` with `archiver` throws.
    private func uncachedError(_ db: Database, key: String, archiver: PolymorphicArchiver<any Shape>) -> LarderError? {
        #expect(throws: LarderError.self) {
            try db.newConnection().read { try $0.object(forKey: key, inCollection: "shapes", archiver: archiver) }
        }
    }

    @Test func aValueWrittenWithOneArchiverIsNotReadFromTheCacheWithAnother() throws {
        try withStore { db, _ in
            let connection = db.newConnection()
            try connection.write { try $0.setObject(Square(id: "s", side: 2), forKey: "s", inCollection: "shapes", archiver: Self.allShapes) }
            // The same archiver is served from the cache (the write kept the value).
            let before = connection.cacheStatistics
            #expect(try connection.read { try $0.object(forKey: "s", inCollection: "shapes", archiver: Self.allShapes) } as? Square == Square(id: "s", side: 2))
            #expect(connection.cacheStatistics.objectHits == before.objectHits + 1)

            let expected = try #require(uncachedError(db, key: "s", archiver: Self.circlesOnly))
            #expect(expected.code == .unregisteredType)
            let cached = #expect(throws: LarderError.self) {
                try connection.read { try $0.object(forKey: "s", inCollection: "shapes", archiver: Self.circlesOnly) }
            }
            #expect(cached?.code == expected.code)
            #expect(cached?.message == expected.message)
            // Inside a write transaction too, and the first archiver still reads it.
            let inWrite = #expect(throws: LarderError.self) {
                try connection.write { try $0.object(forKey: "s", inCollection: "shapes", archiver: Self.circlesOnly) }
            }
            #expect(inWrite?.code == .unregisteredType)
            #expect(try connection.read { try $0.object(forKey: "s", inCollection: "shapes", archiver: Self.allShapes) } as? Square == Square(id: "s", side: 2))
        }
    }

    @Test func aValueDecodedWithOneArchiverIsNotReadFromTheCacheWithAnother() throws {
        try withStore { db, _ in
            try db.newConnection().write { try $0.setObject(Square(id: "s", side: 3), forKey: "s", inCollection: "shapes", archiver: Self.allShapes, metadata: Square(id: "m", side: 1), metadataArchiver: Self.allShapes) }
            let connection = db.newConnection()
            // A read decodes and fills the cache; a read with an archiver that cannot read the
            // value must still fail, for the object and for the metadata.
            #expect(try connection.read { try $0.object(forKey: "s", inCollection: "shapes", archiver: Self.allShapes) } as? Square == Square(id: "s", side: 3))
            #expect(try connection.read { try $0.metadata(forKey: "s", inCollection: "shapes", archiver: Self.allShapes) } as? Square == Square(id: "m", side: 1))
            let object = #expect(throws: LarderError.self) {
                try connection.read { try $0.object(forKey: "s", inCollection: "shapes", archiver: Self.circlesOnly) }
            }
            #expect(object?.code == .unregisteredType)
            let metadata = #expect(throws: LarderError.self) {
                try connection.read { try $0.metadata(forKey: "s", inCollection: "shapes", archiver: Self.circlesOnly) }
            }
            #expect(metadata?.code == .unregisteredType)
            // Equal archivers (made separately) share cached values.
            let again = PolymorphicArchiver<any Shape>(["circle": Circle.self, "square": Square.self])
            let before = connection.cacheStatistics
            #expect(try connection.read { try $0.object(forKey: "s", inCollection: "shapes", archiver: again) } as? Square == Square(id: "s", side: 3))
            #expect(connection.cacheStatistics.objectHits == before.objectHits + 1)
        }
    }

    /// Reads back the stored number times `scale`: instances with different scales read the same
    /// bytes differently, so a value one of them wrote must not answer the other's read.
    struct ScalingArchiver: Archiver, Hashable {
        let scale: Int
        var format: ArchiveFormat { .custom(0x51) }
        func archive(_ value: Reading, into bytes: inout [UInt8]) throws {
            withUnsafeBytes(of: Int64(value.amount).littleEndian) { bytes.append(contentsOf: $0) }
        }
        func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Reading {
            guard bytes.count == 8 else { throw LarderError(.decodingFailed, "not a reading") }
            return Reading(amount: Int(Int64(littleEndian: bytes.loadUnaligned(as: Int64.self))) * scale)
        }
    }

    struct Reading: Saveable, Equatable {
        var amount: Int
        static var archiver: ScalingArchiver { ScalingArchiver(scale: 3) }
    }

    @Test func aTypedReadIsServedOnlyByItsOwnArchiversInstance() throws {
        try withStore { db, _ in
            let connection = db.newConnection()
            // Written (and kept in the cache) by an instance with another scale.
            try connection.write { try $0.setObject(Reading(amount: 7), forKey: "r", inCollection: "readings", archiver: ScalingArchiver(scale: 10), metadata: nil, metadataArchiver: ScalingArchiver(scale: 10)) }
            // The typed read uses `Reading.archiver` (scale 3): it decodes, as an uncached read does.
            #expect(try connection.read { try $0.object(forKey: "r", inCollection: "readings", as: Reading.self) } == Reading(amount: 21))
            #expect(try db.newConnection().read { try $0.object(forKey: "r", inCollection: "readings", as: Reading.self) } == Reading(amount: 21))
            // Its own result is then cached and served to the next typed read.
            let before = connection.cacheStatistics
            #expect(try connection.read { try $0.object(forKey: "r", inCollection: "readings", as: Reading.self) } == Reading(amount: 21))
            #expect(connection.cacheStatistics.objectHits == before.objectHits + 1)
            // The cache now holds the scale-3 value: a scale-10 read decodes the bytes itself.
            #expect(try connection.read { try $0.object(forKey: "r", inCollection: "readings", archiver: ScalingArchiver(scale: 10)) } == Reading(amount: 70))
        }
    }

    @Test func aTypedReadOfMetadataIsServedOnlyByItsOwnArchiversInstance() throws {
        try withStore { db, _ in
            let connection = db.newConnection()
            try connection.write {
                try $0.setObject(Reading(amount: 1), forKey: "r", inCollection: "readings", archiver: ScalingArchiver(scale: 10),
                                 metadata: Reading(amount: 5), metadataArchiver: ScalingArchiver(scale: 10))
            }
            #expect(try connection.read { try $0.metadata(forKey: "r", inCollection: "readings", as: Reading.self) } == Reading(amount: 15))
            let before = connection.cacheStatistics
            #expect(try connection.read { try $0.metadata(forKey: "r", inCollection: "readings", as: Reading.self) } == Reading(amount: 15))
            #expect(connection.cacheStatistics.metadataHits == before.metadataHits + 1)
        }
    }
}
