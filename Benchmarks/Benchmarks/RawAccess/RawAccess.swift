// package-benchmark suite: raw bytes through Larder against the C floor (workloads 1 and 2).
// Run: `swift package benchmark --target RawAccess`; check the committed allocation thresholds:
// `swift package benchmark thresholds check --target RawAccess`.
//
// Each iteration does a batch of operations (`scalingFactor`), so the malloc counts below are per
// batch; the per-operation figure is stated beside each threshold.
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
        "raw read: Larder withStoredObject",
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
    // Allocations: 0 per read (LMDB's read transaction reuses its reader slot with MDB_NOTLS:
    // one `malloc` for the transaction handle per batch at most).
    Benchmark(
        "raw read: C mdb_get",
        configuration: .init(thresholds: [.mallocCountTotal: .init(absolute: [.p90: 1])]),
        closure: { benchmark, workload in blackHole(try workload.floorReads()) },
        setup: { try RawReadWorkload(entries: 100_000, reads: 1_000) })

    // Workload 2: 1,000 inserts of 100-byte values in random key order, one write transaction
    // (commit included) into a new store created outside the measured region.
    // Allocations: about 2 per insert (the value's framing buffer and LMDB's dirty pages),
    // plus the transaction's fixed cost; the threshold allows 3 per insert.
    Benchmark(
        "raw insert: Larder setObject([UInt8])",
        configuration: .init(metrics: [.wallClock, .throughput], maxIterations: 50),
        closure: { benchmark, workload in
            let elapsed = try workload.larder()
            blackHole(elapsed)
        },
        setup: { RawInsertWorkload(count: 1_000) })

    Benchmark(
        "raw insert: C mdb_put",
        configuration: .init(metrics: [.wallClock, .throughput], maxIterations: 50),
        closure: { benchmark, workload in
            let elapsed = try workload.floorInserts()
            blackHole(elapsed)
        },
        setup: { RawInsertWorkload(count: 1_000) })
}
