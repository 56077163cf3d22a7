// swift-tools-version:6.2
import CompilerPluginSupport
import PackageDescription

// The optional products' packages come with the trait `Extras`, off by default: a package that
// depends on `Larder` (or `LarderMessagePack`) resolves no other package. Enable it to use the
// other products (`.package(url: …, from: "0.2.0", traits: ["Extras"])`); this package's own
// builds and tests do (`--enable-all-traits`, as the README's commands say). One trait and not
// one per product: see Documentation/Architecture.md, "Dependencies".
let package = Package(
    name: "Larder",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Larder", targets: ["Larder"]),
        // The MessagePack format on its own (reader, writer, Codable encoder and decoder, a
        // dynamic value tree), for tools that read Larder's values without opening a store.
        .library(name: "LarderMessagePack", targets: ["LarderMessagePack"]),
        // `@Archived`: generated archivers (a Swift macro). A product of its own so that the
        // `Larder` library depends on nothing but the toolchain and liblmdb; only a user who
        // imports `LarderMacros` builds swift-syntax.
        .library(name: "LarderMacros", targets: ["LarderMacros"]),
        .executable(name: "larder", targets: ["LarderTool"]),
        // Adapters for servers: Larder's events to swift-log and swift-metrics, and a
        // swift-service-lifecycle `Service` that closes the store on graceful shutdown. A product
        // of its own so that the `Larder` library keeps depending on nothing.
        .library(name: "LarderAdapters", targets: ["LarderAdapters"]),
        // Embedded replicas on a PostgreSQL primary (postgres-nio): scale-out. A product of its
        // own so that the `Larder` library keeps depending on nothing but liblmdb.
        .library(name: "LarderPostgres", targets: ["LarderPostgres"]),
    ],
    traits: [
        .trait(
            name: "Extras",
            description: "The optional products and their packages: LarderMacros (swift-syntax), LarderAdapters (swift-log, swift-metrics, swift-service-lifecycle), LarderPostgres (postgres-nio) and the larder tool (swift-argument-parser)"),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Tests only: property-based tests of the ordered tuple key encoding.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // Documentation only: `swift package generate-documentation` (a command plugin; nothing
        // of it is linked into any target).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // LarderMacros only: the compiler plugin behind `@Archived` (603 is Swift 6.3's).
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.0"),
        // LarderAdapters only: logging, metrics and service lifecycle for server programs.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // LarderPostgres only: the PostgreSQL client of the scale-out mode.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // The C library, from the system: Debian's liblmdb-dev (`apt-get install liblmdb-dev`).
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        // Line editing, history and completion for `larder shell`, from the system: Debian's
        // libedit-dev (`apt-get install libedit-dev`). The tool only, behind the trait `Extras`.
        .systemLibrary(
            name: "CLibEdit",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"]), .brew(["libedit"])]
        ),
        // Layer 0: the MessagePack format, on the toolchain alone. `Larder` re-exports it.
        .target(
            name: "LarderMessagePack"
        ),
        .target(
            name: "Larder",
            dependencies: ["CLMDB", "LarderMessagePack"]
        ),
        // What `@Archived` expands to: a library, so that the tests can expand it without
        // depending on the macro target (a test target that does is built, with all it links,
        // for the host too: every library of the package was compiled twice by `swift test`).
        .target(
            name: "LarderMacrosExpansion",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax", condition: .when(traits: ["Extras"])),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax", condition: .when(traits: ["Extras"])),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax", condition: .when(traits: ["Extras"])),
                .product(name: "SwiftDiagnostics", package: "swift-syntax", condition: .when(traits: ["Extras"])),
            ]
        ),
        // The compiler plugin that expands `@Archived` (runs in the compiler, never linked).
        .macro(
            name: "LarderMacrosPlugin",
            dependencies: [
                "LarderMacrosExpansion",
                .product(name: "SwiftSyntax", package: "swift-syntax", condition: .when(traits: ["Extras"])),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax", condition: .when(traits: ["Extras"])),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax", condition: .when(traits: ["Extras"])),
            ]
        ),
        // The macro's declaration, which user code imports.
        .target(
            name: "LarderMacros",
            dependencies: ["Larder", "LarderMacrosPlugin"]
        ),
        // Larder's events to swift-log and swift-metrics, and a ServiceLifecycle `Service`.
        .target(
            name: "LarderAdapters",
            dependencies: [
                "Larder",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Extras"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Extras"])),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Extras"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Extras"])),
            ]
        ),
        // Embedded replicas: a Larder store per instance, PostgreSQL as the primary.
        .target(
            name: "LarderPostgres",
            dependencies: [
                "Larder",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Extras"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Extras"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Extras"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["Extras"])),
            ]
        ),
        // Tests and the replica runner only: a private PostgreSQL server (initdb, pg_ctl on
        // 127.0.0.1 and a free port), started by the process that needs it.
        .target(
            name: "PostgresTestServer",
            path: "Tests/PostgresTestServer"
        ),
        // Spawned by the scale-out tests: one replica per process; also the replica benchmarks.
        .executableTarget(
            name: "larder-replica-helper",
            dependencies: [
                "Larder", "LarderPostgres", "PostgresTestServer",
                // The benchmark's baseline: the same write made with PostgresNIO alone.
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Extras"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Extras"])),
            ],
            path: "Tests/ReplicaHelper"
        ),
        // The `larder` command-line tool. Its target is not named `larder`: that would differ from
        // the library's only in case, and the two collide on case-insensitive disks.
        .executableTarget(
            name: "LarderTool",
            dependencies: [
                "Larder",
                "LarderMessagePack",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Extras"])),
                .target(name: "CLibEdit", condition: .when(traits: ["Extras"])),
            ]
        ),
        // libFuzzer targets for the decoders (see Sources/larder-fuzz); a corpus replayer otherwise.
        .executableTarget(
            name: "larder-fuzz",
            dependencies: ["Larder", "LarderMessagePack"],
            path: "Sources/larder-fuzz"
        ),
        // Spawned by the tests to exercise the store from a second process.
        .executableTarget(
            name: "larder-test-helper",
            dependencies: ["Larder"],
            path: "Tests/Helper"
        ),
        .testTarget(
            name: "LarderTests",
            dependencies: [
                "Larder",
                "LarderMessagePack",
                // The guide's samples of `@Archived` (Samples/GeneratedArchiverSamples.swift).
                "LarderMacros",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            // Stores written by earlier versions (`mdb_dump` text), loaded by the format tests.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "LarderAdaptersTests",
            dependencies: [
                "Larder",
                "LarderAdapters",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Extras"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Extras"])),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Extras"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Extras"])),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle", condition: .when(traits: ["Extras"])),
            ]
        ),
        .testTarget(
            name: "LarderPostgresTests",
            dependencies: ["Larder", "LarderPostgres", "PostgresTestServer"]
        ),
        .testTarget(
            name: "LarderMacrosTests",
            dependencies: [
                "Larder",
                "LarderMacros",
                "LarderMacrosExpansion",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax", condition: .when(traits: ["Extras"])),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax", condition: .when(traits: ["Extras"])),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
