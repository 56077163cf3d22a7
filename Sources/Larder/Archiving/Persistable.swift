/// A value that knows where it lives: its collection and, through `Identifiable`, its key.
///
/// ```swift
/// struct Product: Codable, Persistable {
///     static let collection = "products"
///     var id: String
///     var name: String
/// }
/// try db.write { try $0.write(Product(id: "p1", name: "Hammer")) }
/// let hammer = try db.read { try $0.read(Product.self, key: "p1") }
/// ```
public protocol Persistable: Identifiable {
    /// The collection every value of this type is stored in.
    static var collection: String { get }
    /// The key under which the value with identifier `id` is stored. Provided for identifiers
    /// that are `LosslessStringConvertible` (`String`, integers) and for `UUID`.
    static func key(for id: ID) -> String
}

extension Persistable {
    /// The key this value is stored under.
    public var key: String { Self.key(for: id) }
    /// The collection and key this value is stored under.
    public var index: YapDB.Index { YapDB.Index(collection: Self.collection, key: key) }
    /// The index of the value of this type with key `key`.
    public static func index(forKey key: String) -> YapDB.Index { YapDB.Index(collection: collection, key: key) }
}

extension Persistable where ID: LosslessStringConvertible {
    /// The identifier as written: `"p1"` for a `String`, `"42"` for an integer.
    public static func key(for id: ID) -> String { id.description }
}
