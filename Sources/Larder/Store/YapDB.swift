#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
            Self.bytesEqual(lhs.key, rhs.key) && Self.bytesEqual(lhs.collection, rhs.collection)
        }

        /// Hashes the UTF-8 bytes of the collection and the key, as ``==(_:_:)`` compares them.
        public func hash(into hasher: inout Hasher) {
            Self.combine(collection, into: &hasher)
            hasher.combine(0 as UInt8)  // a collection has no NUL, so this ends it unambiguously
            Self.combine(key, into: &hasher)
        }

        /// Whether two strings have the same UTF-8 bytes (`==` on `String` compares canonical
        /// equivalence instead); a memory comparison for native strings.
        @inline(__always)
        private static func bytesEqual(_ a: String, _ b: String) -> Bool {
            let fast = a.utf8.withContiguousStorageIfAvailable { a in
                b.utf8.withContiguousStorageIfAvailable { b in
                    a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
                }
            }
            return (fast ?? nil) ?? a.utf8.elementsEqual(b.utf8)
        }

        @inline(__always)
        private static func combine(_ string: String, into hasher: inout Hasher) {
            let done: Void? = string.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            if done == nil {  // a bridged string: the same bytes, hashed the same way
                Array(string.utf8).withUnsafeBytes { hasher.combine(bytes: $0) }
            }
        }

        /// Storage order: by collection, then key, comparing UTF-8 bytes.
        public static func < (lhs: Index, rhs: Index) -> Bool {
            if !lhs.collection.utf8.elementsEqual(rhs.collection.utf8) {
                return lhs.collection.utf8.lexicographicallyPrecedes(rhs.collection.utf8)
            }
            return lhs.key.utf8.lexicographicallyPrecedes(rhs.key.utf8)
        }

        /// `collection/key`.
        public var description: String { "\(collection)/\(key)" }
    }
}
