import Foundation
import Synchronization
import Testing
@testable import Larder

/// Counts how often values are decoded, so tests can tell a cache hit from a read.
final class DecodeCounter: Sendable {
    let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .acquiring) }
}

/// MessagePack, counting every decode.
struct CountingArchiver<Value: Codable>: Archiver {
    let counter: DecodeCounter
    var format: ArchiveFormat { .messagePack }
    func archive(_ value: Value, into bytes: inout [UInt8]) throws {
        try MessagePackArchiver<Value>().archive(value, into: &bytes)
    }
    func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Value {
        counter.count.add(1, ordering: .relaxed)
        return try MessagePackArchiver<Value>().unarchive(bytes, format: format)
    }
}

@Suite("Connection caches")
struct CacheTests {
    /// A store whose "c" collection decodes `Int`s (objects) and `String`s (metadata) through
    /// counting archivers.
    func withCountingStore(_ configuration: Database.Configuration = .init(), _ body: (Database, DecodeCounter, DecodeCounter) throws -> Void) throws {
        try withStore(configuration) { db, _ in
            let objects = DecodeCounter()
            let metadata = DecodeCounter()
            db.register(CountingArchiver<Int>(counter: objects), forCollection: "c")
            db.register(CountingArchiver<String>(counter: metadata), forCollection: "c")
            try body(db, objects, metadata)
        }
    }

    @Test func aCacheHitDoesNotDecode() throws {
        try withCountingStore { db, decodes, _ in
            try db.write { try $0.setObject(41, forKey: "x", inCollection: "c") }
            let connection = db.newConnection()
            for _ in 0..<3 {
                #expect(try connection.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 41)
            }
            #expect(decodes.value == 1)
            let statistics = connection.cacheStatistics
            #expect(statistics.objectHits == 2 && statistics.objectMisses == 1)
            #expect(statistics.metadataHits == 0 && statistics.metadataMisses == 0)
        }
    }

    @Test func aWriteOnAnotherConnectionIsNeverServedStale() throws {
        try withCountingStore { db, decodes, metadataDecodes in
            let reader = db.newConnection()
            let writer = db.newConnection()
            try writer.write { try $0.setObject(1, forKey: "x", inCollection: "c", metadata: "one") }
            #expect(try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 1)
            #expect(try reader.read { try $0.metadata(forKey: "x", inCollection: "c", as: String.self) } == "one")
            _ = try writer.write { try $0.replaceMetadata("two", forKey: "x", inCollection: "c") }
            // Only the metadata changed: the object stays cached, the metadata is read again.
            #expect(try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 1)
            #expect(try reader.read { try $0.metadata(forKey: "x", inCollection: "c", as: String.self) } == "two")
            #expect(decodes.value == 1 && metadataDecodes.value == 2)
            try writer.write { try $0.setObject(2, forKey: "x", inCollection: "c") }
            #expect(try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 2)
            #expect(try reader.read { try $0.metadata(forKey: "x", inCollection: "c", as: String.self) } == nil)
            _ = try writer.write { try $0.removeObject(forKey: "x", inCollection: "c") }
            #expect(try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == nil)
        }
    }

    @Test func clearingAndRemovingEverythingEmptyTheCaches() throws {
        try withCountingStore { db, _, _ in
            let reader = db.newConnection()
            try db.write { txn in
                try txn.setObject(1, forKey: "x", inCollection: "c")
                try txn.setObject(2, forKey: "y", inCollection: "c")
            }
            #expect(try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 1)
            try db.write { try $0.removeAllObjects(inCollection: "c") }
            #expect(try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == nil)
            try db.write { try $0.setObject(3, forKey: "y", inCollection: "c") }
            #expect(try reader.read { try $0.object(forKey: "y", inCollection: "c", as: Int.self) } == 3)
            try db.write { try $0.removeAllObjectsInAllCollections() }
            #expect(try reader.read { try $0.object(forKey: "y", inCollection: "c", as: Int.self) } == nil)
        }
    }

    @Test func valuesWrittenByAConnectionAreInItsCache() throws {
        try withCountingStore { db, decodes, metadataDecodes in
            let connection = db.newConnection()
            try connection.write { try $0.setObject(7, forKey: "x", inCollection: "c", metadata: "seven") }
            #expect(try connection.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 7)
            #expect(try connection.read { try $0.metadata(forKey: "x", inCollection: "c", as: String.self) } == "seven")
            #expect(decodes.value == 0 && metadataDecodes.value == 0)
            // Another connection did not write it: it decodes.
            #expect(try db.newConnection().read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 7)
            #expect(decodes.value == 1)
        }
    }

    @Test func aWriteReadsItsOwnChangesNotTheCache() throws {
        try withCountingStore { db, _, _ in
            let connection = db.newConnection()
            try connection.write { try $0.setObject(1, forKey: "x", inCollection: "c") }
            #expect(try connection.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 1)
            try connection.write { txn in
                #expect(try txn.object(forKey: "x", inCollection: "c", as: Int.self) == 1)
                try txn.setObject(2, forKey: "x", inCollection: "c")
                #expect(try txn.object(forKey: "x", inCollection: "c", as: Int.self) == 2)
                try txn.removeObject(forKey: "x", inCollection: "c")
                #expect(try txn.object(forKey: "x", inCollection: "c", as: Int.self) == nil)
                try txn.setObject(3, forKey: "x", inCollection: "c")
            }
            #expect(try connection.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 3)
        }
    }

    @Test func abandonedWritesLeaveTheCacheAlone() throws {
        struct Failure: Error {}
        try withCountingStore { db, _, _ in
            let connection = db.newConnection()
            try connection.write { try $0.setObject(1, forKey: "x", inCollection: "c") }
            try connection.write { txn in
                try txn.setObject(2, forKey: "x", inCollection: "c")
                txn.rollback()
            }
            #expect(try connection.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 1)
            #expect(throws: Failure.self) {
                try connection.write { txn in
                    try txn.setObject(3, forKey: "x", inCollection: "c")
                    _ = try txn.object(forKey: "x", inCollection: "c", as: Int.self)
                    throw Failure()
                }
            }
            #expect(try connection.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 1)
        }
    }

    @Test func aBulkWriteStopsKeepingValuesAndNeverLeavesOneStale() throws {
        try withCountingStore { db, decodes, _ in
            let connection = db.newConnection()
            connection.objectCacheLimit = 10
            try connection.write { txn in
                try txn.setObject(1, forKey: "x", inCollection: "c")          // kept for the cache...
                for i in 0..<20 { try txn.setObject(i, forKey: "k\(i)", inCollection: "c") }  // ...until the write outgrows it
                try txn.setObject(2, forKey: "x", inCollection: "c")
            }
            #expect(try connection.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 2)
            #expect(decodes.value == 1)  // read from the store, not from a value kept during the write
            try connection.write { txn in
                for i in 0..<5 { try txn.setObject(100 + i, forKey: "k\(i)", inCollection: "c") }
            }
            #expect(try connection.read { try $0.object(forKey: "k3", inCollection: "c", as: Int.self) } == 103)
            #expect(decodes.value == 1)  // a small write keeps its values
        }
    }

    /// A half whose limit is 0 is skipped (issue 16: no lookup, no boxed value), yet its reads
    /// still count as misses, and it takes part again as soon as its limit is raised.
    @Test func aCacheThatKeepsNothingIsSkippedAndStillCountsMisses() throws {
        try withCountingStore { db, objectDecodes, metadataDecodes in
            try db.write { try $0.setObject(7, forKey: "a", inCollection: "c", metadata: "m") }
            let connection = db.newConnection()
            connection.objectCacheLimit = 0
            connection.metadataCacheLimit = 0
            for _ in 0..<3 { #expect(try connection.read { try $0.object(forKey: "a", inCollection: "c", as: Int.self) } == 7) }
            for _ in 0..<2 { #expect(try connection.read { try $0.metadata(forKey: "a", inCollection: "c", as: String.self) } == "m") }
            #expect(objectDecodes.value == 3 && metadataDecodes.value == 2)
            var statistics = connection.cacheStatistics
            #expect(statistics.objectMisses == 3 && statistics.metadataMisses == 2 && statistics.objectHits == 0 && statistics.metadataHits == 0)
            // A write through the connection keeps nothing either: the next read decodes.
            try connection.write { try $0.setObject(8, forKey: "a", inCollection: "c", metadata: "n") }
            #expect(try connection.read { try $0.object(forKey: "a", inCollection: "c", as: Int.self) } == 8)
            #expect(objectDecodes.value == 4)

            connection.objectCacheLimit = 4
            for _ in 0..<2 { #expect(try connection.read { try $0.object(forKey: "a", inCollection: "c", as: Int.self) } == 8) }
            #expect(objectDecodes.value == 5)
            statistics = connection.cacheStatistics
            #expect(statistics.objectMisses == 5 && statistics.objectHits == 1)
            connection.objectCacheLimit = 0
            #expect(try connection.read { try $0.object(forKey: "a", inCollection: "c", as: Int.self) } == 8)
            #expect(objectDecodes.value == 6)  // the limit emptied the cache; nothing stale answers
            // The identity map keeps instances even with no object cache: the cache is not skipped.
            connection.keepsIdentityMap = true
            #expect(connection.core.cache.keepsNothing(.object) == false)
            connection.keepsIdentityMap = false
            #expect(connection.core.cache.keepsNothing(.object))
        }
    }

    /// A commit that changed more indexes than the cache holds is applied by one pass over the
    /// cache (issue 16): exactly the changed values go, objects and metadata alike.
    @Test func aCommitLargerThanTheCacheRemovesExactlyWhatItChanged() throws {
        try withCountingStore { db, objectDecodes, metadataDecodes in
            try db.write { txn in
                for key in ["a", "b", "c"] { try txn.setObject(1, forKey: key, inCollection: "c", metadata: "old") }
            }
            let reader = db.newConnection()
            func read(_ key: String) throws -> (Int?, String?) {
                try reader.read { (try $0.object(forKey: key, inCollection: "c", as: Int.self), try $0.metadata(forKey: key, inCollection: "c", as: String.self)) }
            }
            for key in ["a", "b", "c"] { _ = try read(key) }
            #expect(objectDecodes.value == 3 && metadataDecodes.value == 3)
            try db.write { txn in  // another connection: 12 changes against 6 values held
                try txn.setObject(2, forKey: "a", inCollection: "c", metadata: "old")  // object and metadata
                try txn.replaceMetadata("new", forKey: "b", inCollection: "c")  // metadata only
                for i in 0..<10 { try txn.setObject(i, forKey: "other\(i)", inCollection: "c") }
            }
            let (a, aInfo) = try read("a")
            let (b, bInfo) = try read("b")
            let (c, cInfo) = try read("c")
            #expect(a == 2 && aInfo == "old" && b == 1 && bInfo == "new" && c == 1 && cInfo == "old")
            #expect(objectDecodes.value == 4)  // "a" only
            #expect(metadataDecodes.value == 5)  // "a" and "b"
        }
    }

    @Test func limitsChangeAtRunTimeAndZeroTurnsTheCacheOff() throws {
        try withCountingStore { db, decodes, _ in
            try db.write { txn in for key in ["a", "b", "c"] { try txn.setObject(1, forKey: key, inCollection: "c") } }
            let connection = db.newConnection()
            connection.objectCacheLimit = 0
            #expect(connection.objectCacheLimit == 0)
            for _ in 0..<2 { _ = try connection.read { try $0.object(forKey: "a", inCollection: "c", as: Int.self) } }
            #expect(decodes.value == 2 && connection.cacheStatistics.objectHits == 0)

            connection.objectCacheLimit = 2
            let read = { (key: String) in _ = try connection.read { try $0.object(forKey: key, inCollection: "c", as: Int.self) } }
            try read("a"); try read("b"); try read("a"); try read("c")  // "b" is the least recently used
            #expect(decodes.value == 5)
            try read("a"); try read("c")
            #expect(decodes.value == 5)
            try read("b")
            #expect(decodes.value == 6)
            connection.objectCacheLimit = 1  // keeps only "b"
            try read("b")
            try read("c")
            #expect(decodes.value == 7)
        }
    }

    @Test func readingAsAnotherTypeDecodes() throws {
        try withStore { db, _ in
            try db.write { try $0.setObject(5, forKey: "x", inCollection: "n") }
            let connection = db.newConnection()
            #expect(try connection.read { try $0.object(forKey: "x", inCollection: "n", as: Int.self) } == 5)
            #expect(try connection.read { try $0.object(forKey: "x", inCollection: "n", as: Double.self) } == 5.0)
            #expect(try connection.read { try $0.object(forKey: "x", inCollection: "n", as: Int.self) } == 5)
            #expect(connection.cacheStatistics.objectHits == 0)
        }
    }

    @Test func aConnectionFarBehindEmptiesItsCache() throws {
        var configuration = Database.Configuration()
        configuration.changeLogLimit = 2
        try withCountingStore(configuration) { db, _, _ in
            let reader = db.newConnection()
            try db.write { try $0.setObject(0, forKey: "x", inCollection: "c") }
            #expect(try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 0)
            // More commits than the log keeps and than the process remembers.
            for i in 1...(ChangeHub.recentLimit + 10) {
                try db.write { try $0.setObject(i, forKey: i == 1 ? "x" : "y", inCollection: "c") }
            }
            #expect(try reader.read { try $0.object(forKey: "x", inCollection: "c", as: Int.self) } == 1)
            #expect(reader.cacheStatistics.flushes == 1)
        }
    }

    @Test func concurrentReadsAndWritesOnOneConnectionNeverGoBack() throws {
        try withStore { db, _ in
            let connection = db.newConnection()
            try connection.write { try $0.setObject(0, forKey: "n", inCollection: "counter") }
            let last = 300
            let backwards = Atomic<Int>(0)
            ProcessTestSupport.runOnThreads([
                {
                    for i in 1...last { try! connection.write { try $0.setObject(i, forKey: "n", inCollection: "counter") } }
                },
                {
                    var seen = 0
                    while seen < last {
                        let value = try! connection.read { try $0.object(forKey: "n", inCollection: "counter", as: Int.self) }!
                        if value < seen { backwards.add(1, ordering: .relaxed) }
                        seen = value
                    }
                },
                {
                    let other = db.newConnection()
                    var seen = 0
                    while seen < last {
                        let value = try! other.read { try $0.object(forKey: "n", inCollection: "counter", as: Int.self) }!
                        if value < seen { backwards.add(1, ordering: .relaxed) }
                        seen = value
                    }
                },
            ])
            #expect(backwards.load(ordering: .acquiring) == 0)
            #expect(try connection.read { try $0.object(forKey: "n", inCollection: "counter", as: Int.self) } == last)
        }
    }

    @Test func leastRecentlyUsedOrder() {
        var cache = LRUCache<String, Int>(limit: 3)
        cache.set(1, for: "a")
        cache.set(2, for: "b")
        cache.set(3, for: "c")
        #expect(cache.value(for: "a") == 1)
        cache.set(4, for: "d")  // evicts "b"
        #expect(cache.keysByRecency == ["d", "a", "c"])
        #expect(cache.value(for: "b") == nil)
        cache.set(5, for: "c")  // update moves it to the front
        #expect(cache.keysByRecency == ["c", "d", "a"])
        cache.removeValue(for: "d")
        #expect(cache.keysByRecency == ["c", "a"] && cache.count == 2)
        cache.set(6, for: "e")
        cache.set(7, for: "f")  // reuses the freed slot, evicts "a"
        #expect(cache.keysByRecency == ["f", "e", "c"])
        cache.removeAll { $0 < "f" }
        #expect(cache.keysByRecency == ["f"])
        cache.limit = 0
        #expect(cache.count == 0)
        cache.set(8, for: "g")
        #expect(cache.count == 0 && cache.value(for: "g") == nil)
    }

    @Test func leastRecentlyUsedAgreesWithAModel() {
        var generator = SystemRandomNumberGenerator()
        var cache = LRUCache<Int, Int>(limit: 8)
        var model: [(key: Int, value: Int)] = []  // most recent first
        for step in 0..<5_000 {
            let key = Int.random(in: 0..<20, using: &generator)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4:
                cache.set(step, for: key)
                model.removeAll { $0.key == key }
                model.insert((key, step), at: 0)
                if model.count > cache.limit { model.removeLast() }
            case 4..<8:
                let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0) }
                if let expected { model.insert(expected, at: 0) }
                #expect(cache.value(for: key) == expected?.value)
            case 8:
                cache.removeValue(for: key)
                model.removeAll { $0.key == key }
            default:
                let limit = Int.random(in: 0..<10, using: &generator)
                cache.limit = limit
                model = Array(model.prefix(limit))
            }
            #expect(cache.keysByRecency == model.map(\.key))
        }
    }
}
