import Foundation
import Testing

/// The layering of Documentation/Architecture.md, checked on the sources: only the LMDB layer
/// sees LMDB, and it names no type of the layers above it.
@Suite("Architecture")
struct ArchitectureTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Larder")

    /// The Swift files under `Sources/Larder/<folder>` (every folder when `nil`), with their code
    /// lines (comments dropped).
    static func codeLines(inFolder folder: String?, excluding excluded: String? = nil) throws -> [(file: String, line: String)] {
        let root = folder.map { sources.appendingPathComponent($0) } ?? sources
        let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
        var lines: [(String, String)] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            if let excluded, relative.hasPrefix(excluded + "/") { continue }
            let text = try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") { continue }
                lines.append((relative, code))
            }
        }
        return lines
    }

    @Test func onlyTheLMDBLayerSeesLMDB() throws {
        let leaks = try Self.codeLines(inFolder: nil, excluding: "LMDB").filter { _, line in
            line.contains("import CLMDB") || line.contains("MDB_") || line.contains("mdb_")
        }
        #expect(leaks.isEmpty, "\(leaks.map { "\($0.file): \($0.line)" })")
        let imports = try Self.codeLines(inFolder: "LMDB").filter { $0.line.hasSuffix("import CLMDB") }
        #expect(!imports.isEmpty && imports.allSatisfy { $0.line == "internal import CLMDB" }, "\(imports)")
    }

    @Test func theLMDBLayerNamesNoTypeAboveIt() throws {
        let above = ["StoreShared", "ChangeHub", "ExtensionRegistry", "ChangeLog", "UndoStack", "Database.Configuration",
                     "ReadWriteTransaction", "Connection", "Relationships", "AutoView", "IdentityMap"]
        let uses = try Self.codeLines(inFolder: "LMDB").filter { _, line in
            above.contains { name in line.range(of: "\\b" + name + "\\b", options: .regularExpression) != nil && !line.hasPrefix("\"") }
        }
        #expect(uses.isEmpty, "\(uses.map { "\($0.file): \($0.line)" })")
    }

    /// The write path's participants keep the features out of the Store: its files name no type
    /// of undo, relationships, views or the identity map, nor any participant.
    @Test func theStoreNamesNoFeature() throws {
        let feature = "\\b(Undo\\w*|Relationships\\w*|AutoView|View(Runtime|Handle|Reader|Changes)|List(Runtime|Keeping)|IdentityMap\\w*|ExtensionMaintenance|CacheWriteThrough|ChangeLogWriter)\\b"
        let uses = try Self.codeLines(inFolder: "Store").filter { _, line in
            line.range(of: feature, options: .regularExpression) != nil
        }
        #expect(uses.isEmpty, "\(uses.map { "\($0.file): \($0.line)" })")
    }
}

