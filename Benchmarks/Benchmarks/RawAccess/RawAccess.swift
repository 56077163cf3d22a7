// package-benchmark suite: raw bytes through Larder against the C floor (workloads 1 and 2).
// Run: `swift package benchmark --target RawAccess`; check the committed allocation thresholds:
// `swift package benchmark thresholds check --target RawAccess`.
//
// Each iteration does a batch of 1,000 operations, so the malloc counts are per batch; the
// per-operation figure is stated beside each benchmark. (Names have no spaces: the plugin's
// `thresholds check` looks for `Thresholds/<target>.<name>.p90.json` with the name as it is.) The expected counts are committed in
// `Thresholds/` (p90 of mallocCountTotal); the tolerances below say how far a run may stray.
import Benchmark
import Larder
import LarderBenchKit

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 2,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 500)

    // Workload 1: 1,000 random reads of 100-byte values from 100,000, inside one read
    // transaction (begun outside the measured region).
    // Allocations: 0 per read (`withStoredObject` lends the bytes from the map; the key is
    // framed on the stack).
    Benchmark(
        "RawRead-Larder-withStoredObject",
        configuration: .init(thresholds: [.mallocCountTotal: .init(absolute: [.p90: 0])]),
        closure: { benchmark, workload in
            try workload.db.read { txn in
                benchmark.startMeasurement()
                blackHole(try workload.larder(in: txn))
                benchmark.stopMeasurement()
            }
        },
        setup: { try RawReadWorkload(entries: 100_000, reads: 1_000) })

    // The floor: the same reads through `mdb_get`, read transaction included.
    // Allocations: 0 per read; 1 per batch (LMDB's `mdb_txn_begin` allocates the handle).
    Benchmark(
        "RawRead-C-mdb_get",
        configuration: .init(thresholds: [.mallocCountTotal: .init(absolute: [.p90: 0])]),
        closure: { benchmark, workload in blackHole(try workload.floorReads()) },
        setup: { try RawReadWorkload(entries: 100_000, reads: 1_000) })

    // Workload 2: 1,000 inserts of 100-byte values in random key order, one write transaction
    // (commit included) into a new store. Time only: the iteration also creates the store, so
    // its allocations would not be the inserts' (larder-bench compares the insert times).
    Benchmark(
        "RawInsert-Larder-setObject",
        configuration: .init(metrics: [.wallClock, .throughput], maxIterations: 50),
        closure: { benchmark, workload in
            let elapsed = try workload.larder()
            blackHole(elapsed)
        },
        setup: { RawInsertWorkload(count: 1_000) })

    Benchmark(
        "RawInsert-C-mdb_put",
        configuration: .init(metrics: [.wallClock, .throughput], maxIterations: 50),
        closure: { benchmark, workload in
            let elapsed = try workload.floorInserts()
            blackHole(elapsed)
        },
        setup: { RawInsertWorkload(count: 1_000) })
}
