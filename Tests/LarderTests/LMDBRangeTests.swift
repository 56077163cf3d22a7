import Testing
@testable import Larder

/// The LMDB layer's range vocabulary (`LMDBTransaction+Ranges.swift`) and `putIfAbsent`, against
/// a sorted-array model: every walk and removal the layers above use goes through these.
@Suite("LMDB ranges")
struct LMDBRangeTests {
    /// A scratch database of its own, so that the store's own databases stay consistent.
    private static let scratch = "x.range-test.entries"

    /// Runs `body` in a write transaction with an empty scratch database, emptied again after.
    private func withScratch(_ body: (LMDBTransaction, DatabaseHandle) throws -> Void) throws {
        try withStore { db, _ in
            try db.environment.write { lmdb in
                let database = try lmdb.openDatabase(Self.scratch, create: true)
                try body(lmdb, database)
                try lmdb.empty(database)
            }
        }
    }

    private func put(_ keys: [[UInt8]], in database: DatabaseHandle, _ lmdb: LMDBTransaction) throws {
        for key in keys {
            let value = [UInt8](key.reversed())
            try key.withUnsafeBytes { k in try value.withUnsafeBytes { try lmdb.put(database, key: k, value: $0) } }
        }
    }

    private func walk(
        _ lmdb: LMDBTransaction, _ database: DatabaseHandle, from lower: [UInt8] = [], to upper: [UInt8]? = nil,
        reversed: Bool = false, limit: Int = .max
    ) throws -> [[UInt8]] {
        var seen: [[UInt8]] = []
        try lmdb.forEachEntry(in: database, from: lower, to: upper, reversed: reversed) { key, value in
            #expect([UInt8](value) == [UInt8](key).reversed(), "the value lent with each key is its own")
            seen.append([UInt8](key))
            return seen.count < limit
        }
        return seen
    }

    private static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }

    /// Keys from a small alphabet with 0x00 and 0xFF, so that prefixes, shared bytes and
    /// all-0xFF prefixes (no successor) occur often.
    private static func randomKey(_ random: inout SplitMix) -> [UInt8] {
        let alphabet: [UInt8] = [0x00, 0x01, 0x61, 0x62, 0xFE, 0xFF]
        return (0..<Int.random(in: 1...4, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
    }

    @Test func walksMatchASortedModelForAnyBoundsAndDirection() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("LMDB ranges seed \(seed)")
        var random = SplitMix(seed: seed)
        try withScratch { lmdb, database in
            let keys = Set((0..<120).map { _ in Self.randomKey(&random) })
            try put(Array(keys), in: database, lmdb)
            let sorted = keys.sorted(by: Self.precedes)
            #expect(try walk(lmdb, database) == sorted)
            #expect(try walk(lmdb, database, reversed: true) == sorted.reversed())
            for round in 0..<300 {
                let lower = Bool.random(using: &random) ? [] : Self.randomKey(&random)
                let upper = Bool.random(using: &random) ? nil : Self.randomKey(&random)
                let limit = Int.random(in: 1...20, using: &random)
                let inRange = sorted.filter { key in !Self.precedes(key, lower) && (upper.map { Self.precedes(key, $0) } ?? true) }
                #expect(try walk(lmdb, database, from: lower, to: upper) == inRange, "round \(round), seed \(seed)")
                #expect(try walk(lmdb, database, from: lower, to: upper, reversed: true) == inRange.reversed(), "round \(round), seed \(seed)")
                #expect(try walk(lmdb, database, from: lower, to: upper, limit: limit) == Array(inRange.prefix(limit)), "round \(round), seed \(seed)")
                let prefix = Self.randomKey(&random)
                let withPrefix = sorted.filter { $0.starts(with: prefix) }
                for reversed in [false, true] {
                    var seen: [[UInt8]] = []
                    try lmdb.forEachEntry(in: database, withPrefix: prefix, reversed: reversed) { key, _ in
                        seen.append([UInt8](key))
                        return true
                    }
                    #expect(seen == (reversed ? withPrefix.reversed() : withPrefix), "prefix \(prefix), reversed \(reversed), seed \(seed)")
                }
            }
        }
    }

    @Test func removalsByPrefixAndFromTheStartMatchTheModel() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("LMDB removals seed \(seed)")
        var random = SplitMix(seed: seed)
        try withScratch { lmdb, database in
            var model = Set((0..<200).map { _ in Self.randomKey(&random) })
            try put(Array(model), in: database, lmdb)
            for round in 0..<40 {
                let prefix = Self.randomKey(&random)
                let doomed = model.filter { $0.starts(with: prefix) }
                var values: [[UInt8]] = []
                let removed = try lmdb.removeAll(in: database, withPrefix: prefix) { values.append([UInt8]($0)) }
                model.subtract(doomed)
                #expect(removed == doomed.count, "round \(round), seed \(seed)")
                #expect(Set(values) == Set(doomed.map { [UInt8]($0.reversed()) }), "each removed entry's value is handed over first")
                #expect(try walk(lmdb, database) == model.sorted(by: Self.precedes), "round \(round), seed \(seed)")
            }
            let bound = Self.randomKey(&random)
            let leading = model.filter { Self.precedes($0, bound) }
            let removed = try lmdb.removeLeading(in: database) { Self.precedes([UInt8]($0), bound) }
            model.subtract(leading)
            #expect(removed == leading.count)
            #expect(try walk(lmdb, database) == model.sorted(by: Self.precedes))
            #expect(try lmdb.firstKey(in: database) == model.min(by: Self.precedes))
            #expect(try lmdb.lastKey(in: database) == model.max(by: Self.precedes))
            try lmdb.removeLeading(in: database) { _ in true }
            #expect(try lmdb.firstKey(in: database) == nil)
            #expect(try lmdb.lastKey(in: database) == nil)
        }
    }

    @Test func putIfAbsentStoresOnlyANewKeyAndLeavesAnExistingOneAsItWas() throws {
        try withScratch { lmdb, database in
            let key: [UInt8] = [1, 2, 3]
            func stored() throws -> [UInt8]? { try key.withUnsafeBytes { try lmdb.get(database, key: $0) }.map { [UInt8]($0) } }
            func putIfAbsent(_ value: [UInt8]) throws -> Bool {
                try key.withUnsafeBytes { k in try value.withUnsafeBytes { try lmdb.putIfAbsent(database, key: k, value: $0) } }
            }
            #expect(try putIfAbsent([7]) == true)
            #expect(try stored() == [7])
            #expect(try putIfAbsent([8, 8]) == false)
            #expect(try stored() == [7])
            // Bad input is still an error, not a "key exists" answer.
            let error = try #require(throws: LarderError.self) {
                try [UInt8]().withUnsafeBytes { k in try [UInt8]([1]).withUnsafeBytes { try lmdb.putIfAbsent(database, key: k, value: $0) } }
            }
            #expect(error.code == .lmdb)
        }
    }

    @Test func maxReadersAndCopyAnswerThroughTheEnvironment() throws {
        var configuration = Database.Configuration()
        configuration.maxReaders = 40
        try withStore(configuration) { db, directory in
            #expect(db.environment.maxReaders == 40)
            #expect(try db.statistics().maxReaders == 40)
            try db.write { try $0.setObject("kept", forKey: "k", inCollection: "c") }
            let target = directory.file("copy")
            try db.copy(to: target, compacting: true)
            let copy = try Database(path: target)
            #expect(try copy.read { try $0.object(forKey: "k", inCollection: "c", as: String.self) } == "kept")
        }
    }
}
