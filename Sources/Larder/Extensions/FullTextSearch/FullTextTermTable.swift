/// The slots of the terms a write transaction's new documents use, by term: an open-addressing
/// table of (hash, slot) pairs, one 8-byte word each, probed linearly. The terms themselves are
/// kept by the caller, in slot order; a lookup compares one only when the hashes agree.
///
/// Built for the one lookup each token costs: an FNV-1a hash of the term's UTF-8 bytes (no
/// per-process seed is needed: the table lives for one transaction and holds the terms of the
/// store's own documents), and one cache line per probe.
struct FullTextTermTable {
    /// Each word: the hash's high 32 bits, then the slot + 1 (0: empty).
    private var words: [UInt64] = [UInt64](repeating: 0, count: 1024)
    private(set) var count = 0

    /// The FNV-1a hash of `term`'s UTF-8 bytes.
    @inline(__always)
    static func hash(_ term: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in term.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }

    /// The slot of `term` (hashed `hash`), `nil` when it has none; `isTerm(slot)` says whether
    /// a slot's term is `term`.
    @inline(__always)
    func slot(hash: UInt64, isTerm: (Int) -> Bool) -> Int? {
        let mask = words.count - 1
        let tag = hash >> 32
        var index = Self.bucket(ofTag: tag) & mask
        while true {
            let word = words[index]
            if word == 0 { return nil }
            if word >> 32 == tag {
                let slot = Int(word & 0xFFFF_FFFF) - 1
                if isTerm(slot) { return slot }
            }
            index = (index + 1) & mask
        }
    }

    /// Records `slot` for a term hashed `hash` (which has no slot yet).
    mutating func insert(hash: UInt64, slot: Int) {
        if (count + 1) * 4 > words.count * 3 { grow() }
        let mask = words.count - 1
        var index = Self.bucket(ofTag: hash >> 32) & mask
        while words[index] != 0 { index = (index + 1) & mask }
        words[index] = (hash >> 32) << 32 | UInt64(slot + 1)
        count += 1
    }

    /// Doubles the table. A word's bucket comes from the hash bits it keeps, so the words move
    /// without their terms being hashed again.
    private mutating func grow() {
        let old = words
        words = [UInt64](repeating: 0, count: old.count * 2)
        let mask = words.count - 1
        for word in old where word != 0 {
            var index = Self.bucket(ofTag: word >> 32) & mask
            while words[index] != 0 { index = (index + 1) & mask }
            words[index] = word
        }
    }

    /// The bucket of a hash whose high 32 bits are `tag`, before masking: the tag spread by a
    /// multiplication (Fibonacci hashing), so that neighbouring tags land apart.
    @inline(__always)
    private static func bucket(ofTag tag: UInt64) -> Int {
        Int(truncatingIfNeeded: (tag &* 0x9E37_79B9_7F4A_7C15) >> 32)
    }
}
