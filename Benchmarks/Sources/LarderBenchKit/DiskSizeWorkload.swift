import Foundation
import GRDB
import Larder

/// Row 14-disk: the bytes on disk of `items` items with row 9's view and index (each item written
/// with both registered, in one write transaction, random key order), against a SQLite table of the
/// same items with an index on (category, price), which serves what both of Larder's extensions
/// serve: the items of a category in price order, and a lookup by (category, price). Measured once:
/// the sizes of the data files after both stores are closed.
///
/// Row 14-disk-numbered stores the same items as ``NumberedItem`` (the numbered layout of a
/// generated archiver: one-byte field numbers instead of names) with the same view and index.
public final class DiskSizeWorkload {
    /// How Larder's items are written.
    public enum Layout: Sendable {
        /// `Item` through `Codable`: field names in every value.
        case named
        /// ``NumberedItem``: field numbers.
        case numbered
    }

    /// The size of Larder's data file (`data.mdb`), in bytes.
    public let larderBytes: Int
    /// The size of SQLite's database file, in bytes (the rollback journal is gone after the commit).
    public let sqliteBytes: Int

    public init(items count: Int, layout: Layout = .named) throws {
        let items = Keys.shuffled(count, seed: 14).enumerated().map { Item(key: $1, seed: $0) }
        let scratch = try Scratch("disk-size")
        let larderPath = scratch.file("larder")
        switch layout {
        case .named: try Self.writeLarder(items, at: larderPath)
        case .numbered: try Self.writeLarderNumbered(items.map(NumberedItem.init), at: larderPath)
        }
        larderBytes = try Self.size(ofFile: larderPath + "/data.mdb")
        let sqlitePath = scratch.file("grdb.sqlite")
        try Self.writeSQLite(items, at: sqlitePath)
        sqliteBytes = try Self.size(ofFile: sqlitePath)
        // To look inside the stores (`mdb_stat -a`, `sqlite3_analyzer`): LARDER_BENCH_KEEP=directory.
        if let keep = ProcessInfo.processInfo.environment["LARDER_BENCH_KEEP"] {
            let target = keep + "/14-disk-\(layout)"
            try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: scratch.path, toPath: target)
        }
    }

    /// Writes the Larder store; it is closed when the function returns and releases it.
    private static func writeLarder(_ items: [Item], at path: String) throws {
        let db = try Larder.Database(path: path, configuration: benchConfiguration())
        try CatalogExtensions.register(in: db)
        try db.write { txn in
            for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
        }
    }

    /// The numbered store, with the same view and index over ``NumberedItem``.
    private static func writeLarderNumbered(_ items: [NumberedItem], at path: String) throws {
        let db = try Larder.Database(path: path, configuration: benchConfiguration())
        try db.register(AutoView<NumberedItem, NoMetadata>(
            collections: [Item.collection], versionTag: "1",
            grouping: { _, item in item.category },
            sorting: { _, item in TupleKey(item.price, item.id) }), named: "byCategory")
        try db.register(SecondaryIndex<NumberedItem, NoMetadata>(collections: [Item.collection], versionTag: "1") { _, item in
            TupleKey(item.category, item.price)
        }, named: "byPrice")
        try db.write { txn in
            for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
        }
    }

    private static func writeSQLite(_ items: [Item], at path: String) throws {
        let store = try GRDBStore(path: path)
        try store.queue.write { db in
            try db.execute(sql: "CREATE INDEX items_category_price ON items(category, price)")
        }
        try store.insert(items)
        try store.queue.close()
    }

    private static func size(ofFile path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        guard let size = (attributes[.size] as? NSNumber)?.intValue else {
            throw SetupFailure(description: "no size for \(path)")
        }
        return size
    }
}

/// A fixture that cannot be built as its workload needs (the measurement would mean nothing).
public struct SetupFailure: Error, CustomStringConvertible {
    public let description: String
}
