#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The hash the store's hash tables keyed by names use (``ExactString``, ``YapDB/Index`` and the
/// connection cache's keys): the names' UTF-8 bytes read eight at a time, each word folded in with
/// a multiply and a shift, then avalanched. About a tenth of the instructions of `Hasher`
/// (SipHash-1-3) for a collection and a key of twenty bytes or so, which `Dictionary` and `Set`
/// spend on every lookup and insert (callgrind: some 340 instructions per cache lookup before).
///
/// Not a defence against chosen keys the way SipHash is: it starts from a seed drawn once per
/// process, and from the table's own seed, so collisions cannot be precomputed, but it makes no
/// cryptographic promise. The tables that use it hold names the program chose or bounded
/// numbers of them (the connection cache keeps at most its limit, a changeset the keys one
/// transaction wrote), and equality is always decided by the bytes.
package enum NameHash {
    /// Drawn once per process (`SystemRandomNumberGenerator`), or 0 when the process asked the
    /// standard library for deterministic hashing (`SWIFT_DETERMINISTIC_HASHING` set), so that a
    /// run can be repeated table order and all.
    private static let processSeed: UInt64 = getenv("SWIFT_DETERMINISTIC_HASHING") == nil ? UInt64.random(in: .min ... .max) : 0

    private static let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// A hash in progress, begun from `seed` (a table's seed; 0 when it has none).
    @inline(__always)
    package static func begin(seed: Int) -> UInt64 {
        processSeed ^ UInt64(bitPattern: Int64(seed))
    }

    /// Folds in the UTF-8 bytes of `string`, then its length (so that a name hashed before
    /// another within one hash ends unambiguously).
    @inline(__always)
    package static func add(_ string: String, to state: inout UInt64) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { add(UnsafeRawBufferPointer($0), to: &state) }
        if done == nil {  // a bridged or foreign string: the same bytes, hashed the same way
            Array(string.utf8).withUnsafeBytes { add($0, to: &state) }
        }
    }

    @inline(__always)
    private static func add(_ bytes: UnsafeRawBufferPointer, to state: inout UInt64) {
        var h = state
        var offset = 0
        let count = bytes.count
        while offset + 8 <= count {
            h = (h ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
            h ^= h >> 29
            offset += 8
        }
        // The last 1–7 bytes as one word, read in at most two overlapping loads (the length,
        // folded in below, tells apart what the overlap could confuse).
        let remaining = count - offset
        var tail: UInt64 = 0
        if remaining > 0 && count >= 8 {
            tail = bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) >> UInt64(8 * (8 - remaining))
        } else if remaining >= 4 {
            tail = UInt64(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                | UInt64(bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)) << 32
        } else if remaining >= 2 {
            tail = UInt64(bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
                | UInt64(bytes.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self)) << 16
        } else if remaining == 1 {
            tail = UInt64(bytes[offset])
        }
        h = (h ^ tail) &* multiplier
        h ^= h >> 29
        h = (h ^ UInt64(count)) &* multiplier
        state = h ^ (h >> 32)
    }

    /// The finished hash: every bit of the state spread over every bit of the result
    /// (SplitMix64's finalizer), so that a table may take any of its bits as the bucket.
    @inline(__always)
    package static func end(_ state: UInt64) -> Int {
        var h = state
        h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(bitPattern: UInt(h ^ (h >> 31)))
    }

    /// The hash of one name.
    @inline(__always)
    package static func hash(_ name: String, seed: Int) -> Int {
        var state = begin(seed: seed)
        add(name, to: &state)
        return end(state)
    }

    /// The hash of a collection and a key.
    @inline(__always)
    package static func hash(_ collection: String, _ key: String, seed: Int) -> Int {
        var state = begin(seed: seed)
        add(collection, to: &state)
        add(key, to: &state)
        return end(state)
    }
}
