/// The record every Codable workload stores: six fields, about 100 bytes as MessagePack (the
/// field names are written out, as `Codable` keyed containers do), about 120 as JSON.
public struct Item: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var category: String
    public var price: Double
    public var stock: Int
    public var rating: Double

    public init(id: String, name: String, category: String, price: Double, stock: Int, rating: Double) {
        self.id = id
        self.name = name
        self.category = category
        self.price = price
        self.stock = stock
        self.rating = rating
    }

    /// The collection (Larder) and table (GRDB) that hold items.
    public static let collection = "items"

    static let categories = ["tools", "garden", "kitchen", "paint", "lighting", "storage", "plumbing", "hardware"]

    /// The item whose key is `key`, the same on every run.
    public init(key: String, seed: Int) {
        var random = SplitMix64(seed: UInt64(truncatingIfNeeded: seed))
        self.init(
            id: key,
            name: "Item \(seed) of the benchmark catalog",
            category: Self.categories[Int(random.next() % UInt64(Self.categories.count))],
            price: Double(random.next() % 100_000) / 100,
            stock: Int(random.next() % 10_000),
            rating: Double(random.next() % 50) / 10)
    }
}
