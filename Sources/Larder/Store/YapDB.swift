/// The namespace of YapDatabase's value types, kept so that code written against
/// YapDatabaseExtensions reads the same.
public enum YapDB {
    /// The address of a value: a collection and a key within it.
    ///
    /// Indexes compare, hash and sort by the UTF-8 bytes of their collection and key, exactly as
    /// the store orders them (two strings that Swift treats as canonically equal but that are
    /// spelled with different code points are different keys).
    ///
    /// ```swift
    /// let index = YapDB.Index(collection: "products", key: "p1")
    /// let product = try db.read { try $0.object(at: index, as: Product.self) }
    /// ```
    public struct Index: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
        /// The collection; may be empty, may not contain NUL.
        public var collection: String
        /// The key within the collection; may not be empty.
        public var key: String

        /// The index of `key` in `collection`.
        public init(collection: String, key: String) {
            self.collection = collection
            self.key = key
        }

        public static func == (lhs: Index, rhs: Index) -> Bool {
            lhs.collection.utf8.elementsEqual(rhs.collection.utf8) && lhs.key.utf8.elementsEqual(rhs.key.utf8)
        }

        public func hash(into hasher: inout Hasher) {
            for byte in collection.utf8 { hasher.combine(byte) }
            hasher.combine(0 as UInt8)
            for byte in key.utf8 { hasher.combine(byte) }
        }

        /// Storage order: by collection, then key, comparing UTF-8 bytes.
        public static func < (lhs: Index, rhs: Index) -> Bool {
            if !lhs.collection.utf8.elementsEqual(rhs.collection.utf8) {
                return lhs.collection.utf8.lexicographicallyPrecedes(rhs.collection.utf8)
            }
            return lhs.key.utf8.lexicographicallyPrecedes(rhs.key.utf8)
        }

        public var description: String { "\(collection)/\(key)" }
    }
}
