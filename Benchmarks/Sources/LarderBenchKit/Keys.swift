/// A small, fast, seedable generator, so that every run reads the same keys in the same order.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Benchmark keys: 16 ASCII bytes each, as Larder `String`s and as the C floor's byte arrays.
public enum Keys {
    /// Key number `n`: "k" and 15 digits.
    public static func key(_ n: Int) -> String {
        let digits = String(n)
        return "k" + String(repeating: "0", count: max(0, 15 - digits.count)) + digits
    }

    /// Keys 0..<count in sorted order.
    public static func sorted(_ count: Int) -> [String] { (0..<count).map(key) }

    /// Keys 0..<count, shuffled the same way on every run for a given seed.
    public static func shuffled(_ count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        return sorted(count).shuffled(using: &random)
    }

    /// `count` keys drawn at random (with repeats) from 0..<range.
    public static func random(_ count: Int, in range: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in key(Int(random.next() % UInt64(range))) }
    }

    /// The UTF-8 bytes of each key, for the C floor.
    public static func bytes(_ keys: [String]) -> [[UInt8]] { keys.map { Array($0.utf8) } }

    /// `size` bytes of deterministic filler, different for each `seed`.
    public static func value(size: Int, seed: Int) -> [UInt8] {
        var random = SplitMix64(seed: UInt64(truncatingIfNeeded: seed) &+ 0x5EED)
        return (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }
}
