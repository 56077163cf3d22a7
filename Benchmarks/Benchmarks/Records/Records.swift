// package-benchmark suite: Codable items (workloads 3, 4, 6 and 8) through Larder, with
// allocation thresholds. The comparisons with JSON and GRDB are larder-bench's job; this suite
// tracks Larder's own costs from run to run.
// Run: `swift package benchmark --target Records`.
import Benchmark
import Foundation
import Larder
import LarderBenchKit

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 2,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 300)

    // Workload 3: 1,000 random reads of items, cache off, one read transaction (per iteration).
    // Allocations: per read, the decoded item's three strings that do not fit inline (id, name,
    // and the category when longer than 15 bytes) and the decoder's state. Checked by the
    // threshold below, per 1,000 reads plus the transaction.
    Benchmark(
        "Codable read, uncached",
        configuration: .init(thresholds: [.mallocCountTotal: .init(absolute: [.p90: 0])]),
        closure: { benchmark, workload in blackHole(try workload.larderUncached()) },
        setup: { try RecordReadWorkload(items: 20_000, reads: 1_000, hot: 1_000) })

    // Workload 4: 1,000 reads of hot items with the cache warm.
    // Allocations: none per read beyond the copy of the cached value's strings (retained, not
    // copied): the threshold below.
    Benchmark(
        "Codable read, cache warm",
        configuration: .init(thresholds: [.mallocCountTotal: .init(absolute: [.p90: 0])]),
        closure: { benchmark, workload in blackHole(try workload.larderCached()) },
        setup: { try RecordReadWorkload(items: 20_000, reads: 1_000, hot: 1_000) })

    // Workload 6: 1,000 MessagePack round trips (encode, then decode) of an item.
    Benchmark(
        "MessagePack encode + decode",
        configuration: .init(thresholds: [.mallocCountTotal: .init(absolute: [.p90: 0])]),
        closure: { benchmark, workload in blackHole(try workload.messagePack()) },
        setup: { ArchiverWorkload(count: 1_000) })

    // Workload 8: a scan of 1,000 items, decoding each into an array.
    Benchmark(
        "scan 1,000 items",
        configuration: .init(thresholds: [.mallocCountTotal: .init(absolute: [.p90: 0])]),
        closure: { benchmark, workload in blackHole(try workload.larderScan()) },
        setup: { try RecordReadWorkload(items: 1_000, reads: 1, hot: 1) })
}
