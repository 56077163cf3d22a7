import Foundation
import PropertyBased
import Testing
@testable import Larder

/// The ordered tuple key encoding: its byte order must be the value order, it must decode back
/// to the canonical value, and malformed bytes must throw rather than crash.
@Suite("Tuple keys")
struct TupleKeyTests {
    // MARK: Properties

    @Test func byteOrderIsValueOrder() async {
        await propertyCheck(count: 400, input: Generator { rng in TupleSamples.pair(using: &rng) }) { a, b in
            let order = ReferenceOrder.compare(a.components, b.components)
            #expect(a.bytes.lexicographicallyPrecedes(b.bytes) == (order < 0), "\(a) vs \(b)")
            #expect(b.bytes.lexicographicallyPrecedes(a.bytes) == (order > 0), "\(a) vs \(b)")
            #expect((a.bytes == b.bytes) == (order == 0), "\(a) vs \(b)")
            #expect((a < b) == (order < 0), "\(a) vs \(b)")
            #expect((a == b) == (order == 0), "\(a) vs \(b)")
            if order == 0 {
                #expect(a.hashValue == b.hashValue, "\(a) vs \(b)")
            }
        }
    }

    @Test func decodingReturnsTheCanonicalForm() async throws {
        await propertyCheck(count: 300, input: Generator { rng in TupleSamples.tuple(using: &rng) }) { key in
            let bytes = key.bytes
            let decoded = try TupleKey(decoding: bytes)
            let canonical = key.components.map(ReferenceOrder.canonical)
            #expect(ReferenceOrder.identical(decoded.components, canonical), "\(key) decoded as \(decoded)")
            #expect(decoded == key)
            #expect(decoded.bytes == bytes)
        }
    }

    @Test func sortingByBytesSortsByValue() async {
        let keys = Generator { rng in (0..<40).map { _ in TupleSamples.tuple(using: &rng) } }
        await propertyCheck(count: 40, input: keys) { keys in
            let byBytes = keys.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
            let byValue = keys.sorted { ReferenceOrder.compare($0.components, $1.components) < 0 }
            let byComparable = keys.sorted()
            #expect(byBytes.map(\.bytes) == byValue.map(\.bytes))
            #expect(byComparable.map(\.bytes) == byValue.map(\.bytes))
        }
    }

    @Test func everyPrefixOfAnEncodingThrowsOrIsItselfCanonical() async {
        await propertyCheck(count: 100, input: Generator { rng in TupleSamples.tuple(using: &rng) }) { key in
            let bytes = key.bytes
            for length in 0..<bytes.count {
                let prefix = Array(bytes[..<length])
                expectCanonicalOrCorrupt(prefix)
            }
        }
    }

    @Test func arbitraryBytesDecodeOnlyWhenCanonical() async {
        await propertyCheck(count: 500, input: Generator { rng in TupleSamples.noise(using: &rng) }) { bytes in
            expectCanonicalOrCorrupt(bytes)
        }
    }

    // MARK: Hand-written order

    @Test func typeOrder() {
        expectAscending([
            [],
            [.null],
            [.bool(false)],
            [.bool(true)],
            [.int(.min)],
            [.int(0)],
            [.uint(.max)],
            [.double(-.infinity)],
            [.double(0)],
            [.double(.nan)],
            [.date(.distantPast)],
            [.date(.distantFuture)],
            [.string("")],
            [.string("\u{10FFFF}\u{10FFFF}")],
            [.bytes([])],
            [.bytes([0xFF, 0xFF])],
            [.tuple([])],
            [.tuple([.tuple([])])],
        ])
    }

    @Test func integersShareOneNumericOrder() {
        let int64Max = UInt64(Int64.max)
        expectAscending([
            [.int(.min)],
            [.int(.min + 1)],
            [.int(-(1 << 32))],
            [.int(-257)],
            [.int(-256)],
            [.int(-255)],
            [.int(-1)],
            [.int(0)],
            [.int(1)],
            [.uint(255)],
            [.int(256)],
            [.uint(1 << 32)],
            [.int(.max)],
            [.uint(int64Max + 1)],
            [.uint(.max - 1)],
            [.uint(.max)],
        ])
    }

    @Test func signedAndUnsignedOfOneValueAreOneValue() throws {
        for value in [0, 7, 255, 256, Int64.max] {
            let signed = TupleKey([.int(value)])
            let unsigned = TupleKey([.uint(UInt64(value))])
            #expect(signed == unsigned)
            #expect(signed.bytes == unsigned.bytes)
            #expect(signed.hashValue == unsigned.hashValue)
            #expect(!(signed < unsigned) && !(unsigned < signed))
            #expect(TupleComponent.int(value) == TupleComponent.uint(UInt64(value)))
            let decoded = try TupleKey(decoding: unsigned.bytes)
            #expect(ReferenceOrder.identical(decoded.components, [.int(value)]))
        }
        #expect(TupleKey(7 as UInt8) == TupleKey(7))
        #expect(Set([TupleKey(7 as UInt64), TupleKey(7 as Int16)]).count == 1)
        let huge = try TupleKey(decoding: TupleKey(UInt64.max).bytes)
        #expect(ReferenceOrder.identical(huge.components, [.uint(.max)]))
    }

    @Test func doublesFollowTheTotalOrder() {
        expectAscending([
            [.double(-.infinity)],
            [.double(-.greatestFiniteMagnitude)],
            [.double(-1)],
            [.double(-.leastNormalMagnitude)],
            [.double(-.leastNonzeroMagnitude)],
            [.double(-0.0)],
            [.double(0.0)],
            [.double(.leastNonzeroMagnitude)],
            [.double(1)],
            [.double(.greatestFiniteMagnitude)],
            [.double(.infinity)],
            [.double(.nan)],
        ])
        #expect(TupleComponent.double(-0.0) != TupleComponent.double(0.0))
        // Every NaN is the one canonical NaN.
        let nans: [Double] = [.nan, -.nan, .signalingNaN, Double(bitPattern: 0xFFF8_0000_0000_0123)]
        for nan in nans {
            #expect(TupleKey(nan) == TupleKey(Double.nan))
            #expect(TupleKey(nan).bytes == TupleKey(Double.nan).bytes)
        }
    }

    @Test func integersAndDoublesDoNotInterleave() {
        expectAscending([[.int(1)], [.uint(.max)], [.double(-.infinity)], [.double(0.5)]])
        #expect(TupleKey(1) != TupleKey(1.0))
    }

    @Test func stringsSortByUTF8Bytes() {
        expectAscending([
            [.string("")],
            [.string("a")],
            [.string("a\u{0}")],
            [.string("a\u{0}\u{0}")],
            [.string("a\u{0}b")],
            [.string("ab")],
            [.string("b")],
            [.string("e\u{301}")],
            [.string("\u{7F}")],
            [.string("\u{E9}")],
            [.string("\u{FFFF}")],
            [.string("\u{10000}")],
        ])
        // Swift calls these equal (canonical equivalence); their bytes differ, so keys do not.
        #expect("\u{E9}" == "e\u{301}")
        #expect(TupleKey("\u{E9}") != TupleKey("e\u{301}"))
        #expect(TupleKey("e\u{301}") < TupleKey("\u{E9}"))
    }

    @Test func byteStringsSortByBytes() {
        expectAscending([
            [.bytes([])],
            [.bytes([0])],
            [.bytes([0, 0])],
            [.bytes([0, 0xFF])],
            [.bytes([1])],
            [.bytes([0xFF])],
            [.bytes([0xFF, 0])],
            [.bytes([0xFF, 0xFF])],
        ])
    }

    @Test func aPrefixTupleSortsFirst() {
        expectAscending([
            [],
            [.string("a")],
            [.string("a"), .null],
            [.string("a"), .null, .null],
            [.string("a"), .bool(false)],
            [.string("a"), .int(-1)],
            [.string("a"), .string("")],
            [.string("a"), .tuple([])],
            [.string("a\u{0}")],
            [.string("ab")],
        ])
    }

    @Test func aNestedTupleSortsBeforeItsExtension() {
        let a = TupleComponent.string("a")
        expectAscending([
            [.tuple([])],
            [.tuple([]), .null],
            [.tuple([]), .tuple([])],
            [.tuple([.null])],
            [.tuple([a])],
            // The end marker must sort below a null, whatever follows the nested tuple.
            [.tuple([a]), .string("zzz")],
            [.tuple([a]), .tuple([.string("zzz")])],
            [.tuple([a, .null])],
            [.tuple([a, .null]), .null],
            [.tuple([a, .int(0)])],
            [.tuple([a, .tuple([])])],
            [.tuple([a, .tuple([.null])])],
            [.tuple([.string("a\u{0}")])],
            [.tuple([.string("b")])],
        ])
    }

    @Test func datesSortByInstant() throws {
        let referenceDate = Date(timeIntervalSinceReferenceDate: 0)
        expectAscending([
            [.date(.distantPast)],
            [.date(Date(timeIntervalSince1970: -86_400 * 365))],
            [.date(Date(timeIntervalSince1970: -1))],
            [.date(Date(timeIntervalSince1970: 0))],
            [.date(Date(timeIntervalSince1970: 0.5))],
            [.date(Date(timeIntervalSinceReferenceDate: -1))],
            [.date(referenceDate)],
            [.date(Date(timeIntervalSinceReferenceDate: 1e-9))],
            [.date(Date(timeIntervalSinceReferenceDate: 86_400))],
            [.date(.distantFuture)],
        ])
        // -0.0 seconds is the same instant as +0.0.
        let negativeZero = Date(timeIntervalSinceReferenceDate: -0.0)
        #expect(TupleKey(negativeZero) == TupleKey(referenceDate))
        let decoded = try TupleKey(decoding: TupleKey(negativeZero).bytes)
        #expect(ReferenceOrder.identical(decoded.components, [.date(referenceDate)]))
        // Dates round-trip to the bit.
        let now = Date()
        #expect(ReferenceOrder.identical(try TupleKey(decoding: TupleKey(now).bytes).components, [.date(now)]))
    }

    // MARK: Wire format

    /// Stored indexes depend on these bytes; changing them is a format change.
    @Test func wireFormatIsPinned() {
        let cases: [(TupleComponent, [UInt8])] = [
            (.null, [0x08]),
            (.bool(false), [0x10]),
            (.bool(true), [0x11]),
            (.int(0), [0x28]),
            (.int(1), [0x29, 0x01]),
            (.int(256), [0x2A, 0x01, 0x00]),
            (.int(-1), [0x27, 0xFE]),
            (.int(-255), [0x27, 0x00]),
            (.int(-256), [0x26, 0xFE, 0xFF]),
            (.int(-257), [0x26, 0xFE, 0xFE]),
            (.int(.min), [0x20, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (.uint(.max), [0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (.double(1), [0x40, 0xBF, 0xF0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
            (.double(-1), [0x40, 0x40, 0x0F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (.double(-0.0), [0x40, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (.double(0.0), [0x40, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
            (.date(Date(timeIntervalSinceReferenceDate: 0)), [0x48, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
            (.string(""), [0x50, 0x00]),
            (.string("a\u{0}b"), [0x50, 0x61, 0x00, 0xFF, 0x62, 0x00]),
            (.bytes([0x00, 0xFF]), [0x58, 0x00, 0xFF, 0xFF, 0x00]),
            (.tuple([]), [0x60, 0x00]),
            (.tuple([.null, .tuple([])]), [0x60, 0x08, 0x60, 0x00, 0x00]),
        ]
        for (component, bytes) in cases {
            #expect(TupleKey([component]).bytes == bytes, "\(component)")
        }
        #expect(TupleKey().bytes == [])
    }

    @Test func encodeIntoAppendsComponentByComponent() {
        var buffer: [UInt8] = [0xAB]
        let key = TupleKey("books", 42, true)
        key.encode(into: &buffer)
        #expect(buffer == [0xAB] + key.bytes)
        // Each component's encoding stands alone, so keys concatenate.
        #expect(TupleKey("books").bytes + TupleKey(42, true).bytes == key.bytes)
    }

    /// Views, indexes and relationships write their keys' bytes straight into a buffer instead of
    /// making the tuple: the bytes must be the tuple's, NULs, empty and non-ASCII strings included.
    @Test func extensionKeysAreTheirTuples() async {
        let input = Generator { rng in
            (TupleSamples.string(using: &rng), TupleSamples.tuple(using: &rng),
             YapDB.Index(collection: TupleSamples.string(using: &rng), key: TupleSamples.string(using: &rng)))
        }
        await propertyCheck(count: 400, input: input) { group, sort, index in
            let item = TupleKey([.string(group), .tuple(sort.components), .string(index.collection), .string(index.key)])
            #expect(ListRuntime<Int, NoMetadata>.itemKey(group: group, sort: sort, index: index) == item.bytes, "\(item)")
            let entry = TupleKey(sort.components + [.string(index.collection), .string(index.key)])
            #expect(SecondaryIndexRuntime<Int, NoMetadata>.entryBytes(sort, index) == entry.bytes, "\(entry)")
            // An edge between two indexes, declared by its source or by a third value.
            let other = YapDB.Index(collection: index.key, key: group)
            for owner in [index, other] {
                let edge = RelationshipEdge(name: group, source: index, destination: other, rules: [], isManual: owner != index)
                let ownerComponent: TupleComponent = owner == index ? .null : .tuple([.string(owner.collection), .string(owner.key)])
                let forward = TupleKey([.string(index.collection), .string(index.key), .string(group), .string(other.collection),
                                        .string(other.key), ownerComponent])
                let reverse = TupleKey([.string(other.collection), .string(other.key), .string(group), .string(index.collection),
                                        .string(index.key), ownerComponent])
                #expect(RelationshipsRuntime.forwardKey(edge, owner: owner) == forward.bytes, "\(forward)")
                #expect(RelationshipsRuntime.reverseKey(edge, owner: owner) == reverse.bytes, "\(reverse)")
            }
            #expect(RelationshipsRuntime.prefix(index) == TupleKey([.string(index.collection), .string(index.key)]).bytes)
            #expect(RelationshipsRuntime.prefix(index, named: group) == TupleKey([.string(index.collection), .string(index.key), .string(group)]).bytes)
            var alone: [UInt8] = [0xAB]
            TupleComponent.appendString(group, to: &alone)
            #expect(alone == [0xAB] + TupleKey([.string(group)]).bytes)
        }
    }

    // MARK: Swift values

    @Test func swiftValuesConvert() {
        let date = Date(timeIntervalSince1970: 1_000)
        let key = TupleKey(
            "books", "books".dropFirst(), 42, Int8(-8), Int16(-16), Int32(-32), Int64(-64),
            UInt(1), UInt8(8), UInt16(16), UInt32(32), UInt64.max, 3.5, Float(0.25), true, date,
            [UInt8]([0, 1]), Int?.none, String?.some("x"), TupleKey("in", 1), TupleComponent.null
        )
        let expected: [TupleComponent] = [
            .string("books"), .string("ooks"), .int(42), .int(-8), .int(-16), .int(-32), .int(-64),
            .int(1), .int(8), .int(16), .int(32), .uint(.max), .double(3.5), .double(0.25), .bool(true), .date(date),
            .bytes([0, 1]), .null, .string("x"), .tuple([.string("in"), .int(1)]), .null,
        ]
        #expect(key == TupleKey(expected))
        #expect(key.components.count == expected.count)
    }

    @Test func descriptionReadsLikeSource() {
        let key = TupleKey("books", 42, 3.5, true, Int?.none, [UInt8]([0x00, 0xAF]), TupleKey("a\"b"))
        #expect(key.description == #"("books", 42, 3.5, true, null, <00af>, ("a\"b"))"#)
    }

    // MARK: Bad input

    @Test func truncatedEncodingsThrow() throws {
        let samples: [[TupleComponent]] = [
            [.string("books"), .int(-70_000), .uint(.max), .double(-2.5), .bool(true), .null],
            [.date(Date(timeIntervalSince1970: 0)), .bytes([1, 0xFF, 2]), .tuple([.string("a"), .tuple([.int(9)])])],
            [.tuple([.tuple([.tuple([])])]), .int(.min), .string("")],
        ]
        for components in samples {
            // A cut between top-level components leaves a shorter valid key; any other cut throws.
            var boundaries: [Int: Int] = [0: 0]
            var length = 0
            for (index, component) in components.enumerated() {
                length += TupleKey([component]).bytes.count
                boundaries[length] = index + 1
            }
            let bytes = TupleKey(components).bytes
            for cut in 0..<bytes.count {
                let prefix = Array(bytes[..<cut])
                if let count = boundaries[cut] {
                    let decoded = try TupleKey(decoding: prefix)
                    #expect(decoded == TupleKey(Array(components.prefix(count))))
                } else {
                    expectCorrupt(prefix)
                }
            }
        }
    }

    @Test func unknownTypeBytesThrow() {
        let known: Set<UInt8> = [0x08, 0x10, 0x11, 0x40, 0x48, 0x50, 0x58, 0x60]
        for byte in UInt8.min...UInt8.max where !known.contains(byte) && !(0x20...0x30).contains(byte) {
            expectCorrupt([byte])
            expectCorrupt([0x08, byte])
            expectCorrupt([0x60, byte, 0x00])
        }
    }

    @Test func badEscapesThrow() throws {
        expectCorrupt([0x50, 0x61, 0x00, 0x01])
        expectCorrupt([0x50, 0x61, 0x00, 0x62, 0x00])
        expectCorrupt([0x58, 0x00, 0xFE, 0x00])
        expectCorrupt([0x58, 0x00, 0x00])
        // Unterminated, including an escape with nothing after it.
        expectCorrupt([0x50, 0x61])
        expectCorrupt([0x58, 0x00, 0xFF])
        // A terminator followed by the end of a nested tuple is fine.
        let nested = try TupleKey(decoding: [0x60, 0x50, 0x00, 0x00])
        #expect(ReferenceOrder.identical(nested.components, [.tuple([.string("")])]))
    }

    @Test func trailingBytesThrow() {
        for valid in [TupleKey(), TupleKey("a", 1), TupleKey(TupleKey(Int?.none))] {
            expectCorrupt(valid.bytes + [0x00])
            expectCorrupt(valid.bytes + [0xFF])
            expectCorrupt(valid.bytes + [0x00, 0x00])
            expectCorrupt(valid.bytes + [0x29])
        }
    }

    @Test func nonCanonicalEncodingsThrow() {
        expectCorrupt([0x29, 0x00])  // positive with a leading zero byte
        expectCorrupt([0x2A, 0x00, 0x05])
        expectCorrupt([0x27, 0xFF])  // negative with a leading 0xFF (a zero magnitude byte)
        expectCorrupt([0x26, 0xFF, 0x00])
        expectCorrupt([0x20, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE])  // Int64.min - 1
        expectCorrupt([0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        expectCorrupt([0x40, 0x00, 0x07, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])  // -NaN
        expectCorrupt([0x40, 0xFF, 0xF0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01])  // a signalling NaN
        expectCorrupt([0x48, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])  // a date at -0.0
        expectCorrupt([0x50, 0xC3, 0x00])  // not UTF-8
        expectCorrupt([0x50, 0xFF, 0x00])
    }

    @Test func nestingIsBounded() throws {
        expectCorrupt([0x60])
        expectCorrupt([0x60, 0x60, 0x00])
        let limit = TupleKeyDecoder.maximumNesting
        let deepest = [UInt8](repeating: 0x60, count: limit) + [UInt8](repeating: 0x00, count: limit)
        #expect(try TupleKey(decoding: deepest).bytes == deepest)
        expectCorrupt([UInt8](repeating: 0x60, count: limit + 1) + [UInt8](repeating: 0x00, count: limit + 1))
        expectCorrupt([UInt8](repeating: 0x60, count: 100_000))
    }

    @Test func anyCollectionOfBytesDecodes() throws {
        let key = TupleKey("books", -3, [UInt8]([0, 0xFF]), TupleKey(2.5))
        let bytes = key.bytes
        #expect(try TupleKey(decoding: bytes.lazy.map { $0 }) == key)  // not contiguous
        let padded = [0xEE] + bytes
        #expect(try TupleKey(decoding: padded[1...]) == key)  // a slice not starting at 0
        #expect(try TupleKey(decoding: EmptyCollection<UInt8>()) == TupleKey())
        #expect(try bytes.withUnsafeBytes { try TupleKey(decoding: $0) } == key)
    }

    // MARK: Helpers

    /// Checks that each key sorts strictly before the next, by bytes, by `<` and by the
    /// reference order.
    private func expectAscending(_ tuples: [[TupleComponent]], sourceLocation: SourceLocation = #_sourceLocation) {
        let keys = tuples.map { TupleKey($0) }
        for (lower, upper) in zip(keys, keys.dropFirst()) {
            #expect(lower.bytes.lexicographicallyPrecedes(upper.bytes), "\(lower) < \(upper)", sourceLocation: sourceLocation)
            #expect(lower < upper && !(upper < lower) && lower != upper, "\(lower) < \(upper)", sourceLocation: sourceLocation)
            #expect(
                ReferenceOrder.compare(lower.components, upper.components) < 0, "\(lower) < \(upper)",
                sourceLocation: sourceLocation
            )
        }
    }

    private func expectCorrupt(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: LarderError.self, "\(bytes)", sourceLocation: sourceLocation) {
            try TupleKey(decoding: bytes)
        }
        #expect(error?.code == .corruptValue, sourceLocation: sourceLocation)
    }

    /// Either `bytes` is rejected as corrupt, or it is the canonical encoding of what it decodes to.
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

/// The value order written out case by case, independently of the encoding, to check it against.
enum ReferenceOrder {
    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    static func compare(_ a: [TupleComponent], _ b: [TupleComponent]) -> Int {
        for (x, y) in zip(a, b) {
            let order = compare(x, y)
            if order != 0 { return order }
        }
        return sign(a.count, b.count)
    }

    static func compare(_ a: TupleComponent, _ b: TupleComponent) -> Int {
        let kinds = sign(kind(a), kind(b))
        if kinds != 0 { return kinds }
        switch (a, b) {
        case (.bool(let x), .bool(let y)):
            return sign(x ? 1 : 0, y ? 1 : 0)
        case (.double(let x), .double(let y)):
            return compareTotally(x, y)
        case (.date(let x), .date(let y)):
            return compareTotally(instant(x), instant(y))
        case (.string(let x), .string(let y)):
            return compareBytes(Array(x.utf8), Array(y.utf8))
        case (.bytes(let x), .bytes(let y)):
            return compareBytes(x, y)
        case (.tuple(let x), .tuple(let y)):
            return compare(x, y)
        case (.descending(let x), .descending(let y)):
            return compare(y, x)
        default:
            if let x = number(a), let y = number(b) { return compareNumbers(x, y) }
            return 0  // both null
        }
    }

    /// The component with its value's canonical representation (what decoding returns).
    static func canonical(_ component: TupleComponent) -> TupleComponent {
        switch component {
        case .uint(let value) where value <= UInt64(Int64.max): .int(Int64(value))
        case .double(let value) where value.isNaN: .double(.nan)
        case .date(let date): .date(Date(timeIntervalSinceReferenceDate: instant(date)))
        case .tuple(let components): .tuple(components.map(canonical))
        case .descending(let inner): .descending(canonical(inner))
        default: component
        }
    }

    /// Whether the two are the same case with the same payload, to the bit.
    static func identical(_ a: [TupleComponent], _ b: [TupleComponent]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy(identical)
    }

    static func identical(_ a: TupleComponent, _ b: TupleComponent) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.int(let x), .int(let y)): x == y
        case (.uint(let x), .uint(let y)): x == y
        case (.double(let x), .double(let y)): x.bitPattern == y.bitPattern
        case (.date(let x), .date(let y)):
            x.timeIntervalSinceReferenceDate.bitPattern == y.timeIntervalSinceReferenceDate.bitPattern
        case (.string(let x), .string(let y)): x.utf8.elementsEqual(y.utf8)
        case (.bytes(let x), .bytes(let y)): x == y
        case (.tuple(let x), .tuple(let y)): identical(x, y)
        case (.descending(let x), .descending(let y)): identical(x, y)
        default: false
        }
    }

    private enum Number {
        case negative(Int64)
        case natural(UInt64)
    }

    private static func kind(_ component: TupleComponent) -> Int {
        switch component {
        case .null: 0
        case .bool: 1
        case .int, .uint: 2
        case .double: 3
        case .date: 4
        case .string: 5
        case .bytes: 6
        case .tuple: 7
        case .descending: 8
        }
    }

    private static func number(_ component: TupleComponent) -> Number? {
        switch component {
        case .int(let value) where value < 0: .negative(value)
        case .int(let value): .natural(UInt64(value))
        case .uint(let value): .natural(value)
        default: nil
        }
    }

    private static func compareNumbers(_ a: Number, _ b: Number) -> Int {
        switch (a, b) {
        case (.negative(let x), .negative(let y)): sign(x, y)
        case (.natural(let x), .natural(let y)): sign(x, y)
        case (.negative, .natural): -1
        case (.natural, .negative): 1
        }
    }

    /// A date's interval with the two zeros made one and every NaN made `Double.nan`.
    private static func instant(_ date: Date) -> Double {
        let interval = date.timeIntervalSinceReferenceDate
        if interval.isNaN { return .nan }
        return interval == 0 ? 0 : interval
    }

    /// IEEE 754 total order, with every NaN taken as `Double.nan`.
    private static func compareTotally(_ a: Double, _ b: Double) -> Int {
        let x = a.isNaN ? Double.nan : a
        let y = b.isNaN ? Double.nan : b
        if x.bitPattern == y.bitPattern { return 0 }
        return x.isTotallyOrdered(belowOrEqualTo: y) ? -1 : 1
    }

    private static func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y {
            return x < y ? -1 : 1
        }
        return sign(a.count, b.count)
    }

    private static func sign<T: Comparable>(_ a: T, _ b: T) -> Int {
        a < b ? -1 : (a == b ? 0 : 1)
    }
}

/// Random tuples drawn mostly from the values where encodings go wrong: boundaries, signed zeros,
/// NaNs, shared prefixes, embedded NULs and strings whose UTF-8 order differs from Swift's.
enum TupleSamples {
    static let integers: [Int64] = [
        .min, .min + 1, -(1 << 32), -65_536, -65_535, -257, -256, -255, -2, -1,
        0, 1, 2, 255, 256, 65_535, 65_536, 1 << 40, .max - 1, .max,
    ]
    static let naturals: [UInt64] = [0, 1, 7, 255, 256, UInt64(Int64.max), UInt64(Int64.max) + 1, .max - 1, .max]
    static let doubles: [Double] = [
        -.infinity, -.greatestFiniteMagnitude, -1e300, -1.5, -1, -.leastNormalMagnitude, -.leastNonzeroMagnitude,
        -0.0, 0.0, .leastNonzeroMagnitude, .leastNormalMagnitude, 0.5, 1, 1.5, 7, 1e300, .greatestFiniteMagnitude,
        .infinity, .nan, -.nan, .signalingNaN, Double(bitPattern: 0xFFF8_0000_0000_0123),
    ]
    /// Seconds since 2001: far past, before and at 1970, around 2001, and after.
    static let intervals: [Double] = [
        -63_114_076_800, -1e10, -978_307_201, -978_307_200, -978_307_199.5, -1, -0.0, 0, 1e-9, 1, 1e9,
        63_113_904_000, .infinity, -.infinity, .nan,
    ]
    /// Pieces that share prefixes once concatenated; `"\u{E9}"` sorts after `"e\u{301}"` by bytes
    /// though Swift calls them equal.
    static let stringPieces: [String] = [
        "", "a", "b", "ab", "\u{0}", "\u{0}\u{0}", "e", "\u{301}", "\u{E9}", "e\u{301}", "z", "\u{7F}", "\u{80}",
        "\u{FFFF}", "\u{10000}", "\u{10FFFF}", "日本", "\u{1F600}",
    ]
    static let bytePieces: [[UInt8]] = [[], [0], [0, 0], [0xFF], [0xFF, 0xFF], [0, 0xFF], [0xFF, 0], [1], [0xFE]]

    static func tuple(using rng: inout some RandomNumberGenerator) -> TupleKey {
        TupleKey(components(depth: 0, using: &rng))
    }

    /// Two tuples, often related (equal, one a prefix of the other, or differing in one place)
    /// so that comparisons reach past the first component.
    static func pair(using rng: inout some RandomNumberGenerator) -> (TupleKey, TupleKey) {
        let a = components(depth: 0, using: &rng)
        var b = a
        switch Int.random(in: 0..<5, using: &rng) {
        case 0:
            b = components(depth: 0, using: &rng)
        case 1:
            b = Array(a.prefix(Int.random(in: 0...a.count, using: &rng)))
        case 2:
            b += components(depth: 0, using: &rng)
        case 3:
            b = a.map(ReferenceOrder.canonical)
        default:
            if !a.isEmpty {
                b[Int.random(in: a.indices, using: &rng)] = component(depth: 0, using: &rng)
            }
        }
        return Bool.random(using: &rng) ? (TupleKey(a), TupleKey(b)) : (TupleKey(b), TupleKey(a))
    }

    /// Bytes that are sometimes valid: a valid encoding with one byte changed, inserted or
    /// removed, or a run of bytes drawn mostly from the type bytes.
    static func noise(using rng: inout some RandomNumberGenerator) -> [UInt8] {
        let alphabet: [UInt8] = [
            0x00, 0x08, 0x10, 0x11, 0x20, 0x27, 0x28, 0x29, 0x30, 0x40, 0x48, 0x50, 0x58, 0x60, 0xFF, 0x61, 0x7F,
            0x80, 0xC3, 0xA9, 0x01,
        ]
        if Bool.random(using: &rng) {
            return (0..<Int.random(in: 0...16, using: &rng)).map { _ in pick(alphabet, using: &rng) }
        }
        var bytes = tuple(using: &rng).bytes
        guard !bytes.isEmpty else { return bytes }
        let index = Int.random(in: bytes.indices, using: &rng)
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: bytes[index] = pick(alphabet, using: &rng)
        case 1: bytes.insert(pick(alphabet, using: &rng), at: index)
        default: bytes.remove(at: index)
        }
        return bytes
    }

    static func components(depth: Int, using rng: inout some RandomNumberGenerator) -> [TupleComponent] {
        (0..<Int.random(in: 0...5, using: &rng)).map { _ in component(depth: depth, using: &rng) }
    }

    /// One component; tuples nest at most three deep.
    static func component(depth: Int, using rng: inout some RandomNumberGenerator) -> TupleComponent {
        let kinds = depth < 3 ? 9 : 8
        switch Int.random(in: 0..<kinds, using: &rng) {
        case 0:
            return .null
        case 1:
            return .bool(Bool.random(using: &rng))
        case 2:
            if Bool.random(using: &rng) { return .int(pick(integers, using: &rng)) }
            return .int(Int64.random(in: .min ... .max, using: &rng) >> Int64.random(in: 0..<64, using: &rng))
        case 3:
            if Bool.random(using: &rng) { return .uint(pick(naturals, using: &rng)) }
            return .uint(UInt64.random(in: .min ... .max, using: &rng) >> UInt64.random(in: 0..<64, using: &rng))
        case 4:
            if Bool.random(using: &rng) { return .double(pick(doubles, using: &rng)) }
            return .double(Double(bitPattern: UInt64.random(in: .min ... .max, using: &rng)))
        case 5:
            if Bool.random(using: &rng) {
                return .date(Date(timeIntervalSinceReferenceDate: pick(intervals, using: &rng)))
            }
            return .date(Date(timeIntervalSinceReferenceDate: Double.random(in: -1e10...1e10, using: &rng)))
        case 6:
            return .string(string(using: &rng))
        case 7:
            let pieces = (0..<Int.random(in: 0...3, using: &rng)).map { _ in pick(bytePieces, using: &rng) }
            return .bytes(pieces.flatMap { $0 })
        default:
            return .tuple(components(depth: depth + 1, using: &rng))
        }
    }

    /// A string of up to three pieces: empty, NULs, combining marks, astral characters.
    static func string(using rng: inout some RandomNumberGenerator) -> String {
        (0..<Int.random(in: 0...3, using: &rng)).map { _ in pick(stringPieces, using: &rng) }.joined()
    }

    static func pick<T>(_ pool: [T], using rng: inout some RandomNumberGenerator) -> T {
        pool[Int.random(in: pool.indices, using: &rng)]
    }
}
