import LarderBenchKit

/// One side of a comparison: a run of `operations` operations that times itself (setup that
/// must not count, such as creating a fresh store, stays outside the returned duration).
struct Side {
    let operations: Int
    let run: () async throws -> Duration

    /// A side whose whole body is timed; `body` returns a checksum so that nothing is optimized away.
    static func timing(_ operations: Int, _ body: @escaping () throws -> Int) -> Side {
        Side(operations: operations) {
            var checksum = 0
            let elapsed = try timed { checksum = try body() }
            consume(checksum)
            return elapsed
        }
    }
}

/// Seconds per operation: the median of each side over the rounds.
struct Measurement {
    var larder: Double
    var reference: Double
}

/// Runs the two sides interleaved: one warm-up run each, then `rounds` rounds that alternate
/// which side goes first (A B, B A, …), so that drift of the machine (page cache, frequency,
/// the other load on it) falls on both sides alike. Returns each side's median time per operation.
func interleave(larder: Side, reference: Side, rounds: Int) async throws -> Measurement {
    _ = try await larder.run()
    _ = try await reference.run()
    var larderSamples: [Double] = []
    var referenceSamples: [Double] = []
    for round in 0..<rounds {
        if round.isMultiple(of: 2) {
            larderSamples.append(try await larder.run().seconds / Double(larder.operations))
            referenceSamples.append(try await reference.run().seconds / Double(reference.operations))
        } else {
            referenceSamples.append(try await reference.run().seconds / Double(reference.operations))
            larderSamples.append(try await larder.run().seconds / Double(larder.operations))
        }
    }
    return Measurement(larder: median(larderSamples), reference: median(referenceSamples))
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
