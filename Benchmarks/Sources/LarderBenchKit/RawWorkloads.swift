import Larder

/// The collection that holds raw (uninterpreted) values.
public let rawCollection = "raw"
/// The size of every raw value.
public let rawValueSize = 100

/// A store configuration whose map is large enough that no benchmark write waits for it to grow
/// (the C floor's map is set large too).
public func benchConfiguration(durability: Durability = .full, objectCacheLimit: Int = 250) -> Database.Configuration {
    var configuration = Database.Configuration()
    configuration.initialMapSize = 1 << 30
    configuration.durability = durability
    configuration.objectCacheLimit = objectCacheLimit
    return configuration
}

/// Workload 1: random reads of 100-byte raw values in one read transaction, Larder's lending
/// read (`withStoredObject`) against `mdb_get`.
public final class RawReadWorkload {
    let scratch: Scratch
    public let db: Database
    public let floor: LMDBFloor
    /// The keys read, in order: random, with repeats, from the stored ones.
    public let keys: [String]
    let keyBytes: [[UInt8]]

    public init(entries: Int, reads: Int) throws {
        scratch = try Scratch("raw-read")
        db = try Database(path: scratch.path, configuration: benchConfiguration())
        let stored = Keys.sorted(entries)
        try db.write { txn in
            for (n, key) in stored.enumerated() {
                try txn.setObject(Keys.value(size: rawValueSize, seed: n), forKey: key, inCollection: rawCollection)
            }
        }
        floor = try LMDBFloor(label: "raw-read")
        try floor.put(keys: Keys.bytes(stored)) { Keys.value(size: rawValueSize, seed: $0) }
        keys = Keys.random(reads, in: entries, seed: 1)
        keyBytes = Keys.bytes(keys)
    }

    /// Every read of `keys` in one read transaction; returns a checksum of the bytes seen.
    public func larder() throws -> Int {
        try db.read { txn in try larder(in: txn) }
    }

    /// Every read of `keys` in `txn`: the loop whose allocations the suites count (none).
    public func larder(in txn: ReadTransaction) throws -> Int {
        var sum = 0
        for key in keys {
            sum &+= try txn.withStoredObject(forKey: key, inCollection: rawCollection) { _, bytes in
                bytes.count &+ Int(bytes[0])
            } ?? 0
        }
        return sum
    }

    /// The same reads through `mdb_get`.
    public func floorReads() throws -> Int {
        try floor.read { get in
            var sum = 0
            for key in keyBytes {
                if let value = key.withUnsafeBytes({ get($0) }) { sum &+= value.count &+ Int(value[0]) }
            }
            return sum
        }
    }
}

/// Workload 2: inserts of 100-byte raw values, in random key order, in one write transaction,
/// into a new store (so every round starts alike). Times the transaction, commit included.
public final class RawInsertWorkload {
    let keys: [String]
    let keyBytes: [[UInt8]]
    let values: [[UInt8]]

    public init(count: Int) {
        keys = Keys.shuffled(count, seed: 2)
        keyBytes = Keys.bytes(keys)
        values = (0..<count).map { Keys.value(size: rawValueSize, seed: $0) }
    }

    public func larder() throws -> Duration {
        let scratch = try Scratch("raw-insert")
        let db = try Database(path: scratch.path, configuration: benchConfiguration())
        return try timed {
            try db.write { txn in
                for n in keys.indices { try txn.setObject(values[n], forKey: keys[n], inCollection: rawCollection) }
            }
        }
    }

    public func floorInserts() throws -> Duration {
        let floor = try LMDBFloor(label: "raw-insert")
        return try timed {
            try floor.write { txn in
                for n in keyBytes.indices { try floor.put(keyBytes[n], values[n], in: txn) }
            }
        }
    }
}

/// Workload 7, first half: one put per durable commit (LMDB's default sync, Larder's
/// `Durability.full`). Each call writes the next `count` keys into the same stores.
public final class DurableCommitWorkload {
    let scratch: Scratch
    let db: Database
    let floor: LMDBFloor
    let value = Keys.value(size: rawValueSize, seed: 7)
    private var larderNext = 0
    private var floorNext = 0

    public init() throws {
        scratch = try Scratch("durable")
        db = try Database(path: scratch.path, configuration: benchConfiguration(durability: .full))
        floor = try LMDBFloor(label: "durable")
    }

    public func larder(count: Int) throws -> Duration {
        let keys = (larderNext..<larderNext + count).map(Keys.key)
        larderNext += count
        return try timed {
            for key in keys {
                try db.write { txn in try txn.setObject(value, forKey: key, inCollection: rawCollection) }
            }
        }
    }

    public func floorCommits(count: Int) throws -> Duration {
        let keys = Keys.bytes((floorNext..<floorNext + count).map(Keys.key))
        floorNext += count
        return try timed {
            for key in keys {
                try floor.write { txn in try floor.put(key, value, in: txn) }
            }
        }
    }
}

/// Workload 7, second half: `writers` writers each committing `each` small objects durably, as
/// concurrent async writes (group-committed) or one after another as synchronous writes.
public final class GroupCommitWorkload {
    let scratch: Scratch
    let db: Database
    private var next = 0

    public init() throws {
        scratch = try Scratch("group")
        db = try Database(path: scratch.path, configuration: benchConfiguration(durability: .full))
    }

    private func items(_ count: Int) -> [Item] {
        defer { next += count }
        return (next..<next + count).map { Item(key: Keys.key($0), seed: $0) }
    }

    /// `writers` tasks, each awaiting `each` writes of one object in turn.
    public func concurrent(writers: Int, each: Int) async throws -> Duration {
        let batches = (0..<writers).map { _ in items(each) }
        let db = self.db
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for batch in batches {
                group.addTask {
                    for item in batch {
                        try await db.write { txn in try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
                    }
                }
            }
            try await group.waitForAll()
        }
        return clock.now - start
    }

    /// The same number of writes, each a synchronous write and commit of its own.
    public func sequential(writers: Int, each: Int) throws -> Duration {
        let batch = items(writers * each)
        return try timed {
            for item in batch {
                try db.write { txn in try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
            }
        }
    }
}
