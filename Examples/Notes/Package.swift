// swift-tools-version:6.2
import PackageDescription

// An app that uses Larder: its model and store in a library (NotesKit), a command (notes) and
// tests. Copy it and replace the `path:` with Larder's URL and version.
let package = Package(
    name: "Notes",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The trait `Extras` brings the optional products used here: LarderMacros (@Archived)
        // and LarderAdapters (logs and metrics).
        .package(name: "Larder", path: "../..", traits: ["Extras"]),
        // The command makes its own Logger for the adapters.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "NotesKit",
            dependencies: [
                .product(name: "Larder", package: "Larder"),
                .product(name: "LarderMacros", package: "Larder"),
            ]
        ),
        .executableTarget(
            name: "notes",
            dependencies: [
                "NotesKit",
                .product(name: "Larder", package: "Larder"),
                .product(name: "LarderAdapters", package: "Larder"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "NotesKitTests",
            dependencies: ["NotesKit", .product(name: "Larder", package: "Larder")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
