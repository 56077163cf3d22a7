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

        /// Whether the collections and the keys have the same UTF-8 bytes, as the store compares
        /// them (not Swift's canonical equivalence of strings).
        public static func == (lhs: Index, rhs: Index) -> Bool {
            ExactString.bytesEqual(lhs.key, rhs.key) && ExactString.bytesEqual(lhs.collection, rhs.collection)
        }

        /// Hashes the UTF-8 bytes of the collection and the key, as ``==(_:_:)`` compares them.
        public func hash(into hasher: inout Hasher) {
            ExactString.hashBytes(of: collection, into: &hasher)
            ExactString.hashBytes(of: key, into: &hasher)
        }

        /// What `Dictionary` and `Set` hash an index with: a fast hash of the same bytes (not
        /// `Hasher`; see the store's `NameHash`).
        public func _rawHashValue(seed: Int) -> Int {
            NameHash.hash(collection, key, seed: seed)
        }

        /// Storage order: by collection, then key, comparing UTF-8 bytes.
        public static func < (lhs: Index, rhs: Index) -> Bool {
            if !ExactString.bytesEqual(lhs.collection, rhs.collection) {
                return ExactString.bytesPrecede(lhs.collection, rhs.collection)
            }
            return ExactString.bytesPrecede(lhs.key, rhs.key)
        }

        /// `collection/key`.
        public var description: String { "\(collection)/\(key)" }
    }
}
