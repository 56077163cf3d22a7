import Foundation
import Testing
import Larder

/// The library's version is written once (`LarderVersion.string`); the changelog's top section
/// must name the same one, so that a release cannot ship a version the changelog does not know.
@Suite("Version")
struct VersionTests {
    @Test func theChangelogsTopSectionIsThisVersion() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let top = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") })
        let version = LarderVersion.string
        if version.hasSuffix("-dev") {
            // "0.2.0-dev" goes with "## Unreleased (0.2)".
            let next = version.dropLast("-dev".count).split(separator: ".").prefix(2).joined(separator: ".")
            #expect(top == "## Unreleased (\(next))")
        } else {
            #expect(top.hasPrefix("## \(version)"))
        }
        #expect(version.split(separator: "-").first!.split(separator: ".").count == 3)
    }
}
