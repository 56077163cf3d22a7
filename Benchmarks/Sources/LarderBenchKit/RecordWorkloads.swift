import Foundation
import Larder

/// Workloads 3, 4 and 8: one set of items stored three ways (Larder as MessagePack, raw LMDB as
/// JSON, a GRDB table), read at random or scanned.
public final class RecordReadWorkload {
    let scratch: Scratch
    public let db: Larder.Database
    /// Reads with the object cache off: every read finds and decodes the stored bytes.
    public let uncached: Connection
    /// Reads with a cache large enough for the hot keys, warmed by a first pass.
    public let cached: Connection
    let floor: LMDBFloor
    let grdb: GRDBStore
    /// Random keys (with repeats) over every item.
    public let keys: [String]
    let keyBytes: [[UInt8]]
    /// Random keys over the first `hot` items only.
    public let hotKeys: [String]

    public init(items count: Int, reads: Int, hot: Int) throws {
        scratch = try Scratch("records")
        db = try Larder.Database(path: scratch.file("larder"), configuration: benchConfiguration())
        uncached = db.newConnection()
        uncached.objectCacheLimit = 0
        cached = db.newConnection()
        cached.objectCacheLimit = hot
        let items = (0..<count).map { Item(key: Keys.key($0), seed: $0) }
        try db.write { txn in
            for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
        }
        floor = try LMDBFloor(label: "records-json")
        let encoder = JSONEncoder()
        let json = try items.map { Array(try encoder.encode($0)) }
        try floor.put(keys: Keys.bytes(items.map(\.id))) { json[$0] }
        grdb = try GRDBStore(path: scratch.file("grdb.sqlite"))
        try grdb.insert(items)
        keys = Keys.random(reads, in: count, seed: 3)
        keyBytes = Keys.bytes(keys)
        hotKeys = Keys.random(reads, in: min(hot, count), seed: 4)
    }

    /// Random reads of `keys` through `connection`, one read transaction; returns a checksum.
    public func larder(_ connection: Connection, keys: [String]) throws -> Int {
        try connection.read { txn in
            var sum = 0
            for key in keys {
                if let item = try txn.object(forKey: key, inCollection: Item.collection, as: Item.self) { sum &+= item.stock }
            }
            return sum
        }
    }

    /// Random reads of `keys` with the cache off.
    public func larderUncached() throws -> Int { try larder(uncached, keys: keys) }

    /// Reads of the hot keys with the cache warm.
    public func larderCached() throws -> Int { try larder(cached, keys: hotKeys) }

    /// Reads of the hot keys with the cache off (the reference of workload 4).
    public func larderHotUncached() throws -> Int { try larder(uncached, keys: hotKeys) }

    /// The same random reads as `mdb_get` followed by `JSONDecoder` (one decoder, reused).
    public func lmdbJSON() throws -> Int {
        let decoder = JSONDecoder()
        return try floor.read { get in
            var sum = 0
            for key in keyBytes {
                guard let bytes = key.withUnsafeBytes({ get($0) }) else { continue }
                sum &+= try decoder.decode(Item.self, from: Data(bytes)).stock
            }
            return sum
        }
    }

    /// The same random reads through GRDB.
    public func grdbFetch() throws -> Int { try grdb.fetch(keys) }

    /// Workload 8: every item of the collection, decoded, in an array.
    public func larderScan() throws -> Int {
        try uncached.read { txn in try txn.objects(inCollection: Item.collection, as: Item.self).count }
    }

    /// Workload 8 in GRDB: `fetchAll`.
    public func grdbScan() throws -> Int { try grdb.fetchAll().count }
}

/// Workload 5: items inserted in one transaction into a new store, Larder against GRDB.
public final class RecordInsertWorkload {
    let items: [Item]

    public init(count: Int) {
        items = Keys.shuffled(count, seed: 5).enumerated().map { Item(key: $1, seed: $0) }
    }

    public func larder() throws -> Duration {
        let scratch = try Scratch("record-insert")
        let db = try Larder.Database(path: scratch.path, configuration: benchConfiguration())
        return try timed {
            try db.write { txn in
                for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
            }
        }
    }

    public func grdbInsert() throws -> Duration {
        let scratch = try Scratch("record-insert-grdb")
        let store = try GRDBStore(path: scratch.file("grdb.sqlite"))
        return try timed { try store.insert(items) }
    }
}

/// Workload 6: the archiver alone, a round trip (encode, then decode) of each item.
public final class ArchiverWorkload {
    let items: [Item]

    public init(count: Int) {
        items = (0..<count).map { Item(key: Keys.key($0), seed: $0) }
    }

    /// The size of the first item encoded, as MessagePack and as JSON.
    public var encodedSizes: (messagePack: Int, json: Int) {
        let item = items[0]
        return ((try? MessagePackEncoder().encode(item).count) ?? 0, (try? JSONEncoder().encode(item).count) ?? 0)
    }

    public func messagePack() throws -> Int {
        let encoder = MessagePackEncoder()
        let decoder = MessagePackDecoder()
        var sum = 0
        for item in items {
            let bytes = try encoder.encode(item)
            sum &+= try decoder.decode(Item.self, from: bytes).stock
        }
        return sum
    }

    public func json() throws -> Int {
        let encoder = JSONEncoder()
        let decoder = JSONDecoder()
        var sum = 0
        for item in items {
            let data = try encoder.encode(item)
            sum &+= try decoder.decode(Item.self, from: data).stock
        }
        return sum
    }
}
