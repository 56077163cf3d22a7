import Foundation
import Testing
@testable import Larder

/// Names are bytes: two collection names or keys that Swift's `==` calls equal (canonically
/// equivalent, spelled with different code points) are two names to the store, as they are to
/// LMDB. Written together or apart, they keep two counts, two cache entries, two change
/// records, two undo images, two groups of a view, and the tool lists both.
@Suite("Exact names")
struct ExactNameTests {
    /// Two spellings of one text.
    struct Twin: Sendable, CustomTestStringConvertible {
        var a: String
        var b: String
        /// Whether Swift's `String ==` calls them equal (canonical equivalence); the control
        /// pairs are not, and stay apart already.
        var canonicallyEqual: Bool

        var testDescription: String {
            func scalars(_ text: String) -> String { text.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ") }
            return "[\(scalars(a))] / [\(scalars(b))]"
        }
    }

    /// The pairs every scenario runs over: NFC against NFD, combining marks in both orders,
    /// Hangul jamo against the syllable, a singleton decomposition (the Ångström sign), and two
    /// compatibility forms that Swift does not call equal (the control).
    static let twins: [Twin] = [
        Twin(a: "caf\u{E9}", b: "cafe\u{301}", canonicallyEqual: true),
        Twin(a: "a\u{301}\u{327}", b: "a\u{327}\u{301}", canonicallyEqual: true),
        Twin(a: "\u{1100}\u{1161}", b: "\u{AC00}", canonicallyEqual: true),
        Twin(a: "\u{212B}ngstr\u{F6}m", b: "\u{C5}ngstro\u{308}m", canonicallyEqual: true),
        Twin(a: "\u{212A}ey", b: "Key", canonicallyEqual: true),
        Twin(a: "\u{FB01}le", b: "file", canonicallyEqual: false),
        Twin(a: "\u{FF21}", b: "A", canonicallyEqual: false),
    ]

    /// Canonically equivalent spellings of one piece of text. Each spelling starts with a base
    /// character and ends where nothing that follows can combine with it, so spellings chosen
    /// independently piece by piece give canonically equivalent strings.
    static let pieces: [[String]] = [
        ["\u{E9}", "e\u{301}"],
        ["\u{C5}", "A\u{30A}", "\u{212B}"],
        ["\u{1E69}", "s\u{323}\u{307}", "s\u{307}\u{323}", "\u{1E63}\u{307}"],
        ["\u{AC01}", "\u{1100}\u{1161}\u{11A8}", "\u{AC00}\u{11A8}"],
        ["\u{E1}\u{327}", "a\u{301}\u{327}", "a\u{327}\u{301}"],
        ["\u{1EC7}", "e\u{323}\u{302}", "\u{1EB9}\u{302}", "\u{EA}\u{323}"],
        ["\u{F1}", "n\u{303}"],
        ["k"], ["/"], ["7"], [" "],
    ]

    /// A random pair of canonically equivalent strings with different bytes.
    static func randomTwin(_ random: inout SplitMix) -> Twin {
        while true {
            var a = "t", b = "t"
            for _ in 0..<Int.random(in: 1...5, using: &random) {
                let spellings = pieces.randomElement(using: &random)!
                a += spellings.randomElement(using: &random)!
                b += spellings.randomElement(using: &random)!
            }
            if Array(a.utf8) != Array(b.utf8) { return Twin(a: a, b: b, canonicallyEqual: true) }
        }
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    static func bytes(_ texts: [String]) -> [[UInt8]] { texts.map(bytes) }
    /// Sorted by bytes, as the store lists names.
    static func byteOrder(_ texts: [String]) -> [[UInt8]] { bytes(texts).sorted { $0.lexicographicallyPrecedes($1) } }

    @Test func theTwinsAreWhatTheyClaim() {
        for twin in Self.twins {
            #expect((twin.a == twin.b) == twin.canonicallyEqual, "\(twin.testDescription)")
            #expect(Self.bytes(twin.a) != Self.bytes(twin.b), "\(twin.testDescription)")
        }
    }

    // MARK: ExactString

    @Test func exactStringsCompareHashAndSortByBytes() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix(seed: seed)
        for _ in 0..<(200 * modelTestScale) {
            let twin = Self.randomTwin(&random)
            let (a, b) = (ExactString(twin.a), ExactString(twin.b))
            #expect(twin.a == twin.b, "seed \(seed)")
            #expect(a != b, "seed \(seed): \(twin.testDescription)")
            #expect((a < b) == Self.bytes(twin.a).lexicographicallyPrecedes(Self.bytes(twin.b)), "seed \(seed)")
            #expect((a < b) != (b < a), "seed \(seed)")
            #expect(Set([a, b]).count == 2, "seed \(seed)")
            #expect([a: 1, b: 2][a] == 1 && [a: 1, b: 2][b] == 2, "seed \(seed)")
            // Equal bytes, however the string was made, are one name.
            let copy = ExactString(String(decoding: Self.bytes(twin.a), as: UTF8.self))
            #expect(a == copy && a.hashValue == copy.hashValue && !(a < copy) && !(copy < a), "seed \(seed)")
            let (x, y) = (YapDB.Index(collection: twin.a, key: twin.b), YapDB.Index(collection: twin.b, key: twin.a))
            #expect(x != y && Set([x, y]).count == 2 && (x < y) == (a < b), "seed \(seed)")
        }
        for twin in Self.twins {
            #expect(ExactString(twin.a) != ExactString(twin.b), "\(twin.testDescription)")
        }
        // Prefixes sort first, as LMDB sorts keys; a substring (not contiguous on its own
        // storage) compares and hashes as its bytes.
        #expect(ExactString("caf") < ExactString("caf\u{E9}") && ExactString("") < ExactString("a"))
        let substring = String("xcaf\u{E9}".dropFirst())
        #expect(ExactString(substring) == ExactString("caf\u{E9}") && ExactString(substring).hashValue == ExactString("caf\u{E9}").hashValue)
        // A long (heap) string and a short (inline) one.
        let long = String(repeating: "e\u{301}", count: 40)
        #expect(ExactString(long) != ExactString(String(repeating: "\u{E9}", count: 40)))
        #expect(ExactString(long) == ExactString(String(decoding: Array(long.utf8), as: UTF8.self)))
    }

    @Test func nameSetsKeepTwinsApartAndSortByBytes() {
        var names: NameSet = ["caf\u{E9}", "cafe\u{301}", "b"]
        #expect(names.count == 3)
        #expect(names.contains("cafe\u{301}") && names.contains("caf\u{E9}") && !names.contains("cafe"))
        #expect(Self.bytes(names.sorted()) == Self.byteOrder(["caf\u{E9}", "cafe\u{301}", "b"]))
        #expect(names.insert("b") == false && names.remove("caf\u{E9}") && !names.contains("caf\u{E9}") && names.contains("cafe\u{301}"))
        #expect(names == ["cafe\u{301}", "b"] && names != ["caf\u{E9}", "b"])
        #expect(Set(names.map(Self.bytes)) == [Self.bytes("cafe\u{301}"), Self.bytes("b")])
    }
    // MARK: Keys of one collection

    /// Registers a view grouped by key, a filtered view of it, a secondary index on the key and
    /// a full-text index of the values over `collections`.
    struct Extensions {
        let byKey: ViewHandle<String, NoMetadata>
        let kept: ViewHandle<String, NoMetadata>
        let index: SecondaryIndexHandle<String, NoMetadata>

        init(_ db: Database, collections: [String]?) throws {
            byKey = try db.register(AutoView<String, NoMetadata>(
                collections: collections, versionTag: "1",
                grouping: { index, _ in index.key }, sorting: { index, value in TupleKey(index.collection, value) }), named: "byKey")
            kept = try db.register(FilteredView<String, NoMetadata>(parent: byKey, versionTag: "1") { group, index, _, _ in
                Array(group.utf8) == Array(index.key.utf8)
            }, named: "kept")
            index = try db.register(SecondaryIndex<String, NoMetadata>(collections: collections, versionTag: "1") { index, _ in
                TupleKey(index.key, index.collection)
            }, named: "byKeyIndex")
            try db.register(FullTextSearch<String, NoMetadata>(collections: collections, versionTag: "1", columnNames: ["text"]) { _, value in [value] },
                            named: "text")
        }

        /// Checks what the extensions hold: `indexes`, grouped by the bytes of their keys.
        func check(_ db: Database, _ indexes: [YapDB.Index], _ note: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(try db.verifyExtensions().isEmpty, "\(note)", sourceLocation: sourceLocation)
            var expected: [[UInt8]: Set<YapDB.Index>] = [:]
            for index in indexes { expected[ExactNameTests.bytes(index.key), default: []].insert(index) }
            try db.read { txn throws in
                for handle in [byKey, kept] {
                    let view = try txn[handle]
                    let groups = try view.groups()
                    #expect(ExactNameTests.bytes(groups) == expected.keys.sorted { $0.lexicographicallyPrecedes($1) }, "\(note)", sourceLocation: sourceLocation)
                    #expect(try view.numberOfItems() == indexes.count, "\(note)", sourceLocation: sourceLocation)
                    for group in groups {
                        let items = try view.indexes(inGroup: group)
                        #expect(Set(items) == expected[ExactNameTests.bytes(group)], "\(note): group \(ExactNameTests.bytes(group))", sourceLocation: sourceLocation)
                        #expect(try view.numberOfItems(inGroup: group) == items.count, "\(note)", sourceLocation: sourceLocation)
                    }
                    for index in indexes {
                        let group = try view.location(of: index)?.group
                        #expect(group.map(ExactNameTests.bytes) == ExactNameTests.bytes(index.key), "\(note): \(index)", sourceLocation: sourceLocation)
                    }
                }
                for index in indexes {
                    let found = try txn[self.index].indexes(matching: .equal(TupleKey(index.key, index.collection)))
                    #expect(found == [index], "\(note): the index finds \(found) for \(index)", sourceLocation: sourceLocation)
                }
            }
        }
    }

    /// Two keys of one collection, spelled as `twin`, in one transaction or in two, read back
    /// through a connection whose cache held both, through changesets (observed, merged for a
    /// slow observer, read from the log) and through the extensions.
    func twinKeys(_ twin: Twin, oneTransaction: Bool) throws {
        try withStore { db, _ in
            let extensions = try Extensions(db, collections: ["twins"])
            let (a, b) = (YapDB.Index(collection: "twins", key: twin.a), YapDB.Index(collection: "twins", key: twin.b))
            try db.write { try $0.setObject("old a", forKey: a.key, inCollection: a.collection) }
            try db.write { try $0.setObject("old b", forKey: b.key, inCollection: b.collection) }
            let reader = db.newConnection()
            for _ in 0..<2 {
                #expect(try reader.read { try $0.object(forKey: a.key, inCollection: a.collection, as: String.self) } == "old a")
                #expect(try reader.read { try $0.object(forKey: b.key, inCollection: b.collection, as: String.self) } == "old b")
            }
            let stream = db.changes()
            let since = try db.read { $0.lastCommit }
            if oneTransaction {
                try db.write { txn in
                    try txn.setObject("new a", forKey: a.key, inCollection: a.collection)
                    try txn.setObject("new b", forKey: b.key, inCollection: b.collection)
                }
            } else {
                try db.write { try $0.setObject("new a", forKey: a.key, inCollection: a.collection) }
                try db.write { try $0.setObject("new b", forKey: b.key, inCollection: b.collection) }
            }
            #expect(try reader.read { try $0.object(forKey: a.key, inCollection: a.collection, as: String.self) } == "new a", "a stale read of a")
            #expect(try reader.read { try $0.object(forKey: b.key, inCollection: b.collection, as: String.self) } == "new b", "a stale read of b")
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: "twins") == 2)
                #expect(Self.bytes(try txn.keys(inCollection: "twins")) == Self.byteOrder([twin.a, twin.b]))
            }

            // Every changeset, however it reaches its reader, lists both indexes.
            let observed = stream.lease.subscription.takeBuffered()
            #expect(observed.count == (oneTransaction ? 1 : 2))
            var seen: [YapDB.Index: Changeset.IndexChange] = [:]
            for changes in observed { seen.merge(changes.changes) { $1 } }
            #expect(Set(seen.keys) == [a, b])
            #expect(seen[a]?.object == .updated && seen[b]?.object == .updated)
            let merged = try #require(Changeset.merged(observed))
            #expect(Set(merged.changes.keys) == [a, b])
            // The answers as lists keep both names; the sets keep one (as documented).
            #expect(Self.bytes(merged.changedKeysInByteOrder(inCollection: "twins")) == Self.byteOrder([twin.a, twin.b]))
            #expect(merged.changedKeys(inCollection: "twins").count == (twin.canonicallyEqual ? 1 : 2))
            #expect(merged.change(for: a)?.object == .updated && merged.change(for: b)?.object == .updated)
            let logged = try #require(try db.read { try $0.changesets(after: since) })
            #expect(Set(logged.flatMap(\.changes.keys)) == [a, b])
            if oneTransaction {
                #expect(observed.first?.changes.count == 2)
                #expect(logged.first?.changes.count == 2)
            }

            try extensions.check(db, [a, b], "after writing \(oneTransaction ? "in one transaction" : "apart")")
            #expect(try db.checkStructure().isConsistent)
        }
    }

    @Test(arguments: twins) func twinKeysInOneTransaction(_ twin: Twin) throws {
        try twinKeys(twin, oneTransaction: true)
    }

    @Test(arguments: twins) func twinKeysInSeveralTransactions(_ twin: Twin) throws {
        try twinKeys(twin, oneTransaction: false)
    }

    // MARK: Two collections

    /// Two collections named as `twin`, with one key each, written in one transaction or in
    /// two; one of them cleared while the other is written.
    func twinCollections(_ twin: Twin, oneTransaction: Bool) throws {
        try withStore { db, _ in
            let (a, b) = (YapDB.Index(collection: twin.a, key: "k"), YapDB.Index(collection: twin.b, key: "k"))
            // Every collection: a `Set<String>` cannot name both twins (see "Names are bytes" in
            // Errors.md); anExtensionOfOneTwinCollectionLeavesTheOtherAlone names one.
            let extensions = try Extensions(db, collections: nil)
            try db.write { try $0.setObject("old a", forKey: a.key, inCollection: a.collection) }
            try db.write { try $0.setObject("old b", forKey: b.key, inCollection: b.collection) }
            let reader = db.newConnection()
            #expect(try reader.read { try $0.object(forKey: a.key, inCollection: a.collection, as: String.self) } == "old a")
            #expect(try reader.read { try $0.object(forKey: b.key, inCollection: b.collection, as: String.self) } == "old b")
            let writes: [(YapDB.Index, String)] = [(a, "new a"), (b, "new b"), (YapDB.Index(collection: twin.a, key: "k2"), "second a")]
            if oneTransaction {
                try db.write { txn in for (index, value) in writes { try txn.setObject(value, forKey: index.key, inCollection: index.collection) } }
            } else {
                for (index, value) in writes { try db.write { try $0.setObject(value, forKey: index.key, inCollection: index.collection) } }
            }
            #expect(try reader.read { try $0.object(forKey: a.key, inCollection: a.collection, as: String.self) } == "new a")
            #expect(try reader.read { try $0.object(forKey: b.key, inCollection: b.collection, as: String.self) } == "new b")
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: twin.a) == 2)
                #expect(try txn.numberOfKeys(inCollection: twin.b) == 1)
                #expect(Self.bytes(try txn.collections()) == Self.byteOrder([twin.a, twin.b]))
                #expect(Self.bytes(try txn.keys(inCollection: twin.b)) == [Self.bytes("k")])
            }
            #expect(try db.checkStructure().isConsistent)
            try extensions.check(db, [a, b, YapDB.Index(collection: twin.a, key: "k2")], "twin collections")

            // Clearing one leaves the other, with its change of the same transaction.
            let stream = db.changes()
            try db.write { txn in
                try txn.setObject("newer b", forKey: b.key, inCollection: b.collection)
                try txn.removeAllObjects(inCollection: a.collection)
            }
            let changes = try #require(stream.lease.subscription.takeBuffered().first)
            #expect(changes.change(for: b)?.object == .updated, "the change of b was lost with the clear of a")
            #expect(changes.hasChange(inCollection: a.collection) && changes.hasChange(for: b))
            #expect(changes.clearedCollections.contains { Self.bytes($0) == Self.bytes(twin.a) })
            #expect(!changes.clearedCollections.contains { Self.bytes($0) == Self.bytes(twin.b) })
            #expect(Self.bytes(changes.clearedCollectionsInByteOrder) == [Self.bytes(twin.a)])
            #expect(Self.bytes(changes.changedCollectionsInByteOrder) == Self.byteOrder([twin.a, twin.b]))
            #expect(try reader.read { try $0.object(forKey: b.key, inCollection: b.collection, as: String.self) } == "newer b")
            #expect(try reader.read { try $0.object(forKey: a.key, inCollection: a.collection, as: String.self) } == nil)
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: twin.a) == 0)
                #expect(try txn.numberOfKeys(inCollection: twin.b) == 1)
            }
            #expect(try db.checkStructure().isConsistent)
            try extensions.check(db, [b], "after the clear")
        }
    }

    @Test(arguments: twins) func twinCollectionsInOneTransaction(_ twin: Twin) throws {
        try twinCollections(twin, oneTransaction: true)
    }

    @Test(arguments: twins) func twinCollectionsInSeveralTransactions(_ twin: Twin) throws {
        try twinCollections(twin, oneTransaction: false)
    }

    /// The property over random pairs: written in one transaction as two keys and as two
    /// collections, each is kept, counted and seen changed.
    @Test func randomCanonicallyEquivalentPairs() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix(seed: seed)
        try withStore { db, _ in
            let reader = db.newConnection()
            for round in 0..<(24 * modelTestScale) {
                let twin = Self.randomTwin(&random)
                #expect(twin.a == twin.b, "seed \(seed)")
                let asKeys = [YapDB.Index(collection: "keys", key: twin.a), YapDB.Index(collection: "keys", key: twin.b)]
                let asCollections = [YapDB.Index(collection: twin.a, key: "k"), YapDB.Index(collection: twin.b, key: "k")]
                let all = asKeys + asCollections
                // The reader holds the values before the write (absent the first time round).
                for index in all { _ = try reader.read { try $0.object(forKey: index.key, inCollection: index.collection, as: Int.self) } }
                let stream = db.changes()
                try db.write { txn in
                    for (offset, index) in all.enumerated() { try txn.setObject(round * 10 + offset, forKey: index.key, inCollection: index.collection) }
                }
                for (offset, index) in all.enumerated() {
                    #expect(try reader.read { try $0.object(forKey: index.key, inCollection: index.collection, as: Int.self) } == round * 10 + offset,
                            "seed \(seed), round \(round): \(index)")
                }
                let changes = stream.lease.subscription.takeBuffered()
                #expect(changes.count == 1 && Set(changes.first?.changes.keys ?? [:].keys) == Set(all), "seed \(seed), round \(round)")
                try db.read { txn throws in
                    #expect(try txn.numberOfKeys(inCollection: twin.a) == 1, "seed \(seed), round \(round)")
                    #expect(try txn.numberOfKeys(inCollection: twin.b) == 1, "seed \(seed), round \(round)")
                    #expect(try txn.numberOfKeys(inCollection: "keys") == txn.keys(inCollection: "keys").count, "seed \(seed), round \(round)")
                }
            }
            let report = try db.checkStructure()
            #expect(report.isConsistent, "seed \(seed): \(report.problems)")
        }
    }

    // MARK: What extensions read and keep

    @Test(arguments: twins.filter(\.canonicallyEqual)) func anExtensionOfOneTwinCollectionLeavesTheOtherAlone(_ twin: Twin) throws {
        try withStore { db, _ in
            let extensions = try Extensions(db, collections: [twin.a])
            let (a, b) = (YapDB.Index(collection: twin.a, key: "k"), YapDB.Index(collection: twin.b, key: "k"))
            try db.write { txn in
                try txn.setObject("a", forKey: a.key, inCollection: a.collection)
                try txn.setObject("b", forKey: b.key, inCollection: b.collection)
            }
            try extensions.check(db, [a], "after writing both")
            // Clearing the other collection leaves this one's items.
            try db.write { try $0.removeAllObjects(inCollection: twin.b) }
            try extensions.check(db, [a], "after clearing the other")
            try db.write { try $0.setObject("b again", forKey: b.key, inCollection: b.collection) }
            try db.write { try $0.removeAllObjects(inCollection: twin.a) }
            try extensions.check(db, [], "after clearing its own")
        }
    }

    /// Extensions over both twin collections read both: the collections are a list, which keeps
    /// what a `Set<String>` (the former parameter type) merged before the store saw it.
    @Test(arguments: twins.filter(\.canonicallyEqual)) func anExtensionOfBothTwinCollectionsReadsBoth(_ twin: Twin) throws {
        try withStore { db, _ in
            let extensions = try Extensions(db, collections: [twin.a, twin.b])
            let (a, b) = (YapDB.Index(collection: twin.a, key: "k"), YapDB.Index(collection: twin.b, key: "k"))
            try db.write { txn in
                try txn.setObject("a", forKey: a.key, inCollection: a.collection)
                try txn.setObject("b", forKey: b.key, inCollection: b.collection)
            }
            try extensions.check(db, [a, b], "after writing both")
            try db.write { try $0.removeAllObjects(inCollection: twin.b) }
            try extensions.check(db, [a], "after clearing one")
            let spatial = try db.register(SpatialIndex<String, NoMetadata>(collections: [twin.a, twin.b], versionTag: "1") { _, _ in
                SpatialBox(minX: 0, minY: 0, maxX: 1, maxY: 1)
            }, named: "where")
            try db.write { try $0.setObject("b", forKey: b.key, inCollection: b.collection) }
            #expect(try db.read { try Set($0[spatial].indexes(intersecting: SpatialBox(minX: 0, minY: 0, maxX: 2, maxY: 2))) } == [a, b])
        }
    }

    @Test(arguments: twins) func viewChangesKeepTwinGroupsApart(_ twin: Twin) throws {
        try withStore { db, _ in
            let extensions = try Extensions(db, collections: ["twins"])
            let (a, b) = (YapDB.Index(collection: "twins", key: twin.a), YapDB.Index(collection: "twins", key: twin.b))
            let stream = db.changes()
            try db.write { txn in
                try txn.setObject("x", forKey: a.key, inCollection: a.collection)
                try txn.setObject("x", forKey: b.key, inCollection: b.collection)
            }
            let changeset = try #require(stream.lease.subscription.takeBuffered().first)
            for handle in [extensions.byKey, extensions.kept] {
                let changes = try #require(try handle.changes(in: changeset).first)
                #expect(!changes.isReset)
                #expect(Set(changes.sections.map { Self.bytes($0.group) }) == [Self.bytes(twin.a), Self.bytes(twin.b)])
                #expect(changes.sections.allSatisfy { $0.kind == .insert })
                #expect(changes.rows.count == 2)
                for row in changes.rows {
                    #expect(row.kind == .insert && row.to?.position == 0 && row.to.map { Self.bytes($0.group) } == Self.bytes(row.index.key), "\(row)")
                }
                var model: [[UInt8]: [YapDB.Index]] = [:]
                for row in changes.rows.sorted(by: { $0.to!.position < $1.to!.position }) { model[Self.bytes(row.to!.group), default: []].append(row.index) }
                #expect(model == [Self.bytes(twin.a): [a], Self.bytes(twin.b): [b]])
            }
            // Locations and section changes of twin groups are different values.
            #expect(ViewLocation(group: twin.a, position: 0) != ViewLocation(group: twin.b, position: 0))
            #expect(Set([ViewLocation(group: twin.a, position: 0), ViewLocation(group: twin.b, position: 0)]).count == 2)
            #expect(ViewChanges.SectionChange(kind: .insert, group: twin.a) != ViewChanges.SectionChange(kind: .insert, group: twin.b))
        }
    }

    @Test(arguments: twins.filter(\.canonicallyEqual)) func extensionNamesAndTagsAreBytes(_ twin: Twin) throws {
        try withStore { db, _ in
            func view(tag: String) -> AutoView<String, NoMetadata> {
                AutoView(collections: ["docs"], versionTag: tag, grouping: { _, value in value }, sorting: { index, _ in TupleKey(index.key) })
            }
            let a = try db.register(view(tag: "1"), named: twin.a)
            let b = try db.register(view(tag: "1"), named: twin.b)
            #expect(a != b && db.registeredExtensions.count == 2)
            try db.write { try $0.setObject("g", forKey: "k", inCollection: "docs") }
            #expect(try db.read { try [$0[a].numberOfItems(), $0[b].numberOfItems()] } == [1, 1])
            try db.unregisterExtension(named: twin.b)
            #expect(Self.bytes(db.registeredExtensions) == [Self.bytes(twin.a)])
            #expect(try db.read { try $0[a].numberOfItems() } == 1)
            // Another tag, spelled with other bytes, is another definition.
            #expect(throws: LarderError.self) { try db.register(view(tag: twin.b), named: twin.a) }
            let again = try db.register(view(tag: twin.a), named: twin.b)
            #expect(try db.read { try $0[again].numberOfItems() } == 1)
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    @Test(arguments: twins.filter(\.canonicallyEqual)) func fullTextSearchInATwinGroup(_ twin: Twin) throws {
        try withStore { db, _ in
            // Grouped by what comes before "|"; searched in what follows it.
            let byGroup = try db.register(AutoView<String, NoMetadata>(
                collections: ["docs"], versionTag: "1",
                grouping: { _, value in String(value.split(separator: "|")[0]) }, sorting: { index, _ in TupleKey(index.key) }), named: "byGroup")
            let search = try db.register(FullTextSearch<String, NoMetadata>(collections: ["docs"], versionTag: "1", columnNames: ["text"]) { _, value in
                [String(value.split(separator: "|")[1])]
            }, named: "search")
            try db.write { txn in
                // Ten filler documents in group a: larger than eight times the matches, so the
                // group is checked by looking each match up; one in group b, the only match.
                for i in 0..<10 { try txn.setObject(twin.a + "|filler \(i)", forKey: "a\(i)", inCollection: "docs") }
                try txn.setObject(twin.b + "|needle", forKey: "b", inCollection: "docs")
            }
            try db.read { txn throws in
                #expect(try txn[search].search("needle", inGroup: twin.a, of: byGroup).isEmpty)
                #expect(try txn[search].search("needle", inGroup: twin.b, of: byGroup).map(\.index) == [YapDB.Index(collection: "docs", key: "b")])
                #expect(try txn[search].search("filler", inGroup: twin.b, of: byGroup).isEmpty)
                #expect(try txn[search].search("filler", inGroup: twin.a, of: byGroup).count == 10)
            }
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    /// Values of one type that live in the twin of their type's collection.
    struct Target: Codable, Persistable, Sendable {
        static let collection = "caf\u{E9}"
        var id: String
    }

    struct Holder: Codable, Persistable, Sendable {
        static let collection = "cafe\u{301}"
        var id: String
        var target: Ref<Target>
    }

    @Test func relationshipsKeepTwinCollectionsApart() throws {
        try withStore { db, _ in
            let graph = Relationships(versionTag: "1")
                .edges(from: Holder.self) { holder in [.init("target", to: holder.target)] }
                .collectingGarbage(in: [Target.collection])
            let handle = try db.register(graph, named: "graph")
            try db.write { txn in
                try txn.write(Target(id: "held"))
                try txn.write(Target(id: "loose"))
                try txn.write(Holder(id: "h", target: Ref(key: "held")))
                // A Holder-shaped value in the Targets' collection declares no edge.
                try txn.setObject(Holder(id: "x", target: Ref(key: "loose")), forKey: "x", inCollection: Target.collection)
            }
            #expect(try db.verifyExtensions().isEmpty)
            #expect(try db.read { try $0[handle].edges(from: Holder.index(forKey: "h")).count } == 1)
            #expect(try db.read { try $0[handle].edges(from: YapDB.Index(collection: Target.collection, key: "x")).count } == 0)
            // What the Holder outside the collected collection reaches stays; the rest goes.
            let deleted = try db.write { try $0[handle].collectGarbage() }
            #expect(Set(deleted) == [Target.index(forKey: "loose"), YapDB.Index(collection: Target.collection, key: "x")])
            #expect(try db.read { try $0.hasObject(forKey: "held", inCollection: Target.collection) })
            // Refs and roots compare keys and collections by their bytes.
            #expect(Ref<Target>(key: "caf\u{E9}") != Ref<Target>(key: "cafe\u{301}"))
            #expect(Set([Ref<Target>(key: "caf\u{E9}"), Ref<Target>(key: "cafe\u{301}")]).count == 2)
            try db.write { try $0.setRoot(Ref<Holder>(key: "h"), named: "main") }
            #expect(try db.read { try $0.root(named: "main", as: Holder.self) } == Ref<Holder>(key: "h"))
            #expect(throws: LarderError.self) { try db.read { try $0.root(named: "main", as: Target.self) } }
        }
    }

    @Test(arguments: twins.filter(\.canonicallyEqual)) func migrationsAndArchiversBelongToOneCollection(_ twin: Twin) throws {
        try withStore { db, _ in
            try db.write { txn in
                for key in [twin.a, twin.b, "z"] { try txn.setObject(["name": key], forKey: key, inCollection: "twins") }
                try txn.setObject(["name": "other"], forKey: "k", inCollection: twin.b)
            }
            db.register(ValueMigrations(collection: "twins", currentVersion: 1, steps: [MigrationStep(from: 0) { value in value["name"] = .string("migrated") }]))
            db.register(ValueMigrations(collection: twin.a, currentVersion: 1, steps: [MigrationStep(from: 0) { value in value["name"] = .string("migrated") }]))
            // One key a chunk: each chunk starts after the last key of the one before, by bytes.
            let progress = try db.migrate(collection: "twins", chunkSize: 1)
            #expect(progress.scanned == 3 && progress.migrated == 3)
            #expect(try db.storedVersions(inCollection: "twins") == [1: 3])
            // The other twin collection has no versions declared: its values stay as written.
            try db.write { try $0.setObject(["name": "written"], forKey: "k2", inCollection: twin.b) }
            #expect(try db.storedVersions(inCollection: twin.b) == [0: 2])
            #expect(try db.read { try $0.object(forKey: "k", inCollection: twin.b, as: [String: String].self) } == ["name": "other"])
            // An archiver registered for one collection is not used in its twin.
            db.register(JSONArchiver<[Double]>(), forCollection: twin.a)
            try db.write { txn in
                try txn.setObject([1.5] as [Double], forKey: "n", inCollection: twin.a)
                try txn.setObject([2.5] as [Double], forKey: "n", inCollection: twin.b)
            }
            try db.read { txn throws in
                let formats = try [twin.a, twin.b].map { try txn.storedObject(forKey: "n", inCollection: $0)?.format }
                #expect(formats == [.json, .messagePack])
            }
        }
    }

    // MARK: Undo, history, read sets

    @Test(arguments: twins.filter(\.canonicallyEqual)) func undoRestoresBoth(_ twin: Twin) throws {
        var configuration = Database.Configuration()
        configuration.keepsValueHistory = true
        try withStore(configuration) { db, _ in
            let indexes = [YapDB.Index(collection: "twins", key: twin.a), YapDB.Index(collection: "twins", key: twin.b),
                           YapDB.Index(collection: twin.a, key: "k"), YapDB.Index(collection: twin.b, key: "k")]
            try db.write { txn in for index in indexes { try txn.setObject("before", forKey: index.key, inCollection: index.collection) } }
            let reader = db.newConnection()
            func values() throws -> [String?] {
                try reader.read { txn throws in try indexes.map { try txn.object(forKey: $0.key, inCollection: $0.collection, as: String.self) } }
            }
            #expect(try values() == ["before", "before", "before", "before"])
            try db.write(undoable: "Edit twins") { txn in
                try txn.setObject("after", forKey: indexes[0].key, inCollection: indexes[0].collection)
                try txn.setObject("after", forKey: indexes[1].key, inCollection: indexes[1].collection)
                _ = try txn.removeObject(forKey: indexes[2].key, inCollection: indexes[2].collection)
                try txn.setObject("after", forKey: indexes[3].key, inCollection: indexes[3].collection)
                try txn.setObject("new", forKey: "k2", inCollection: indexes[3].collection)
            }
            #expect(try values() == ["after", "after", nil, "after"])
            let undone = try #require(try db.undo())
            #expect(Set(undone.indexes) == Set(indexes + [YapDB.Index(collection: twin.b, key: "k2")]))
            #expect(try values() == ["before", "before", "before", "before"])
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: twin.a) == 1)
                #expect(try txn.numberOfKeys(inCollection: twin.b) == 1)
                #expect(try txn.numberOfKeys(inCollection: "twins") == 2)
            }
            #expect(try db.checkStructure().isConsistent)
            #expect(try db.redo() != nil)
            #expect(try values() == ["after", "after", nil, "after"])
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: twin.a) == 0)
                #expect(try txn.numberOfKeys(inCollection: twin.b) == 2)
                // Each history is its own index's.
                for (index, expected) in zip(indexes, [["after", "before"], ["after", "before"], [nil, "before"], ["after", "before"]]) {
                    let history = try txn.history(ofObjectAt: index).prefix(2)
                    #expect(try history.map { try $0.value(as: String.self) } == expected, "\(index)")
                }
            }
            #expect(try db.checkStructure().isConsistent)
        }
    }

    @Test func readSetsKeepBothKeysAndBothCollections() throws {
        let twin = Self.twins[0]
        try withStore { db, _ in
            let reads = try db.write { txn -> ReadSet in
                txn.startRecordingReads()
                _ = try txn.object(forKey: twin.a, inCollection: "keys", as: String.self)
                _ = try txn.object(forKey: twin.b, inCollection: "keys", as: String.self)
                _ = try txn.numberOfKeys(inCollection: twin.a)
                _ = try txn.object(forKey: "k", inCollection: twin.b, as: String.self)
                return txn.recordedReads
            }
            #expect(reads.pointReads.count == 3)
            #expect(Set(reads.pointReads.map { Self.bytes($0.collection) + [0] + Self.bytes($0.key) })
                    == [Self.bytes("keys\0" + twin.a), Self.bytes("keys\0" + twin.b), Self.bytes(twin.b + "\0k")])
            #expect(Self.bytes(reads.collections.sorted()) == [Self.bytes(twin.a)])
        }
    }

    // MARK: Other processes

    /// Runs the helper to its end and returns the lines it printed.
    func helper(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let helper = try #require(ProcessTestSupport.helperExecutable(), "larder-test-helper not found beside the test binary")
        let run = try ProcessTestSupport.run(helper, arguments)
        #expect(run.status == 0, "\(run)", sourceLocation: sourceLocation)
        return run.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// `collection:key`, each in hexadecimal UTF-8 (arguments are bytes, but no normalization
    /// anywhere on the way should be able to touch the test).
    static func hex(_ index: YapDB.Index) -> String {
        func hex(_ text: String) -> String { text.utf8.map { String(format: "%02x", $0) }.joined() }
        return hex(index.collection) + ":" + hex(index.key)
    }

    @Test(arguments: twins.filter(\.canonicallyEqual)) func anotherProcessWritesBoth(_ twin: Twin) throws {
        try withStore { db, directory in
            let indexes = [YapDB.Index(collection: "twins", key: twin.a), YapDB.Index(collection: "twins", key: twin.b),
                           YapDB.Index(collection: twin.a, key: "k"), YapDB.Index(collection: twin.b, key: "k")]
            try db.write { txn in for index in indexes { try txn.setObject("mine", forKey: index.key, inCollection: index.collection) } }
            let reader = db.newConnection()
            func values() throws -> [String?] {
                try reader.read { txn throws in try indexes.map { try txn.object(forKey: $0.key, inCollection: $0.collection, as: String.self) } }
            }
            #expect(try values() == ["mine", "mine", "mine", "mine"])
            let stream = db.changes()
            _ = try helper(["exact-write", directory.file("store")] + indexes.enumerated().map { Self.hex($1) + "=theirs-\($0)" })
            #expect(try values() == ["theirs-0", "theirs-1", "theirs-2", "theirs-3"])
            db.checkForExternalChanges()
            let changes = stream.lease.subscription.takeBuffered()
            #expect(changes.count == 1 && Set(changes.first?.changes.keys ?? [:].keys) == Set(indexes))
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: "twins") == 2)
                #expect(try txn.numberOfKeys(inCollection: twin.a) == 1)
                #expect(try txn.numberOfKeys(inCollection: twin.b) == 1)
            }
            #expect(try db.checkStructure().isConsistent)
        }
    }

    @Test(arguments: twins.filter(\.canonicallyEqual)) func anotherProcessSeesBothChange(_ twin: Twin) throws {
        try withStore { db, directory in
            let indexes = [YapDB.Index(collection: "twins", key: twin.a), YapDB.Index(collection: "twins", key: twin.b),
                           YapDB.Index(collection: twin.a, key: "k"), YapDB.Index(collection: twin.b, key: "k")]
            try db.write { txn in for index in indexes { try txn.setObject("old", forKey: index.key, inCollection: index.collection) } }
            let helper = try #require(ProcessTestSupport.helperExecutable())
            let watcher = try InteractiveProcess(helper, ["exact-watch", directory.file("store")] + indexes.map(Self.hex))
            // The other process has read every value (its caches hold them) before the write.
            #expect(watcher.readLine() == "old old old old")
            try db.write { txn in for (offset, index) in indexes.enumerated() { try txn.setObject("new\(offset)", forKey: index.key, inCollection: index.collection) } }
            let rest = try watcher.finish(input: "go\n")
            #expect(rest.status == 0, "\(rest.standardError)")
            #expect(rest.lines == ["new0 new1 new2 new3", "counts 2 1 1"], "\(rest.standardError)")
        }
    }

    // MARK: The command-line tool

    @Test(arguments: twins) func theToolListsBoth(_ twin: Twin) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            try db.write { txn in
                try txn.setObject(1, forKey: twin.a, inCollection: "twins")
                try txn.setObject(2, forKey: twin.b, inCollection: "twins")
                try txn.setObject(3, forKey: "k", inCollection: twin.a)
                try txn.setObject(4, forKey: "k", inCollection: twin.b)
            }
            db.close()
        }
        let keys = try CLI.succeed(["keys", path, "twins"]).split(separator: "\n").map(String.init)
        #expect(Self.bytes(keys) == Self.byteOrder([twin.a, twin.b]))
        for (collection, value) in [(twin.a, 3), (twin.b, 4)] {
            #expect(try CLI.succeed(["keys", path, collection]) == "k\n")
            #expect(try CLI.succeed(["get", path, collection, "k"]) == "\(value)\n")
        }
        let collections = try CLI.succeed(["collections", path]).split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(collections.map { Self.bytes($0[0]) } == Self.byteOrder(["twins", twin.a, twin.b]))
        #expect(collections.map { $0[1] } == Self.byteOrder(["twins", twin.a, twin.b]).map { $0 == Self.bytes("twins") ? "2" : "1" })
        let check = try CLI.succeed(["check", path])
        #expect(check.hasSuffix("structure: consistent\n"), "\(check)")
    }

    /// `larder log --collection` shows the one collection asked for; `larder import` counts two
    /// collections and keeps an object's two member names.
    @Test(arguments: twins.filter(\.canonicallyEqual)) func theToolLogsAndImportsTwinsApart(_ twin: Twin) throws {
        let directory = TemporaryDirectory()
        let logged = directory.file("logged")
        do {
            let db = try Database(path: logged)
            try db.write { txn in
                try txn.setObject(1, forKey: "k", inCollection: twin.a)
                try txn.setObject(2, forKey: "k", inCollection: twin.b)
            }
            db.close()
        }
        let rows = try CLI.succeed(["log", logged, "--collection", twin.a, "--format", "csv"]).split(separator: "\n").dropFirst()
        #expect(rows.map { Self.bytes(String($0.split(separator: ",", omittingEmptySubsequences: false)[2])) } == [Self.bytes(twin.a)], "\(rows)")

        let imported = directory.file("imported")
        let input = """
            {"collection": "\(twin.a)", "key": "k", "object": 1}
            {"collection": "\(twin.b)", "key": "k", "object": 2}
            {"collection": "docs", "key": "j", "object": {"\(twin.a)": 1, "\(twin.b)": 2}}
            """
        let summary = try #require(try CLI.json(["import", imported, "--create", "--json"], input: input) as? [String: Any])
        #expect(summary["records"] as? Int == 3 && summary["collections"] as? Int == 3, "\(summary)")
        let db = try Database(path: imported)
        let stored = try #require(try db.read { try $0.storedObject(forKey: "j", inCollection: "docs") })
        guard case .map(let entries) = try MessagePackValue(reading: stored.bytes) else {
            Issue.record("not a map")
            return
        }
        let names = entries.compactMap { entry -> [UInt8]? in
            guard case .string(let name) = entry.key else { return nil }
            return name
        }
        #expect(Set(names) == [Self.bytes(twin.a), Self.bytes(twin.b)])
        #expect(try db.read { try $0.numberOfKeys(inCollection: twin.a) } == 1)
        db.close()
    }
}

/// A helper process driven line by line: it prints, the test acts, then feeds it its input.
final class InteractiveProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffered: [UInt8] = []

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// The next line the process printed, `nil` at its end.
    func readLine() -> String? {
        while true {
            if let newline = buffered.firstIndex(of: 0x0A) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { return nil }
            buffered.append(contentsOf: data)
        }
    }

    /// Feeds `input`, waits for the end, and returns the lines printed since the last read.
    func finish(input text: String) throws -> (status: Int32, lines: [String], standardError: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        let standardError = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, lines, standardError)
    }
}
