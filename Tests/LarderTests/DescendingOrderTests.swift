import Foundation
import PropertyBased
import Testing
@testable import Larder

/// Descending tuple components (`Descending`, `.descending`) and `reversed:` pages of views:
/// the byte order against a reference order, round trips, malformed bytes, and views and
/// secondary indexes kept newest first.
@Suite("Descending order")
struct DescendingOrderTests {
    // MARK: Encoding

    @Test func byteOrderIsTheReferenceOrderWithDescendingComponents() async {
        await propertyCheck(count: 2_000, input: Generator { rng in Self.pair(using: &rng) }) { a, b in
            let order = Self.referenceOrder(a.components, b.components)
            #expect(a.bytes.lexicographicallyPrecedes(b.bytes) == (order < 0), "\(a) vs \(b)")
            #expect(b.bytes.lexicographicallyPrecedes(a.bytes) == (order > 0), "\(a) vs \(b)")
            #expect((a < b) == (order < 0), "\(a) vs \(b)")
            #expect((a == b) == (order == 0), "\(a) vs \(b)")
        }
    }

    @Test func sortingThousandsOfKeysByBytesSortsThemByValue() async {
        let keys = Generator { rng in (0..<200).map { _ in Self.key(using: &rng) } }
        await propertyCheck(count: 20, input: keys) { keys in
            let byBytes = keys.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
            let byValue = keys.sorted { Self.referenceOrder($0.components, $1.components) < 0 }
            #expect(byBytes.map(\.bytes) == byValue.map(\.bytes))
            #expect(keys.sorted().map(\.bytes) == byValue.map(\.bytes))
        }
    }

    /// A string and its extension by a NUL: the case where complementing the plain encoding
    /// would go wrong (`"a"` encodes as a prefix of `"a\u{0}"`), at the end of a key, before
    /// another component and inside a nested tuple.
    @Test func stringsWithNULsReverseWhateverFollows() {
        let shorter = Descending("a"), longer = Descending("a\u{0}"), longest = Descending("a\u{0}b")
        let followers: [[any TupleKeyComponent]] = [[], [0], [""], [Descending(0)], [TupleKey()]]
        for follower in followers {
            let keys = [longest, longer, shorter].map { TupleKey([$0.tupleComponent] + follower.map(\.tupleComponent)) }
            expectAscending(keys)
            expectAscending(keys.map { TupleKey([.tuple($0.components), .null]) })
        }
        expectAscending([TupleKey(Descending([0, 1] as [UInt8])), TupleKey(Descending([0] as [UInt8])), TupleKey(Descending([] as [UInt8]))])
    }

    @Test func everyKindReversesAtItsBoundaries() {
        let ascending: [TupleComponent] = [
            .null, .bool(false), .bool(true), .int(.min), .int(-(1 << 40)), .int(-256), .int(-255), .int(-1), .int(0),
            .int(1), .int(255), .int(256), .int(.max), .uint(.max), .double(-.infinity), .double(-1), .double(-0.0),
            .double(0.0), .double(.leastNonzeroMagnitude), .double(.infinity), .double(.nan),
            .date(Date(timeIntervalSinceReferenceDate: -1)), .date(Date(timeIntervalSinceReferenceDate: 0)),
            .date(Date(timeIntervalSinceReferenceDate: 1e9)), .string(""), .string("\u{0}"), .string("a"), .string("a\u{0}"),
            .string("e\u{301}"), .string("\u{E9}"), .bytes([]), .bytes([0]), .bytes([0xFF]), .tuple([]), .tuple([.null]),
            .tuple([.string("a")]), .tuple([.string("a\u{0}")]),
        ]
        expectAscending(ascending.map { TupleKey([$0]) })
        expectAscending(ascending.reversed().map { TupleKey([.descending($0)]) })
        // Twice descending is ascending again, and every descending component follows every ascending one.
        expectAscending(ascending.map { TupleKey([.descending(.descending($0))]) })
        expectAscending([TupleKey([.tuple([.null])]), TupleKey([.descending(.tuple([.null]))]), TupleKey([.descending(.null)])])
        // Signed and unsigned of one value stay one value, and -0.0 dates one instant.
        #expect(TupleKey(Descending(Int64(5))) == TupleKey(Descending(UInt8(5))))
        #expect(TupleKey(Descending(Date(timeIntervalSinceReferenceDate: -0.0))) == TupleKey(Descending(Date(timeIntervalSinceReferenceDate: 0))))
        #expect(TupleKey(Descending(Descending(1))) != TupleKey(1))
    }

    @Test func newestFirstThenByTitle() {
        let base = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let keys = [
            TupleKey(Descending(base.addingTimeInterval(60)), "b"),
            TupleKey(Descending(base), "a"),
            TupleKey(Descending(base), "b"),
            TupleKey(Descending(base.addingTimeInterval(-60)), "a"),
        ]
        expectAscending(keys)
    }

    @Test func wireFormatIsPinned() {
        #expect(TupleKey(Descending(1)).bytes == [0x68, 0xD6, 0xFE, 0xFF])  // ~(0x29 0x01 0x00)
        #expect(TupleKey(Descending("a")).bytes == [0x68, 0xAF, 0x9E, 0xFF, 0xFF])  // ~(0x50 0x61 0x00 0x00)
        #expect(TupleKey(Descending(Descending(true))).bytes == [0x68, 0x97, 0x11, 0x00, 0xFF])
        #expect(TupleKey("a", 1).bytes == [0x50, 0x61, 0x00, 0x29, 0x01])  // without descending: unchanged
        #expect(TupleKey(Descending(0)).description == "(descending(0))")
    }

    @Test func decodingRoundTrips() async throws {
        await propertyCheck(count: 1_000, input: Generator { rng in Self.key(using: &rng) }) { key in
            let bytes = key.bytes
            let decoded = try TupleKey(decoding: bytes)
            let canonical = key.components.map(ReferenceOrder.canonical)
            #expect(ReferenceOrder.identical(decoded.components, canonical), "\(key) decoded as \(decoded)")
            #expect(decoded.bytes == bytes)
        }
    }

    // MARK: Malformed input

    @Test func malformedDescendingComponentsThrow() throws {
        let cases: [(bytes: [UInt8], message: String)] = [
            ([0x68], "without its end marker"),
            ([0x68, 0xFF], "holding 0 components"),
            ([0x68, 0xF7, 0xF7, 0xFF], "holding 2 components"),
            ([0x68, 0xF7], "without its end marker"),
            ([0x68, 0xD6], "cut short"),  // a positive integer of one byte, its byte missing
            ([0x68, 0xAF, 0x9E], "without its terminator"),
            ([0x68, 0xAF, 0x9E, 0xFF, 0x01], "0x00 followed by 0xFE"),
            ([0x68, 0x00, 0xFF], "unknown type byte 0xFF"),
            ([0x68, 0xD6, 0xFF, 0xFF], "redundant leading byte"),  // ~(0x29 0x00 0x00): zero in one byte
            ([0x68, 0xF7, 0xFF, 0x00], "outside a nested tuple"),  // a complete component, then an end marker
            ([0x68, 0xF7, 0xFF, 0xFF], "unknown type byte 0xFF"),
            ([0x68, 0xAF, 0x3C, 0xFF, 0xFF], "not valid UTF-8"),  // ~0xC3: a lone lead byte
        ]
        for (bytes, message) in cases {
            let error = #expect(throws: LarderError.self, "\(bytes)") { try TupleKey(decoding: bytes) }
            #expect(error?.code == .corruptValue, "\(bytes)")
            #expect(error?.message.contains(message) == true, "\(bytes): \(error?.message ?? "")")
        }
    }

    @Test func deepDescendingNestingIsBounded() throws {
        let limit = TupleKeyDecoder.maximumNesting
        // Descending within descending: each level's type byte is complemented once more.
        func nested(_ depth: Int) -> [UInt8] {
            var key = TupleKey([.bool(true)])
            for _ in 0..<depth { key = TupleKey([.descending(key.components[0])]) }
            return key.bytes
        }
        #expect(try TupleKey(decoding: nested(limit)).bytes == nested(limit))
        let error = #expect(throws: LarderError.self) { try TupleKey(decoding: nested(limit + 1)) }
        #expect(error?.message.contains("nested more than") == true)
        // A long run of the type byte, and runs alternating it with its complement, throw without
        // exhausting the stack.
        for run in [[UInt8](repeating: 0x68, count: 100_000), (0..<100_000).map { $0 % 2 == 0 ? 0x68 : 0x97 }] {
            #expect(throws: LarderError.self) { try TupleKey(decoding: run) }
        }
    }

    @Test func truncatedDescendingKeysThrowOrAreCanonical() async {
        await propertyCheck(count: 300, input: Generator { rng in Self.key(using: &rng) }) { key in
            let bytes = key.bytes
            for length in 0..<bytes.count {
                expectCanonicalOrCorrupt(Array(bytes[..<length]))
            }
        }
    }

    @Test func randomBytesAfterTheTypeByteThrowOrAreCanonical() async {
        let noise = Generator { rng -> [UInt8] in
            let alphabet: [UInt8] = [0x00, 0xFF, 0xF7, 0xEF, 0xEE, 0xD7, 0xD6, 0xBF, 0xAF, 0x9F, 0x97, 0x68, 0x50, 0x29, 0x9E, 0x3C, 0x01]
            var bytes: [UInt8] = [0x68]
            for _ in 0..<Int.random(in: 0...24, using: &rng) {
                bytes.append(Bool.random(using: &rng) ? alphabet[Int.random(in: alphabet.indices, using: &rng)] : UInt8.random(in: 0...255, using: &rng))
            }
            if Bool.random(using: &rng) {
                var valid = Self.key(using: &rng).bytes
                if !valid.isEmpty { valid[Int.random(in: valid.indices, using: &rng)] ^= UInt8.random(in: 1...255, using: &rng) }
                bytes += valid
            }
            return bytes
        }
        await propertyCheck(count: 3_000, input: noise) { bytes in
            expectCanonicalOrCorrupt(bytes)
        }
    }

    // MARK: Views

    struct Note: Codable, Sendable, Equatable {
        var folder: String
        var title: String
        var modified: Date
    }

    static func byDate() -> AutoView<Note, NoMetadata> {
        AutoView(collections: ["notes"], versionTag: "1", grouping: { _, note in note.folder },
                 sorting: { _, note in TupleKey(Descending(note.modified), note.title) })
    }

    /// The view a model gives: newest first, then by title, then by key.
    static func expected(_ model: [String: Note], folder: String) -> [String] {
        model.filter { $0.value.folder == folder }.sorted { a, b in
            if a.value.modified != b.value.modified { return a.value.modified > b.value.modified }
            if a.value.title != b.value.title { return Array(a.value.title.utf8).lexicographicallyPrecedes(b.value.title.utf8) }
            return Array(a.key.utf8).lexicographicallyPrecedes(b.key.utf8)
        }.map(\.key)
    }

    @Test func aViewSortedByDescendingDateListsNewestFirstAcrossUpdates() throws {
        try withStore { db, _ in
            let handle = try db.register(Self.byDate(), named: "byDate")
            let seed = UInt64.random(in: 0 ... .max)
            var rng = SplitMix(seed: seed)
            var model: [String: Note] = [:]
            let base = Date(timeIntervalSinceReferenceDate: 790_000_000)
            for round in 0..<12 {
                try db.write { txn in
                    for _ in 0..<25 {
                        let key = "n\(Int.random(in: 0..<60, using: &rng))"
                        if Int.random(in: 0..<5, using: &rng) == 0 {
                            _ = try txn.removeObject(forKey: key, inCollection: "notes")
                            model[key] = nil
                        } else {
                            let note = Note(folder: ["inbox", "work"][Int.random(in: 0..<2, using: &rng)],
                                            title: ["a", "b", "a\u{0}", ""][Int.random(in: 0..<4, using: &rng)],
                                            modified: base.addingTimeInterval(Double(Int.random(in: -20...20, using: &rng)) * 3600))
                            try txn.setObject(note, forKey: key, inCollection: "notes")
                            model[key] = note
                        }
                    }
                }
                for folder in ["inbox", "work"] {
                    let listed = try db.read { try $0[handle].indexes(inGroup: folder).map(\.key) }
                    #expect(listed == Self.expected(model, folder: folder), "seed \(seed), round \(round), \(folder)")
                }
            }
            #expect(try db.verifyExtensions().isEmpty, "seed \(seed)")
            #expect(try db.checkStructure().isConsistent, "seed \(seed)")
        }
    }

    @Test func reversedPagesAreTheForwardPagesReversed() throws {
        try withStore { db, _ in
            let handle = try db.register(Self.byDate(), named: "byDate")
            let base = Date(timeIntervalSinceReferenceDate: 790_000_000)
            try db.write { txn in
                for i in 0..<600 {
                    try txn.setObject(Note(folder: i % 7 == 0 ? "other" : "inbox", title: "t\(i % 13)", modified: base.addingTimeInterval(Double(i % 97))),
                                      forKey: "n\(i)", inCollection: "notes")
                }
            }
            try db.read { txn in
                let reader = try txn[handle]
                let count = try reader.numberOfItems(inGroup: "inbox")
                #expect(count == 514)
                let ranges = [0..<0, 0..<1, 0..<20, 20..<40, 250..<300, 0..<count, count - 1..<count, 500..<600, 600..<700, 0..<Int.max]
                for range in ranges {
                    let forward = try reader.indexes(inGroup: "inbox", positions: range)
                    let backward = try reader.indexes(inGroup: "inbox", positions: range, reversed: true)
                    #expect(backward == Array(forward.reversed()), "\(range)")
                    let objects = try reader.objects(inGroup: "inbox", positions: range, reversed: true)
                    #expect(objects.map(\.index) == backward, "\(range)")
                    #expect(objects.map(\.object) == (try reader.objects(inGroup: "inbox", positions: range)).reversed().map(\.object), "\(range)")
                }
                #expect(try reader.indexes(inGroup: "inbox", positions: 0..<3, reversed: true).count == 3)
                #expect(try reader.indexes(inGroup: "nowhere", positions: 0..<3, reversed: true).isEmpty)
                // The last item of a reversed page of the whole group is its first item.
                #expect(try reader.indexes(inGroup: "inbox", positions: 0..<count, reversed: true).last == (try reader.first(inGroup: "inbox")))
            }
        }
    }

    // MARK: Secondary indexes

    @Test func aSecondaryIndexWithADescendingColumnAnswersRanges() throws {
        try withStore { db, _ in
            let index = SecondaryIndex<Note, NoMetadata>(collections: ["notes"], versionTag: "1") { _, note in
                TupleKey(note.folder, Descending(note.modified))
            }
            let handle = try db.register(index, named: "byFolderDate")
            let base = Date(timeIntervalSinceReferenceDate: 790_000_000)
            var model: [String: Note] = [:]
            try db.write { txn in
                for i in 0..<80 {
                    let note = Note(folder: i % 3 == 0 ? "work" : "inbox", title: "t\(i)", modified: base.addingTimeInterval(Double((i * 37) % 80) * 60))
                    try txn.setObject(note, forKey: String(format: "n%02d", i), inCollection: "notes")
                    model[String(format: "n%02d", i)] = note
                }
            }
            let newest = base.addingTimeInterval(60 * 60), oldest = base.addingTimeInterval(20 * 60)
            let (found, foundBackward, all) = try db.read { txn in
                let query = IndexQuery.range(where: TupleKey("inbox"), from: Descending(newest), to: Descending(oldest))
                return (try txn[handle].indexes(matching: query), try txn[handle].indexes(matching: query, order: .descending),
                        try txn[handle].indexes(matching: .equal(TupleKey("inbox"))))
            }
            // newest ≥ modified > oldest, newest first (ties by key).
            let expected = model.filter { $0.value.folder == "inbox" && $0.value.modified <= newest && $0.value.modified > oldest }
                .sorted { ($0.value.modified, $1.key) > ($1.value.modified, $0.key) }.map(\.key)
            #expect(!expected.isEmpty)
            #expect(found.map(\.key) == expected)
            #expect(foundBackward.map(\.key) == expected.reversed())
            let allExpected = model.filter { $0.value.folder == "inbox" }.sorted { ($0.value.modified, $1.key) > ($1.value.modified, $0.key) }.map(\.key)
            #expect(all.map(\.key) == allExpected)
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    /// A string-prefix query on a descending string column finds exactly the strings with the
    /// prefix, Z to A, NULs and multi-byte characters included; the ascending form finds none.
    @Test func aStringPrefixQueryOnADescendingColumn() throws {
        try withStore { db, _ in
            let index = SecondaryIndex<Note, NoMetadata>(collections: ["notes"], versionTag: "1") { _, note in
                TupleKey(note.folder, Descending(note.title))
            }
            let handle = try db.register(index, named: "byFolderTitle")
            let titles = ["re", "re:", "red", "rE", "r", "ré", "ree\u{0}x", "re\u{0}", "re\u{0}\u{0}", "rf", "q", "", "\u{0}", "ré\u{0}1", "res", "Re", "re\u{301}"]
            let date = Date(timeIntervalSinceReferenceDate: 0)
            try db.write { txn in
                for (i, title) in titles.enumerated() {
                    for folder in ["inbox", "work"] {
                        try txn.setObject(Note(folder: folder, title: title, modified: date), forKey: "\(folder)-\(i)", inCollection: "notes")
                    }
                }
            }
            for prefix in ["re", "r", "", "ré", "re\u{301}", "re\u{0}", "\u{0}", "zz", "e"] {
                let (found, ascending) = try db.read { txn in
                    (try txn[handle].indexes(matching: .prefix(where: TupleKey("inbox"), stringPrefix: Descending(prefix))).map(\.key),
                     try txn[handle].indexes(matching: .prefix(where: TupleKey("inbox"), stringPrefix: prefix)).count)
                }
                // By bytes, as the store compares strings: Swift's `hasPrefix` would call "ré" (two
                // scalars or one) a match or not by canonical equivalence.
                let matching = titles.enumerated().filter { Array($0.element.utf8).starts(with: Array(prefix.utf8)) }
                let expected = matching.sorted { Array($1.element.utf8).lexicographicallyPrecedes(Array($0.element.utf8)) }.map { "inbox-\($0.offset)" }
                #expect(found == expected, "prefix \(Array(prefix.utf8))")
                #expect(ascending == 0)
            }
        }
    }

    // MARK: Helpers

    /// The value order with descending components, written case by case: the reference order of
    /// the ascending kinds (``ReferenceOrder``) with a descending component after every
    /// ascending one and in the reverse of its inner components' order.
    static func referenceOrder(_ a: [TupleComponent], _ b: [TupleComponent]) -> Int {
        for (x, y) in zip(a, b) {
            let order = referenceOrder(x, y)
            if order != 0 { return order }
        }
        return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
    }

    static func referenceOrder(_ a: TupleComponent, _ b: TupleComponent) -> Int {
        switch (a, b) {
        case (.descending(let x), .descending(let y)): return -referenceOrder(x, y)
        case (.descending, _): return 1
        case (_, .descending): return -1
        case (.tuple(let x), .tuple(let y)): return referenceOrder(x, y)
        default: return ReferenceOrder.compare(a, b)
        }
    }

    /// A random key whose components (nested ones included) are often descending, sometimes
    /// twice.
    static func key(using rng: inout some RandomNumberGenerator) -> TupleKey {
        TupleKey(TupleSamples.components(depth: 0, using: &rng).map { mixed($0, using: &rng) })
    }

    /// Two related keys (see ``TupleSamples/pair(using:)``) with the same positions made
    /// descending in both, so that comparisons reach descending components of one kind.
    static func pair(using rng: inout some RandomNumberGenerator) -> (TupleKey, TupleKey) {
        let (a, b) = TupleSamples.pair(using: &rng)
        let wrapping = (0..<max(a.components.count, b.components.count)).map { _ in Int.random(in: 0..<4, using: &rng) }
        func wrap(_ key: TupleKey, using rng: inout some RandomNumberGenerator) -> TupleKey {
            TupleKey(key.components.enumerated().map { position, component in
                let inner = mixedInside(component, using: &rng)
                switch wrapping[position] {
                case 0, 1: return .descending(inner)
                case 2: return .descending(.descending(inner))
                default: return inner
                }
            })
        }
        return (wrap(a, using: &rng), wrap(b, using: &rng))
    }

    private static func mixed(_ component: TupleComponent, using rng: inout some RandomNumberGenerator) -> TupleComponent {
        let inner = mixedInside(component, using: &rng)
        switch Int.random(in: 0..<5, using: &rng) {
        case 0, 1: return .descending(inner)
        case 2: return .descending(.descending(inner))
        default: return inner
        }
    }

    private static func mixedInside(_ component: TupleComponent, using rng: inout some RandomNumberGenerator) -> TupleComponent {
        guard case .tuple(let parts) = component else { return component }
        return .tuple(parts.map { mixed($0, using: &rng) })
    }

    private func expectAscending(_ keys: [TupleKey], sourceLocation: SourceLocation = #_sourceLocation) {
        for (lower, upper) in zip(keys, keys.dropFirst()) {
            #expect(lower.bytes.lexicographicallyPrecedes(upper.bytes), "\(lower) < \(upper)", sourceLocation: sourceLocation)
            #expect(Self.referenceOrder(lower.components, upper.components) < 0, "\(lower) < \(upper)", sourceLocation: sourceLocation)
        }
    }

    private func expectCanonicalOrCorrupt(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let key = try TupleKey(decoding: bytes)
            #expect(key.bytes == bytes, "\(bytes) decoded as \(key)", sourceLocation: sourceLocation)
        } catch let error as LarderError {
            #expect(error.code == .corruptValue, sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }
}
