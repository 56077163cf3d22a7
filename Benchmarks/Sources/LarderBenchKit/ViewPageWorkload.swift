import GRDB
import Larder

/// Row 15-view-page: pages of 50 items at random positions of a view whose one group holds all
/// `items` items, sorted by price (then key), read with `objects(inGroup:positions:)` through a
/// connection with the object cache off; against GRDB's `SELECT * … ORDER BY price, id LIMIT 50
/// OFFSET k` on a table with an index on (price, id), which SQLite walks in order (checked). One
/// read transaction per run on each side; an operation is one page of decoded items.
public final class ViewPageWorkload {
    public static let pageSize = 50
    static let group = "all"
    static let allByPrice = AutoView<Item, NoMetadata>(
        collections: [Item.collection], versionTag: "1",
        grouping: { _, _ in ViewPageWorkload.group },
        sorting: { _, item in TupleKey(item.price, item.id) })
    static let pageSQL = "SELECT * FROM items ORDER BY price, id LIMIT \(pageSize) OFFSET ?"

    let scratch: Scratch
    let db: Larder.Database
    let uncached: Connection
    let view: ViewHandle<Item, NoMetadata>
    let grdb: GRDBStore
    /// The position of each page's first item, at random, the same on every run.
    let offsets: [Int]

    public init(items count: Int, pages: Int) throws {
        scratch = try Scratch("view-page")
        let items = Keys.shuffled(count, seed: 15).enumerated().map { Item(key: $1, seed: $0) }
        db = try Larder.Database(path: scratch.file("larder"), configuration: benchConfiguration())
        view = try db.register(Self.allByPrice, named: "allByPrice")
        try db.write { txn in
            for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
        }
        uncached = db.newConnection()
        uncached.objectCacheLimit = 0
        grdb = try GRDBStore(path: scratch.file("grdb.sqlite"))
        try grdb.queue.write { db in try db.execute(sql: "CREATE INDEX items_price_id ON items(price, id)") }
        try grdb.insert(items)
        var random = SplitMix64(seed: 15)
        let last = max(0, count - Self.pageSize)
        offsets = (0..<pages).map { _ in Int(random.next() % UInt64(last + 1)) }
        try check()
    }

    /// Stops the run if SQLite would sort instead of walking the index, or if the two sides do not
    /// read the same page.
    private func check() throws {
        let plan = try grdb.queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + Self.pageSQL, arguments: [0]).map { $0["detail"] as String? ?? "" }
        }
        if plan.contains(where: { $0.contains("TEMP B-TREE") }) {
            throw SetupFailure(description: "SQLite sorts the page query instead of using the index: \(plan)")
        }
        let offset = offsets.first ?? 0
        let larderKeys = try uncached.read { txn in
            try txn[view].indexes(inGroup: Self.group, positions: offset..<(offset + Self.pageSize)).map(\.key)
        }
        let sqliteKeys = try grdb.queue.read { db in
            try Item.fetchAll(db, sql: Self.pageSQL, arguments: [offset]).map(\.id)
        }
        if larderKeys != sqliteKeys {
            throw SetupFailure(description: "the view's page at \(offset) differs from SQLite's")
        }
    }

    /// Every page, decoded; returns a checksum.
    public func larder() throws -> Int {
        try uncached.read { txn in
            let reader = try txn[view]
            var sum = 0
            for offset in offsets {
                for (_, item) in try reader.objects(inGroup: Self.group, positions: offset..<(offset + Self.pageSize)) {
                    sum &+= item.stock
                }
            }
            return sum
        }
    }

    /// The same pages through GRDB, one cached statement.
    public func grdbPages() throws -> Int {
        try grdb.queue.read { db in
            let statement = try db.cachedStatement(sql: Self.pageSQL)
            var sum = 0
            for offset in offsets {
                for item in try Item.fetchAll(statement, arguments: [offset]) { sum &+= item.stock }
            }
            return sum
        }
    }
}
