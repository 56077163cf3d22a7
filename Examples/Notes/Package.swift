// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "Notes",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Larder", path: "../..", traits: ["Extras"]),
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
                .product(name: "LarderAdapters", package: "Larder"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "NotesKitTests", dependencies: ["NotesKit"]),
    ],
    swiftLanguageModes: [.v6]
)
