import Testing
@testable import Larder

/// The storage key built by copying contiguous UTF-8 (issue 16): the same bytes as the layout
/// of DESIGN.md, and the same errors in the same order, for every kind of string.
@Suite("Storage keys")
struct StorageKeyTests {
    /// Collections and keys around the small-string boundary (15 bytes), non-ASCII, and a
    /// string that is a slice of a longer one (made from a `Substring`).
    static let names: [String] = [
        "", "a", "items", String(repeating: "k", count: 15), String(repeating: "k", count: 16),
        "clé-ü-日本-🙂", String(String(repeating: "xy", count: 40).dropFirst(3).prefix(50)),
    ]

    @Test(arguments: names, names.filter { !$0.isEmpty })
    func bytesAreCollectionNulKey(collection: String, key: String) throws {
        let built = try StorageKey.with(collection: collection, key: key, maxKeySize: 511, operation: "test") { Array($0) }
        #expect(built == Array(collection.utf8) + [0] + Array(key.utf8))
        #expect(StorageKey.index(from: built.withUnsafeBytes { UnsafeRawBufferPointer(rebasing: $0[...]) }) == YapDB.Index(collection: collection, key: key))
    }

    @Test func errorsKeepTheirOrder() throws {
        func code(_ collection: String, _ key: String, max: Int = 511) -> LarderError.Code? {
            do {
                _ = try StorageKey.with(collection: collection, key: key, maxKeySize: max, operation: "test") { $0.count }
                return nil
            } catch let error as LarderError {
                return error.code
            } catch {
                return nil
            }
        }
        #expect(code("c", "") == .emptyKey)
        #expect(code("a\u{0}b", "") == .emptyKey)  // an empty key is reported first
        #expect(code("a\u{0}b", "k") == .invalidCollection)
        #expect(code("a\u{0}b", String(repeating: "k", count: 600)) == .invalidCollection)  // before the length
        #expect(code("c", String(repeating: "k", count: 509)) == nil)  // 1 + 1 + 509 = 511 bytes
        #expect(code("c", String(repeating: "k", count: 510)) == .keyTooLong)
        #expect(code("\u{0}", "k", max: 3) == .invalidCollection)
    }
}
