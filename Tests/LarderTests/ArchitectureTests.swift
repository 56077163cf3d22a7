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
}

extension ArchitectureTests {
    /// Files that may declare more than one top-level public, package or internal type, each with
    /// the reason. Keep it short: a newcomer finds a type by the file named after it.
    static let filesWithSeveralTypes: [String: String] = [
        // Each of these is being changed by other work of issue 15; it splits when that work is in.
        "Store/Connection.swift": "Connection and ConnectionCore; the shared access protocol (part 3) reshapes both",
        "Graph/Persistent.swift": "Persistent and ObservationHandle; async forms of Persistent (part 3)",
        "Changes/Observation.swift": "ChangeStream, ObjectObservation, SubscriptionLease; part 3 edits them",
        "Undo/UndoStep.swift": "UndoStep and UndoHistory; undo capture becomes a write participant (part 2)",
        "Undo/UndoStack.swift": "UndoStack and StoredUndoStep; as above (part 2)",
        "Extensions/Relationships/Relationships.swift": "seven types; symmetric relationship writes (part 3)",
        "Archiving/MessagePack/MessagePackReader.swift": "moves to the MessagePack target (part 4)",
        "Archiving/MessagePack/MessagePackStreamEncoder.swift": "moves to the MessagePack target (part 4)",
    ]

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
