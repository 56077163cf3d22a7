import LarderMacros

/// The benchmark's `Item` with a generated archiver (`@Archived`), as a user would write it: the
/// same fields, so the same MessagePack bytes. It reads the items the `Codable` path stored, which
/// is what rows 3g and 8g do.
@Archived
public struct GeneratedItem: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var category: String
    public var price: Double
    public var stock: Int
    public var rating: Double

    /// The generated twin of `item`.
    public init(_ item: Item) {
        id = item.id
        name = item.name
        category = item.category
        price = item.price
        stock = item.stock
        rating = item.rating
    }
}
