// package-benchmark suite: Codable items (workloads 3, 4, 6 and 8) through Larder, with
// allocation thresholds. The comparisons with JSON and GRDB are larder-bench's job; this suite
// tracks Larder's own costs from run to run.
// Run: `swift package benchmark --target Records`. Allocation counts are per batch of 1,000
// operations; the expected counts are committed in `Thresholds/` and the tolerances below say
// how far a run may stray (a few, for the growth steps of arrays that vary with the allocator).
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
    // Allocations: 7 per read, measured (7,001 per batch: the transaction adds 1). Two of them
    // are the item's strings longer than 15 bytes (id, name), which any decoder must allocate;
    // the other 5 are the Codable decoding machinery.
    Benchmark(
        "CodableRead-uncached",
        configuration: .init(thresholds: [.mallocCountTotal: .init(absolute: [.p90: 10])]),
        closure: { benchmark, workload in blackHole(try workload.larderUncached()) },
        setup: { try RecordReadWorkload(items: 20_000, reads: 1_000, hot: 1_000) })

    // Workload 4: 1,000 reads of hot items with the cache warm.
    // Allocations: 0 per read (1 per batch, the transaction): a hit returns the cached value,
    // whose strings are retained, not copied.
    Benchmark(
        "CodableRead-cacheWarm",
        configuration: .init(thresholds: [.mallocCountTotal: .init(absolute: [.p90: 0])]),
        closure: { benchmark, workload in blackHole(try workload.larderCached()) },
        setup: { try RecordReadWorkload(items: 20_000, reads: 1_000, hot: 1_000) })

    // Workload 6: 1,000 MessagePack round trips (encode, then decode) of an item.
    // Allocations: 12 per round trip (encode and decode together), measured: 12,000 per batch.
    Benchmark(
        "MessagePack-encode-decode",
        configuration: .init(thresholds: [.mallocCountTotal: .init(absolute: [.p90: 10])]),
        closure: { benchmark, workload in blackHole(try workload.messagePack()) },
        setup: { ArchiverWorkload(count: 1_000) })

    // Workload 8: a scan of 1,000 items, decoding each into an array.
    // Allocations: 7 per item, measured (7,016 per batch: the transaction and the result
    // array's growth steps add 16).
    Benchmark(
        "Scan-1000-items",
        configuration: .init(thresholds: [.mallocCountTotal: .init(absolute: [.p90: 20])]),
        closure: { benchmark, workload in blackHole(try workload.larderScan()) },
        setup: { try RecordReadWorkload(items: 1_000, reads: 1, hot: 1) })
}
