import Foundation
import Larder

/// Workload 14: the cost of `Configuration.checksumsValues` (a CRC-32C in every value's framing):
/// the same items stored with and without checksums, read at random with the cache off, and
/// inserted into a new store.
public final class ChecksumWorkload {
    let scratch: Scratch
    let plain: Larder.Database
    let checksummed: Larder.Database
    let plainReader: Connection
    let checksummedReader: Connection
    let items: [Item]
    let keys: [String]

    public init(items count: Int, reads: Int) throws {
        scratch = try Scratch("checksums")
        let items = (0..<count).map { Item(key: Keys.key($0), seed: $0) }
        self.items = items
        plain = try Larder.Database(path: scratch.file("plain"), configuration: Self.configuration(checksums: false))
        checksummed = try Larder.Database(path: scratch.file("checksummed"), configuration: Self.configuration(checksums: true))
        try Self.insert(items, into: plain)
        try Self.insert(items, into: checksummed)
        plainReader = plain.newConnection()
        plainReader.objectCacheLimit = 0
        checksummedReader = checksummed.newConnection()
        checksummedReader.objectCacheLimit = 0
        keys = Keys.random(reads, in: count, seed: 14)
    }

    static func configuration(checksums: Bool) -> Database.Configuration {
        var configuration = benchConfiguration(objectCacheLimit: 0)
        configuration.checksumsValues = checksums
        return configuration
    }

    /// Random uncached reads, one read transaction; returns a checksum of the stock fields.
    public func read(checksums: Bool) throws -> Int {
        checksums ? try readChecksummed() : try readPlain()
    }

    // Two functions, not one with a flag, so that a profile (callgrind) tells the sides apart.
    @inline(never)
    func readChecksummed() throws -> Int { try Self.read(keys, through: checksummedReader) }

    @inline(never)
    func readPlain() throws -> Int { try Self.read(keys, through: plainReader) }

    static func read(_ keys: [String], through connection: Connection) throws -> Int {
        try connection.read { txn in
            var sum = 0
            for key in keys {
                if let item = try txn.object(forKey: key, inCollection: Item.collection, as: Item.self) { sum &+= item.stock }
            }
            return sum
        }
    }

    /// Inserts every item into a new store in one write transaction.
    public func insert(checksums: Bool) throws -> Duration {
        let scratch = try Scratch("checksum-insert")
        let db = try Larder.Database(path: scratch.path, configuration: Self.configuration(checksums: checksums))
        return try timed { checksums ? try insertChecksummed(into: db) : try insertPlain(into: db) }
    }

    @inline(never)
    func insertChecksummed(into db: Larder.Database) throws { try Self.insert(items, into: db) }

    @inline(never)
    func insertPlain(into db: Larder.Database) throws { try Self.insert(items, into: db) }

    static func insert(_ items: [Item], into db: Larder.Database) throws {
        try db.write { txn in
            for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
        }
    }
}

/// The probe of `larder-checksum-probe`: one store, checksums on or off, its writes and its reads
/// each in a function callgrind can single out.
public final class ChecksumProbe {
    let scratch: Scratch
    let db: Larder.Database
    let reader: Connection
    let items: [Item]
    let keys: [String]

    public init(items count: Int, checksums: Bool) throws {
        scratch = try Scratch("checksum-probe")
        var configuration = ChecksumWorkload.configuration(checksums: checksums)
        configuration.initialMapSize = 64 << 20
        db = try Larder.Database(path: scratch.file("store"), configuration: configuration)
        reader = db.newConnection()
        reader.objectCacheLimit = 0
        items = (0..<count).map { Item(key: Keys.key($0), seed: $0) }
        keys = Keys.random(count, in: count, seed: 14)
    }

    /// Stores the items, outside the measured functions.
    public func store() throws { try ChecksumWorkload.insert(items, into: db) }

    /// Inserts the items in one write transaction.
    @inline(never)
    public func probeWrites() throws { try ChecksumWorkload.insert(items, into: db) }

    /// Reads every key once, uncached, in one read transaction.
    @inline(never)
    public func probeReads() throws -> Int { try ChecksumWorkload.read(keys, through: reader) }
}
