// swift-tools-version:6.1
// The benchmarks of Larder, in a package of their own so that users of the library never resolve
// package-benchmark or GRDB. Run from this directory:
//
//     swift run -c release larder-bench          # every comparison, side by side, one table
//     swift package benchmark                    # the package-benchmark suites (allocation thresholds)
//
// See ../Documentation/Performance.md.
import PackageDescription

let package = Package(
    name: "LarderBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Larder's trait, though the benchmarks use the `Larder` product alone: a trait is a
        // compilation condition of all of the package's targets, so with the same traits as the
        // tests' build (`swift test --enable-all-traits`) CI's debug build of the benchmarks, in
        // the tests' build directory, reuses the library's build instead of compiling it again.
        .package(name: "Larder", path: "..", traits: ["Extras"]),
        // package-benchmark (the repository is now ordo-one/benchmark). The trait list is spelled out so that only the malloc interposer is built in (the default
        // traits would also pull in an ARC runtime interposer that these suites do not use).
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        // The counter behind package-benchmark's malloc metrics, for larder-alloc-probe.
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The C floor: LMDB called directly, as Debian's liblmdb-dev installs it. (The library's
        // own CLMDB target is not a product, so the floor gets a module map of its own.)
        .systemLibrary(
            name: "CLMDBFloor",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        // The workloads, shared by both runners: fixtures that build the stores and the measured
        // loops for Larder and for each reference.
        .target(
            name: "LarderBenchKit",
            dependencies: [
                "CLMDBFloor",
                .product(name: "Larder", package: "Larder"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The quick comparison: every pair interleaved in one process, one table, targets checked.
        .executableTarget(
            name: "larder-bench",
            dependencies: [
                "LarderBenchKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Full-text search beside SQLite FTS5 (issue 20): build, insert, update, queries, size.
        .executableTarget(
            name: "larder-fts-bench",
            dependencies: ["LarderBenchKit", .product(name: "Larder", package: "Larder")]
        ),
        // The spatial index beside SQLite's R*Tree module (issue 33): inserts, rectangle queries.
        .executableTarget(
            name: "larder-spatial-bench",
            dependencies: ["LarderBenchKit", .product(name: "Larder", package: "Larder"), .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // Counts the allocations of raw reads under package-benchmark's malloc interposer (linked
        // here only, so that larder-bench's timings run on the plain allocator).
        // One synchronous process of checksummed or plain reads or writes, for callgrind's
        // instruction counts (valgrind does not run larder-bench's async harness).
        .executableTarget(
            name: "larder-checksum-probe",
            dependencies: ["LarderBenchKit"]
        ),
        // Decodes or encodes the benchmark's `Item` N times through the Codable archiver, for
        // callgrind's instruction counts and the interposer's allocation counts per operation.
        .executableTarget(
            name: "larder-coder-probe",
            dependencies: [
                "LarderBenchKit",
                .product(name: "Larder", package: "Larder"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ]
        ),
        .executableTarget(
            name: "larder-alloc-probe",
            dependencies: [
                "LarderBenchKit",
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ]
        ),
        // package-benchmark suites: `swift package benchmark`.
        .executableTarget(
            name: "RawAccess",
            dependencies: [
                "LarderBenchKit",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/RawAccess",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Records",
            dependencies: [
                "LarderBenchKit",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/Records",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
