import Foundation
import Testing

/// The folders of `Sources/Larder` form layers: a folder names types of the folders below it
/// only. Read from the sources, with no allowlist: every top-level type declared in a folder is
/// found, every identifier of every other folder's code that names one is an edge, and the
/// edges must follow the order Architecture.md gives ("Layer order:").
@Suite("Folder layers")
struct FolderLayerTests {
    /// A folder's code with its comments and string literals blanked out (a doc comment or a
    /// message that names a type is no dependency).
    static func code(of text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        func at(_ offset: Int) -> Unicode.Scalar? { i + offset < scalars.count ? scalars[i + offset] : nil }
        while i < scalars.count {
            let c = scalars[i]
            if c == "/", at(1) == "/" {
                while i < scalars.count, scalars[i] != "\n" { i += 1 }
                continue
            }
            if c == "/", at(1) == "*" {
                var depth = 0
                repeat {
                    if scalars[i] == "/", at(1) == "*" { depth += 1; i += 2 }
                    else if scalars[i] == "*", at(1) == "/" { depth -= 1; i += 2 }
                    else { i += 1 }
                } while depth > 0 && i < scalars.count
                out.append(" ")
                continue
            }
            if c == "\"" {
                let triple = at(1) == "\"" && at(2) == "\""
                i += triple ? 3 : 1
                while i < scalars.count {
                    if scalars[i] == "\\" { i += 2; continue }
                    if triple, scalars[i] == "\"", at(1) == "\"", at(2) == "\"" { i += 3; break }
                    if !triple, scalars[i] == "\"" { i += 1; break }
                    i += 1
                }
                out.append(contentsOf: "\"\"".unicodeScalars)
                continue
            }
            out.append(c)
            i += 1
        }
        return String(out)
    }

    /// The identifiers of `code`, in order, with `{` and `}` as tokens of their own.
    static func tokens(of code: String) -> [Substring] {
        var tokens: [Substring] = []
        var start: String.Index?
        var index = code.startIndex
        while index < code.endIndex {
            let c = code[index]
            let isWord = c.isLetter || c.isNumber || c == "_"
            if isWord {
                if start == nil { start = index }
            } else {
                if let s = start { tokens.append(code[s..<index]); start = nil }
                if c == "{" || c == "}" { tokens.append(code[index...index]) }
            }
            index = code.index(after: index)
        }
        if let s = start { tokens.append(code[s...]) }
        return tokens
    }

    struct Source {
        var folder: String
        var file: String
        var tokens: [Substring]
    }

    static func sources() throws -> [Source] {
        let root = ArchitectureTests.sources
        let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
        var found: [Source] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
            let folder = String(relative.prefix { $0 != "/" })
            found.append(Source(folder: folder, file: relative, tokens: tokens(of: code(of: text))))
        }
        return found
    }

    /// Each top-level type (not a nested one: those are reached through their outer type) and
    /// the folder that declares it.
    static func declarations(in sources: [Source]) -> [String: String] {
        let introducers: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "actor"]
        var declared: [String: String] = [:]
        for source in sources {
            var depth = 0
            var previous: Substring = ""
            for token in source.tokens {
                if token == "{" { depth += 1 } else if token == "}" { depth -= 1 }
                else if depth == 0, introducers.contains(previous) { declared[String(token)] = source.folder }
                previous = token
            }
        }
        return declared
    }

    /// For each folder, the folders whose types it names, with one example of each use.
    static func edges() throws -> [String: [String: String]] {
        let sources = try sources()
        let declared = declarations(in: sources)
        var edges: [String: [String: String]] = [:]
        for source in sources {
            edges[source.folder, default: [:]] = edges[source.folder] ?? [:]
            for token in source.tokens {
                guard let owner = declared[String(token)], owner != source.folder else { continue }
                if edges[source.folder]?[owner] == nil { edges[source.folder]?[owner] = "\(source.file) names \(token)" }
            }
        }
        return edges
    }

    /// The order of the layers as Architecture.md states it, lowest first.
    static func documentedOrder() throws -> [String] {
        let url = ArchitectureTests.allSources.deletingLastPathComponent().appendingPathComponent("Documentation/Architecture.md")
        let page = try String(contentsOf: url, encoding: .utf8)
        let line = try #require(page.split(separator: "\n").first { $0.hasPrefix("Layer order:") })
        return line.dropFirst("Layer order:".count).split(separator: "→").map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: " `/."))
        }
    }

    @Test func theReaderFindsTypesAndIgnoresCommentsAndStrings() {
        let code = Self.code(of: """
            /// Uses ``Hidden`` in a comment.
            struct Outer { struct Inner {} }
            let message = "names Quoted and \\"Escaped\\""
            /* nested /* block */ Blocked */ let x: Visible
            """)
        let tokens = Self.tokens(of: code).map(String.init)
        #expect(!tokens.contains("Hidden") && !tokens.contains("Quoted") && !tokens.contains("Escaped") && !tokens.contains("Blocked"))
        #expect(tokens.contains("Visible") && tokens.contains("Outer"))
        let declared = Self.declarations(in: [Source(folder: "A", file: "A/x.swift", tokens: Self.tokens(of: code))])
        #expect(declared["Outer"] == "A" && declared["Inner"] == nil)
    }

    /// The folder graph has no cycle: walked in the documented order, every folder names types
    /// of folders below it only. A folder missing from the order fails too.
    @Test func foldersNameOnlyTheLayersBelowThem() throws {
        let order = try Self.documentedOrder()
        let edges = try Self.edges()
        #expect(Set(order).count == order.count, "a folder is named twice in the layer order: \(order)")
        let missing = Set(edges.keys).subtracting(order)
        #expect(missing.isEmpty, "folders Architecture.md's layer order does not place: \(missing.sorted())")
        let rank = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        var upward: [String] = []
        for (folder, targets) in edges {
            for (target, example) in targets {
                guard let from = rank[folder], let to = rank[target] else { continue }
                if to > from { upward.append("\(folder) → \(target) (\(example))") }
            }
        }
        #expect(upward.isEmpty, "folders that name a layer above them: \(upward.sorted())")
        #expect(edges.count >= 12 && edges.values.map(\.count).reduce(0, +) >= 30, "the reader found too little: \(edges)")
    }
}
