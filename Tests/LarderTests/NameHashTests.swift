import Foundation
import Testing
@testable import Larder

/// `NameHash`, what the tables keyed by names hash with: equal bytes hash alike however the
/// string is stored, names of one length never collide, and every bit of the hash is used.
@Suite("Name hash")
struct NameHashTests {
    @Test func theSameBytesHashAlikeWhateverTheStringsStorage() {
        let long = String(repeating: "préférence-", count: 5)
        let variants: [String] = [
            long,
            String(decoding: Array(long.utf8), as: UTF8.self),
            String(long[...]),
            String(Substring(long)),
            (long + "x").dropLast().description,
        ]
        for seed in [0, 1, -7, Int.max] {
            let hashes = Set(variants.map { NameHash.hash($0, seed: seed) })
            #expect(hashes.count == 1)
            #expect(Set(variants.map { NameHash.hash("c", $0, seed: seed) }).count == 1)
        }
        // Small strings (up to 15 bytes inline) and large ones of the same bytes.
        for length in 0...24 {
            let bytes = (0..<length).map { UInt8(97 + $0 % 26) }
            let native = String(decoding: bytes, as: UTF8.self)
            let copied = String(decoding: Array(native.utf8), as: UTF8.self)
            #expect(NameHash.hash(native, seed: 3) == NameHash.hash(copied, seed: 3))
        }
    }

    @Test func namesThatSwiftCallsEqualButDifferInBytesHashApart() {
        #expect(NameHash.hash("caf\u{E9}", seed: 0) != NameHash.hash("cafe\u{301}", seed: 0))
        let composed = YapDB.Index(collection: "caf\u{E9}", key: "k")
        let decomposed = YapDB.Index(collection: "cafe\u{301}", key: "k")
        let table: [YapDB.Index: Int] = [composed: 1, decomposed: 2]
        #expect(table.count == 2 && table[composed] == 1 && table[decomposed] == 2)
        let names: Set<ExactString> = [ExactString("caf\u{E9}"), ExactString("cafe\u{301}")]
        #expect(names.count == 2)
    }

    /// Each step of the hash is a bijection of its state for a fixed length, so names of one
    /// length never share a hash: checked on every one-byte change (ASCII, so the length stays)
    /// of names of each length up to 40, and on random names.
    @Test func namesOfOneLengthNeverCollide() {
        for length in 1...40 {
            let base = (0..<length).map { UInt8(33 + $0 % 90) }
            var hashes: Set<Int> = [NameHash.hash(String(decoding: base, as: UTF8.self), seed: 0)]
            var count = 1
            for position in 0..<length {
                for value in [UInt8(0), 1, 0x20, 0x41, 0x7E, 0x7F] where value != base[position] {
                    var bytes = base
                    bytes[position] = value
                    hashes.insert(NameHash.hash(String(decoding: bytes, as: UTF8.self), seed: 0))
                    count += 1
                }
            }
            #expect(hashes.count == count, "length \(length)")
        }
        var generator = SystemRandomNumberGenerator()
        var seen = [Int: String]()
        for _ in 0..<50_000 {
            let name = String((0..<12).map { _ in Character(Unicode.Scalar(UInt8.random(in: 97...122, using: &generator))) })
            let hash = NameHash.hash("items", name, seed: 0)
            if let other = seen[hash] { #expect(other == name, "\(other) and \(name) share a hash") }
            seen[hash] = name
        }
    }

    @Test func everyBitOfTheHashIsSpread() {
        let keys = (0..<65_536).map { "k\($0)" }
        let hashes = keys.map { NameHash.hash("items", $0, seed: 0) }
        // 4,096 buckets by the low bits and by the high bits: 16 per bucket on average; a
        // uniform hash puts no more than about 40 in any (the Poisson tail at 1e-9 is ~45).
        for shift in [0, 20, 52] {
            var buckets = [Int](repeating: 0, count: 4096)
            for hash in hashes { buckets[(hash >> shift) & 4095] += 1 }
            #expect(buckets.max()! < 48, "bits \(shift)…\(shift + 11): \(buckets.max()!)")
            #expect(buckets.min()! > 0, "bits \(shift)…\(shift + 11): an empty bucket")
        }
        // Each bit of the hash is set for about half of the keys.
        for bit in 0..<64 {
            let set = hashes.reduce(0) { $0 + (($1 >> bit) & 1) }
            #expect(abs(set - 32_768) < 1_500, "bit \(bit): \(set) of 65,536")
        }
    }
}
