import Foundation
import Testing

/// The layering of Documentation/Architecture.md, checked on the sources: only the LMDB layer
/// sees LMDB, and it names no type of the layers above it; the MessagePack format lives in
/// `LarderMessagePack` alone, which depends on the toolchain only.
@Suite("Architecture")
struct ArchitectureTests {
    static let allSources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")
    static let sources = allSources.appendingPathComponent("Larder")

    /// The Swift files under `Sources/Larder/<folder>` (every folder when `nil`), with their code
    /// lines (comments dropped).
    static func codeLines(inFolder folder: String?, excluding excluded: String? = nil, under base: URL = sources) throws -> [(file: String, line: String)] {
        let root = folder.map { base.appendingPathComponent($0) } ?? base
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

    /// One MessagePack reader and writer for everybody: no file outside `Sources/LarderMessagePack`
    /// declares a type whose name starts with `MessagePack`, except the archivers of
    /// `Larder/Archiving` (`MessagePackArchiver`), which put the format into a store.
    @Test func onlyLarderMessagePackDefinesMessagePackTypes() throws {
        let declaration = #"\b(struct|enum|class|actor|protocol|typealias)\s+MessagePack\w*"#
        let declared = try Self.codeLines(inFolder: nil, excluding: "LarderMessagePack", under: Self.allSources).filter { file, line in
            guard let range = line.range(of: declaration, options: .regularExpression) else { return false }
            let isArchiver = file.hasPrefix("Larder/Archiving/") && line[range].hasSuffix("Archiver")
            return !isArchiver
        }
        #expect(declared.isEmpty, "\(declared.map { "\($0.file): \($0.line)" })")
        let own = try Self.codeLines(inFolder: "LarderMessagePack", under: Self.allSources).filter { _, line in
            line.range(of: #"\bstruct\s+MessagePackReader\b"#, options: .regularExpression) != nil
        }
        #expect(own.count == 1, "the shared reader is not where Architecture.md says: \(own)")
    }

    /// `LarderMessagePack` is layer 0: it imports the toolchain's modules and nothing of Larder's.
    @Test func larderMessagePackImportsOnlyTheToolchain() throws {
        let toolchain: Set<String> = ["Swift", "Foundation", "FoundationEssentials", "Synchronization", "Glibc", "Musl", "Darwin"]
        let lines = try Self.codeLines(inFolder: "LarderMessagePack", under: Self.allSources)
        #expect(lines.count > 100, "found only \(lines.count) lines of LarderMessagePack")
        let imports = lines.compactMap { file, line -> (String, String)? in
            guard let range = line.range(of: #"^(@\w+\s+)*((public|package|internal|private|fileprivate)\s+)?import\s+(\w+\s+)?"#,
                                         options: .regularExpression) else { return nil }
            return (file, String(line[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
        }
        #expect(!imports.isEmpty)
        let foreign = imports.filter { !toolchain.contains($0.1) }
        #expect(foreign.isEmpty, "\(foreign.map { "\($0.0): import \($0.1)" })")
    }

    /// The write path's participants keep the features out of the Store: its files name no type
    /// of undo, relationships, views, extensions, replication or the identity map. (The store's
    /// own participants, the change log's and the cache's, live in `Store/WritePath/`.)
    @Test func theStoreNamesNoFeature() throws {
        let feature = "\\b(Undo\\w*|Relationships\\w*|AutoView|View(Runtime|Handle|Reader|Changes)|List(Runtime|Keeping)|IdentityMap\\w*|Extension(Maintenance|Registry|Runtime)|Replica\\w*|ReadSet\\w*|MigrationStep|StructureReport)\\b"
        let uses = try Self.codeLines(inFolder: "Store").filter { _, line in
            line.range(of: feature, options: .regularExpression) != nil
        }
        #expect(uses.isEmpty, "\(uses.map { "\($0.file): \($0.line)" })")
    }
}

extension ArchitectureTests {
    /// Architecture.md names every target folder (`Sources/<target>/`), every folder of the
    /// library (`` `<folder>/` ``) and every kind's folder under `Extensions/`: a folder added
    /// without its place in the map fails here.
    @Test func theArchitecturePageNamesEveryFolder() throws {
        let page = try String(contentsOf: Self.allSources.deletingLastPathComponent().appendingPathComponent("Documentation/Architecture.md"), encoding: .utf8)
        func folders(_ url: URL) throws -> [String] {
            try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: [.isDirectoryKey])
                .filter { try $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory == true }
                .map(\.lastPathComponent).sorted()
        }
        let targets = try folders(Self.allSources)
        #expect(targets.count >= 8 && targets.contains("Larder"))
        for target in targets {
            #expect(page.contains("Sources/\(target)/"), "Architecture.md does not name the target folder Sources/\(target)/")
        }
        let libraryFolders = try folders(Self.sources).filter { !$0.hasSuffix(".docc") }
        let kindFolders = try folders(Self.sources.appendingPathComponent("Extensions"))
        #expect(libraryFolders.count >= 10 && kindFolders.count >= 5)
        for folder in libraryFolders + kindFolders {
            #expect(page.contains("`\(folder)/"), "Architecture.md does not name the folder \(folder)/")
        }
    }

    /// Files that may declare more than one top-level public, package or internal type, each with
    /// the reason. Keep it short: a newcomer finds a type by the file named after it.
    static let filesWithSeveralTypes: [String: String] = [:]

    /// One type per file: no source file of the library declares two top-level types (struct,
    /// class, enum, protocol or actor) that other files can see, unless the allowlist above names
    /// it. Private helper types used by their file only, nested types and typealiases (the
    /// deprecated old names sit beside their type) do not count.
    @Test func oneTypePerFile() throws {
        let declaration = try Regex(
            #"^(?:@[A-Za-z]+(?:\([^)]*\))? +)*((?:(?:public|package|internal|fileprivate|private|open|final|indirect|nonisolated) +)*)(?:struct|class|enum|protocol|actor) +([A-Za-z_][A-Za-z0-9_]*)"#)
        let enumerator = try #require(FileManager.default.enumerator(atPath: Self.sources.path))
        var crowded: [String: [String]] = [:]
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: Self.sources.appendingPathComponent(relative), encoding: .utf8)
            var types: [String] = []
            for line in text.split(separator: "\n") {
                guard let match = try declaration.firstMatch(in: String(line)) else { continue }
                let modifiers = match.output[1].substring.map(String.init) ?? ""
                if modifiers.contains("private") { continue }
                types.append(match.output[2].substring.map(String.init) ?? "?")
            }
            if types.count > 1 { crowded[relative] = types }
        }
        let unexpected = crowded.filter { Self.filesWithSeveralTypes[$0.key] == nil }
        #expect(unexpected.isEmpty, "several top-level types in one file: \(unexpected.sorted { $0.key < $1.key })")
        // A listed file that moved away is no failure (other work moves files); one that is still
        // here and holds one type should leave the list.
        let stale = Self.filesWithSeveralTypes.keys.filter { file in
            crowded[file] == nil && FileManager.default.fileExists(atPath: Self.sources.appendingPathComponent(file).path)
        }
        #expect(stale.isEmpty, "allowlisted files that now hold one type (drop them from the list): \(stale.sorted())")
    }
}
