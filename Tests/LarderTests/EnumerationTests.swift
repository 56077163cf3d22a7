import Foundation
import Testing
@testable import Larder

@Suite("Keys, ranges and enumeration")
struct EnumerationTests {
    /// Keys chosen to share prefixes, hold multi-byte characters and sit at byte extremes.
    static let sampleKeys = ["a", "aa", "ab", "abc", "b", "ba", "b\u{0}x", "c", "é", "zz", "~", "\u{7F}", "日本", "a/1", "a/2", "a/10"]

    /// The model: sorted by UTF-8 bytes, filtered as KeyRange says.
    static func expected(_ keys: [String], _ range: KeyRange) -> [String] {
        var result = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.filter { key in
            if let from = range.from, key.utf8.lexicographicallyPrecedes(from.utf8) { return false }
            if let to = range.to, !key.utf8.lexicographicallyPrecedes(to.utf8) { return false }
            if let prefix = range.prefix, !key.utf8.starts(with: prefix.utf8) { return false }
            return true
        }
        if range.reversed { result.reverse() }
        if let limit = range.limit { result = Array(result.prefix(max(0, limit))) }
        return result
    }

    func storeSamples(_ db: Database) throws {
        try db.write { txn throws in
            for key in Self.sampleKeys { try txn.setObject(key, forKey: key, inCollection: "words") }
            // Neighbouring collections must never leak into ranges of "words".
            try txn.setObject("x", forKey: "a", inCollection: "word")
            try txn.setObject("x", forKey: "a", inCollection: "wordsx")
            try txn.setObject("x", forKey: "a", inCollection: "words\u{1}")
        }
    }

    @Test func keysComeInByteOrder() throws {
        try withStore { db, _ in
            try storeSamples(db)
            let keys = try db.read { try $0.keys(inCollection: "words") }
            #expect(keys == Self.expected(Self.sampleKeys, .all))
            #expect(try db.read { try $0.keys(inCollection: "word") } == ["a"])
        }
    }

    @Test(arguments: [
        KeyRange(), KeyRange(reversed: true), KeyRange(limit: 3), KeyRange(reversed: true, limit: 3),
        KeyRange(from: "ab"), KeyRange(to: "b"), KeyRange(from: "ab", to: "c"), KeyRange(from: "ab", to: "c", reversed: true),
        KeyRange(prefix: "a"), KeyRange(prefix: "a", reversed: true), KeyRange(prefix: "a/"), KeyRange(prefix: "b", reversed: true, limit: 1),
        KeyRange(from: "aa", prefix: "a"), KeyRange(to: "ab", prefix: "a", reversed: true), KeyRange(prefix: "zzz"), KeyRange(prefix: "~"),
        KeyRange(from: "z", to: "a"), KeyRange(limit: 0), KeyRange(from: "", to: "~~"), KeyRange(prefix: "日"), KeyRange(to: "", reversed: true),
        KeyRange(prefix: "\u{7F}", reversed: true), KeyRange(from: "é", reversed: true),
    ])
    func rangesMatchTheModel(range: KeyRange) throws {
        try withStore { db, _ in
            try storeSamples(db)
            let keys = try db.read { try $0.keys(inCollection: "words", range: range) }
            #expect(keys == Self.expected(Self.sampleKeys, range), "range \(range)")
        }
    }

    @Test func randomRangesMatchTheModel() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "b", "c", "\u{FF}", "é"]
        func randomKey(maxLength: Int = 4) -> String {
            String((0..<Int.random(in: 1...maxLength, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        try withStore { db, _ in
            let keys = Array(Set((0..<200).map { _ in randomKey() }))
            try db.write { txn in for key in keys { try txn.setObject(0, forKey: key, inCollection: "r") } }
            try db.read { txn throws in
                for _ in 0..<300 {
                    let range = KeyRange(
                        from: Bool.random() ? randomKey() : nil, to: Bool.random() ? randomKey() : nil,
                        prefix: Bool.random() ? randomKey(maxLength: 2) : nil, reversed: Bool.random(),
                        limit: Bool.random() ? Int.random(in: 0...20) : nil)
                    #expect(try txn.keys(inCollection: "r", range: range) == Self.expected(keys, range), "range \(range)")
                }
            }
        }
    }

    @Test func enumerationStopsWhenAsked() throws {
        try withStore { db, _ in
            try storeSamples(db)
            var seen: [String] = []
            try db.read { txn throws in
                try txn.enumerateKeys(inCollection: "words") { key, stop in
                    seen.append(key)
                    if seen.count == 3 { stop = true }
                }
            }
            #expect(seen == Array(Self.expected(Self.sampleKeys, .all).prefix(3)))
        }
    }

    @Test func filterRunsBeforeDecoding() throws {
        try withStore { db, _ in
            try db.write { txn throws in
                try txn.setObject(1, forKey: "good1", inCollection: "mixed")
                try txn.setObject("not an Int", forKey: "bad", inCollection: "mixed")
                try txn.setObject(2, forKey: "good2", inCollection: "mixed")
            }
            let values = try db.read { txn throws in
                try txn.objects(inCollection: "mixed", as: Int.self, where: { $0 != "bad" }).map(\.object)
            }
            #expect(values == [1, 2])
            // Without the filter the undecodable value is reported, with its index.
            do {
                _ = try db.read { try $0.objects(inCollection: "mixed", as: Int.self) }
                Issue.record("expected a decoding error")
            } catch let error as LarderError {
                #expect(error.code == .decodingFailed)
                #expect(error.index == YapDB.Index(collection: "mixed", key: "bad"))
            }
        }
    }

    @Test func rowsMetadataAndAllCollections() throws {
        try withStore { db, _ in
            try db.write { txn throws in
                try txn.setObject(Product(id: "1", name: "one", price: 1), forKey: "1", inCollection: "products", metadata: ProductInfo(stock: 1, updated: Date(timeIntervalSince1970: 0)))
                try txn.setObject(Product(id: "2", name: "two", price: 2), forKey: "2", inCollection: "products")
                try txn.setObject(Product(id: "3", name: "three", price: 3), forKey: "3", inCollection: "archive")
            }
            try db.read { txn throws in
                var rows: [(String, String, Int?)] = []
                try txn.enumerateRows(inCollection: "products", as: Product.self, metadata: ProductInfo.self) { key, product, info, _ in
                    rows.append((key, product.name, info?.stock))
                }
                #expect(rows.map(\.0) == ["1", "2"])
                #expect(rows.map(\.1) == ["one", "two"])
                #expect(rows.map(\.2) == [1, nil])

                var metadataKeys: [String] = []
                try txn.enumerateMetadata(inCollection: "products", as: ProductInfo.self) { key, _, _ in metadataKeys.append(key) }
                #expect(metadataKeys == ["1"])

                var indexes: [YapDB.Index] = []
                try txn.enumerateKeysInAllCollections { index, _ in indexes.append(index) }
                #expect(indexes == [.init(collection: "archive", key: "3"), .init(collection: "products", key: "1"), .init(collection: "products", key: "2")])
                #expect(indexes == indexes.sorted())

                var metadataIndexes: [YapDB.Index] = []
                try txn.enumerateMetadata(inCollections: ["archive", "products"], as: ProductInfo.self) { index, info, _ in
                    metadataIndexes.append(index)
                    #expect(info.stock == 1)
                }
                #expect(metadataIndexes == [.init(collection: "products", key: "1")])

                var rowNames: [String] = []
                try txn.enumerateRows(inCollections: ["archive", "products"], as: Product.self, metadata: ProductInfo.self, where: { $0.key != "1" }) { index, product, info, stop in
                    rowNames.append("\(index.collection)/\(product.name)/\(info?.stock ?? -1)")
                }
                #expect(rowNames == ["archive/three/-1", "products/two/-1"])

                var names: [String] = []
                try txn.enumerateObjects(inCollections: ["products", "archive"], as: Product.self, where: { $0.key != "2" }) { _, product, _ in
                    names.append(product.name)
                }
                #expect(names == ["one", "three"])

                var first: [YapDB.Index] = []  // stopping ends the whole walk, not one collection
                try txn.enumerateObjects(inCollections: ["archive", "products"], as: Product.self) { index, _, stop in
                    first.append(index)
                    stop = true
                }
                #expect(first == [.init(collection: "archive", key: "3")])
            }
        }
    }

    @Test func indexOrderIsStorageOrder() {
        let indexes = [YapDB.Index(collection: "a", key: "b"), .init(collection: "ab", key: "a"), .init(collection: "a", key: "a\u{0}"), .init(collection: "", key: "z")]
        let storage = indexes.map { Array($0.collection.utf8) + [0] + Array($0.key.utf8) }
        let byBytes = zip(indexes, storage).sorted { $0.1.lexicographicallyPrecedes($1.1) }.map(\.0)
        #expect(indexes.sorted() == byBytes)
        // Canonically equal strings with different code points are different keys.
        #expect(YapDB.Index(collection: "c", key: "\u{E9}") != YapDB.Index(collection: "c", key: "e\u{301}"))
        #expect(Set([YapDB.Index(collection: "c", key: "\u{E9}"), YapDB.Index(collection: "c", key: "e\u{301}")]).count == 2)
    }
}
