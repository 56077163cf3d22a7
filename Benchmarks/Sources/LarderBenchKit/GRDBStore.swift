import GRDB

extension Item: FetchableRecord, PersistableRecord {
    public static var databaseTableName: String { Item.collection }
}

/// The GRDB reference: a SQLite table of items, used the way GRDB's documentation recommends for
/// speed: one reused connection (a `DatabaseQueue`), one transaction around a batch, cached
/// prepared statements, and `Codable` records.
public final class GRDBStore {
    public let queue: DatabaseQueue

    /// Opens (creating) the database file at `path`, with the items table. SQLite's defaults:
    /// rollback journal, `synchronous = FULL`, so a commit is as durable as Larder's default.
    public init(path: String) throws {
        queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.create(table: Item.databaseTableName, options: .ifNotExists) { table in
                table.primaryKey("id", .text)
                table.column("name", .text).notNull()
                table.column("category", .text).notNull()
                table.column("price", .double).notNull()
                table.column("stock", .integer).notNull()
                table.column("rating", .double).notNull()
            }
        }
    }

    /// Inserts `items` in one transaction (`insert` runs a cached statement per record).
    public func insert(_ items: [Item]) throws {
        try queue.write { db in
            for item in items { try item.insert(db) }
        }
    }

    /// Fetches the item of each key by primary key, in one read transaction through one cached
    /// statement; returns a checksum.
    public func fetch(_ keys: [String]) throws -> Int {
        try queue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM items WHERE id = ?")
            var sum = 0
            for key in keys {
                if let item = try Item.fetchOne(statement, arguments: [key]) { sum &+= item.stock }
            }
            return sum
        }
    }

    /// Every item, decoded (`fetchAll`).
    public func fetchAll() throws -> [Item] {
        try queue.read { db in try Item.fetchAll(db) }
    }
}

extension GRDBStore {
    /// The version of the SQLite library GRDB runs on.
    public static func sqliteVersion() throws -> String {
        try DatabaseQueue().read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") ?? "?" }
    }
}
