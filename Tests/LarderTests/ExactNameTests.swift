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
}
