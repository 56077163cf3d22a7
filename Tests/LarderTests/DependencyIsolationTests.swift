import Foundation
import Testing

/// A package that depends on `Larder` (or `LarderMessagePack`) resolves no other package: the
/// optional products' dependencies come with the package trait `Extras`, off by default (see
/// Package.swift and Documentation/Architecture.md, "Dependencies"). Each test writes a
/// throwaway package that depends on this checkout by path, resolves it with `swift package
/// resolve`, and reads what it pinned.
@Suite("Dependencies: the store pulls nothing else")
struct DependencyIsolationTests {
    /// The checkout's root (this file is Tests/LarderTests/DependencyIsolationTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The identities of the packages a package depending on `product` (with `traits` enabled)
    /// resolves, sorted.
    static func resolvedPackages(product: String, traits: [String]? = nil) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("larder-consumer-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("Sources/Consumer"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let traitList = traits.map { ", traits: [" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" } ?? ""
        let manifest = """
            // swift-tools-version:6.2
            import PackageDescription

            let package = Package(
                name: "Consumer",
                dependencies: [.package(name: "Larder", path: "\(root)"\(traitList))],
                targets: [.target(name: "Consumer", dependencies: [.product(name: "\(product)", package: "Larder")])]
            )
            """
        try manifest.write(to: directory.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try "import \(product)\n".write(to: directory.appendingPathComponent("Sources/Consumer/Consumer.swift"), atomically: true, encoding: .utf8)
        let timeout = try #require(ProcessTestSupport.tool("timeout"), "coreutils' timeout is needed for a deadline")
        let swift = try #require(ProcessTestSupport.tool("swift"), "the swift driver is not on PATH")
        // A deadline: resolving must not hang the suite (it fetches nothing when all is well).
        let run = try ProcessTestSupport.run(timeout, ["600", swift, "package", "--package-path", directory.path, "resolve"])
        try #require(run.status == 0, "swift package resolve failed: \(run)")
        let resolved = directory.appendingPathComponent("Package.resolved")
        guard FileManager.default.fileExists(atPath: resolved.path) else { return [] }
        let data = try Data(contentsOf: resolved)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let pins = object?["pins"] as? [[String: Any]] ?? []
        return pins.compactMap { $0["identity"] as? String }.sorted()
    }

    @Test func larderResolvesNothingElse() throws {
        #expect(try Self.resolvedPackages(product: "Larder") == [])
    }

    @Test func messagePackResolvesNothingElse() throws {
        #expect(try Self.resolvedPackages(product: "LarderMessagePack") == [])
    }

    /// The check itself can see packages: an optional product with the trait `Extras` resolves the
    /// optional products' packages.
    @Test func theTraitBringsTheOptionalPackages() throws {
        let packages = try Self.resolvedPackages(product: "LarderAdapters", traits: ["Extras"])
        for expected in ["swift-log", "swift-metrics", "swift-service-lifecycle", "postgres-nio", "swift-syntax", "swift-argument-parser"] {
            #expect(packages.contains(expected), "\(packages)")
        }
    }
}
