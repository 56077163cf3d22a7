import Foundation
import Testing

/// Every public symbol of the library has a summary, and every one that throws says what with
/// `- Throws:` (STYLE.md, point 10).
///
/// The check reads the sources as text, line by line, which is enough for the way they are
/// written: a declaration is public when it says `public` or `open`, or when it is a member of a
/// public protocol or a `case` of a public enum. Its doc comment is the run of `///` lines right
/// above it, attributes (`@inlinable`, `@discardableResult`…) allowed in between. A function,
/// initializer or subscript throws when `throws` or `rethrows` follows its parameter list; a
/// property or subscript throws when its getter is `get throws`.
@Suite("Documentation coverage")
struct DocumentationCoverageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyPublicSymbolHasASummaryAndThrowsIsDocumented() throws {
        var files: [URL] = []
        // The library and the MessagePack target it re-exports (both public API of `import Larder`), and
        // the macro product (its declaration; the kit it calls lives in the two above), and the
        // adapters product.
        for (folder, least) in [("Sources/Larder", 20), ("Sources/LarderMessagePack", 20), ("Sources/LarderMacros", 0), ("Sources/LarderAdapters", 3)] {
            let sources = Self.root.appendingPathComponent(folder)
            let found = try swiftFiles(under: sources)
            #expect(found.count > least, "found only \(found.count) Swift files under \(sources.path)")
            files += found
        }
        var findings: [String] = []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let relative = String(file.path.dropFirst(Self.root.path.count + 1))
            findings += DeclarationScanner(text: text).findings().map { "\(relative):\($0)" }
        }
        #expect(findings.isEmpty, "\(findings.count) public declarations need documentation:\n\(findings.joined(separator: "\n"))")
    }

    /// The checker itself, on a sample that has each case it must tell apart.
    @Test func theScannerFindsWhatItShould() {
        let sample = #"""
        /// A documented type.
        public struct Good {
            /// Documented.
            /// - Throws: when it fails.
            @inlinable
            public func work(_ body: () throws -> Void) throws {}
            public var undocumented: Int { 1 }
            /// No word about throwing.
            public init(
                value: Int
            ) throws {}
            /// Takes a closure that throws, but does not throw itself.
            public func map(_ body: (Int) throws -> Int) -> Int { 0 }
            /// A getter that throws without saying so.
            public var value: Int {
                get throws { 1 }
            }
            func internalHelper() throws {}
            let text = "public func notADeclaration() {"
        }
        /// Documented.
        public enum Kinds {
            case one, two
            /// Documented.
            case three
        }
        /// Documented.
        public protocol Requirement {
            associatedtype Item
            /// Documented.
            func make() throws -> Item
        }
        enum Internal {
            case hidden
        }
        """#
        let findings = DeclarationScanner(text: sample).findings()
        #expect(findings == [
            "7: no summary: public var undocumented: Int { 1 }",
            "9: no `- Throws:`: public init(",
            "15: no `- Throws:`: public var value: Int {",
            "23: no summary: case one, two",
            "29: no summary: associatedtype Item",
            "31: no `- Throws:`: func make() throws -> Item",
        ])
    }

    /// Every public method of the view, secondary-index and relationship readers (and of the
    /// queries and view changes they are read with) states its cost with `- Complexity:`
    /// (issue 15, part 3): their costs differ (a count may be O(1) or visit every entry), and a
    /// caller cannot tell from the signature.
    @Test func everyReaderMethodStatesItsComplexity() throws {
        let readerTypes: Set<String> = ["ViewReader", "SecondaryIndexReader", "IndexQuery", "RelationshipsReader", "ViewHandle", "FullTextSearchReader"]
        let files = try swiftFiles(under: Self.root.appendingPathComponent("Sources/Larder/Extensions"))
        var methods = 0
        var findings: [String] = []
        for file in files {
            let relative = String(file.path.dropFirst(Self.root.path.count + 1))
            let scanner = DeclarationScanner(text: try String(contentsOf: file, encoding: .utf8))
            for method in scanner.publicFunctions(inTypes: readerTypes) {
                methods += 1
                if !method.documentation.contains(where: { $0.contains("- Complexity:") }) {
                    findings.append("\(relative):\(method.line): no `- Complexity:`: \(method.declaration)")
                }
            }
        }
        // The readers have more than 25 public methods; fewer found means the scan went wrong.
        #expect(methods > 25, "found only \(methods) public methods of \(readerTypes.sorted())")
        #expect(findings.isEmpty, "\(findings.count) reader methods need `- Complexity:`:\n\(findings.joined(separator: "\n"))")
    }

    /// The reader-method finder, on a sample with methods inside and outside the named types.
    @Test func theScannerFindsTheMethodsOfNamedTypes() {
        let sample = #"""
        /// Documented.
        public struct Reader {
            /// Costs.
            /// - Complexity: O(1).
            public func cheap() -> Int { 1 }
            /// No cost stated.
            public func quiet() -> Int { if true { return 1 }; return 0 }
            func internalHelper() {}
            /// Nested, not a method of Reader.
            public struct Inner {
                /// Documented.
                public func inner() {}
            }
        }
        extension Reader {
            /// Added in an extension.
            public static func make() -> Reader { Reader() }
        }
        /// Documented.
        public struct Other {
            /// Documented.
            public func elsewhere() {}
        }
        """#
        let methods = DeclarationScanner(text: sample).publicFunctions(inTypes: ["Reader"])
        #expect(methods.map(\.line) == [5, 7, 17])
        #expect(methods.map { $0.documentation.contains { $0.contains("- Complexity:") } } == [true, false, false])
    }

    private func swiftFiles(under directory: URL) throws -> [URL] {
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        var files: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "swift" { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }
}

/// Finds public declarations without a doc comment, and throwing ones whose comment lacks
/// `- Throws:`, in the text of one Swift file.
struct DeclarationScanner {
    let lines: [String]
    /// Each line with string literals emptied and comments removed, so that braces and keywords
    /// inside them are not counted.
    let code: [String]

    init(text: String) {
        lines = text.components(separatedBy: "\n")
        var stripper = CommentAndStringStripper()
        code = lines.map { stripper.strip($0) }
    }

    /// What kind of body the braces at one depth belong to.
    private enum Container { case publicEnum, publicProtocol, other }

    private static let declarationKeywords: Set<String> = [
        "func", "init", "var", "let", "subscript", "struct", "class", "enum", "protocol",
        "typealias", "case", "associatedtype", "actor",
    ]
    private static let modifiers: Set<String> = [
        "public", "open", "package", "internal", "private", "fileprivate", "static", "final", "override",
        "nonisolated", "mutating", "nonmutating", "convenience", "required", "indirect", "lazy", "weak",
        "unowned", "dynamic", "consuming", "borrowing",
    ]

    /// "line: problem: declaration" for each finding, in order.
    func findings() -> [String] {
        var findings: [String] = []
        var containers: [Int: Container] = [:]
        var depth = 0
        var pendingContainer: Container?
        for (number, line) in code.enumerated() {
            if let declaration = Self.declaration(in: line) {
                let container = containers[depth] ?? .other
                let isPublic = declaration.modifiers.contains("public") || declaration.modifiers.contains("open")
                    || (container == .publicProtocol && !declaration.modifiers.contains("private"))
                    || (container == .publicEnum && declaration.keyword == "case")
                let isCaseOutsideEnum = declaration.keyword == "case" && container != .publicEnum
                if isPublic && !isCaseOutsideEnum {
                    let summary = documentation(above: number)
                    let shown = lines[number].trimmingCharacters(in: .whitespaces)
                    if summary.isEmpty {
                        findings.append("\(number + 1): no summary: \(shown)")
                    } else if throwsAt(number, declaration) && !summary.contains(where: { $0.contains("- Throws:") }) {
                        findings.append("\(number + 1): no `- Throws:`: \(shown)")
                    }
                }
                switch declaration.keyword {
                case "enum": pendingContainer = isPublic ? .publicEnum : .other
                case "protocol": pendingContainer = isPublic ? .publicProtocol : .other
                case "struct", "class", "actor": pendingContainer = .other
                default: break
                }
            }
            for character in line {
                if character == "{" {
                    depth += 1
                    containers[depth] = pendingContainer ?? .other
                    pendingContainer = nil
                } else if character == "}" {
                    containers[depth] = nil
                    depth -= 1
                }
            }
        }
        return findings
    }

    /// The public functions declared directly in the body of a type named in `types` (or of an
    /// extension of one), with their line (1-based) and doc comment lines.
    func publicFunctions(inTypes types: Set<String>) -> [(line: Int, declaration: String, documentation: [String])] {
        var found: [(line: Int, declaration: String, documentation: [String])] = []
        var owners: [Int: String] = [:]
        var depth = 0
        var pendingOwner: String?
        for (number, line) in code.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let declaration = Self.declaration(in: line) {
                let isPublic = declaration.modifiers.contains("public") || declaration.modifiers.contains("open")
                if declaration.keyword == "func", isPublic, let owner = owners[depth], types.contains(owner) {
                    found.append((number + 1, lines[number].trimmingCharacters(in: .whitespaces), documentation(above: number)))
                }
                if ["struct", "class", "enum", "actor", "protocol"].contains(declaration.keyword) {
                    pendingOwner = Self.name(after: declaration.keyword, in: trimmed)
                }
            } else if let name = Self.name(after: "extension", in: trimmed), trimmed.hasPrefix("extension ") || trimmed.hasPrefix("public extension ") {
                pendingOwner = name
            }
            for character in line {
                if character == "{" {
                    depth += 1
                    owners[depth] = pendingOwner
                    pendingOwner = nil
                } else if character == "}" {
                    owners[depth] = nil
                    depth -= 1
                }
            }
        }
        return found
    }

    /// The identifier that follows the word `keyword` in `line`.
    private static func name(after keyword: String, in line: String) -> String? {
        guard let range = line.range(of: keyword + " ") else { return nil }
        let name = line[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }

    /// The `///` lines right above line `number`, skipping attribute lines.
    private func documentation(above number: Int) -> [String] {
        var index = number - 1
        while index >= 0, lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("@") { index -= 1 }
        var comment: [String] = []
        while index >= 0 {
            let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("///") else { break }
            comment.append(trimmed)
            index -= 1
        }
        return comment.reversed()
    }

    /// The modifiers and keyword of the declaration that begins `line`, if one does.
    private static func declaration(in line: String) -> (modifiers: Set<String>, keyword: String)? {
        var rest = Substring(line.trimmingCharacters(in: .whitespaces))
        // Attributes: `@name` with an optional parenthesized argument.
        while rest.hasPrefix("@") {
            rest = rest.dropFirst().drop { $0.isLetter || $0.isNumber || $0 == "_" }
            if rest.hasPrefix("(") {
                var parentheses = 0
                var end = rest.startIndex
                for index in rest.indices {
                    if rest[index] == "(" { parentheses += 1 }
                    if rest[index] == ")" { parentheses -= 1 }
                    if parentheses == 0 { end = index; break }
                }
                rest = rest[rest.index(after: end)...]
            }
            rest = rest.drop { $0 == " " }
        }
        var modifiers: Set<String> = []
        while true {
            let word = String(rest.prefix { $0.isLetter })
            guard !word.isEmpty else { return nil }
            var after = rest.dropFirst(word.count)
            if Self.modifiers.contains(word), after.hasPrefix("(") {  // private(set), nonisolated(unsafe)
                guard let close = after.firstIndex(of: ")") else { return nil }
                after = after[after.index(after: close)...]
            }
            let next = after.drop { $0 == " " }
            // `class` is a modifier before `func`/`var`, a keyword before a name.
            let classIsModifier = word == "class" && ["func ", "var ", "subscript", "let "].contains { next.hasPrefix($0) }
            if (Self.modifiers.contains(word) && word != "class") || classIsModifier {
                guard after.first == " " else { return nil }
                modifiers.insert(word)
                rest = next
                continue
            }
            guard Self.declarationKeywords.contains(word), after.isEmpty || after.first == " " || after.first == "(" || after.first == "<" else { return nil }
            return (modifiers, word)
        }
    }

    /// Whether the declaration at line `number` throws: `throws`/`rethrows` after its parameter
    /// list (not inside a closure parameter's type), or a getter that throws.
    private func throwsAt(_ number: Int, _ declaration: (modifiers: Set<String>, keyword: String)) -> Bool {
        guard ["func", "init", "subscript", "var"].contains(declaration.keyword) else { return false }
        // The signature up to its body's `{`, outside parentheses and brackets.
        var outside = ""
        var nesting = 0
        var index = number
        var bodyLine: Int?
        scan: while index < code.count {
            for character in code[index] {
                switch character {
                case "(", "[": nesting += 1
                case ")", "]": nesting -= 1
                case "{" where nesting == 0:
                    bodyLine = index
                    break scan
                default:
                    if nesting == 0 { outside.append(character) }
                }
            }
            outside.append(" ")
            // A signature goes on to the next line only while a list is open or the next line
            // continues it.
            let next = index + 1 < code.count ? code[index + 1].trimmingCharacters(in: .whitespaces) : ""
            let continues = ["->", "throws", "rethrows", "async", "where", "{"].contains { next.hasPrefix($0) }
            if nesting == 0 && !continues { break }
            index += 1
        }
        let words = Set(outside.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
        if words.contains("throws") || words.contains("rethrows") { return true }
        guard let bodyLine, declaration.keyword == "var" || declaration.keyword == "subscript" else { return false }
        // The accessors, up to the brace that closes the body.
        var braces = 0
        var body = ""
        for line in code[bodyLine...] {
            body += line + "\n"
            braces += line.filter { $0 == "{" }.count - line.filter { $0 == "}" }.count
            if braces <= 0 { break }
        }
        return body.range(of: #"\bget\s+(async\s+)?throws\b"#, options: .regularExpression) != nil
    }
}

/// Removes comments and the contents of string literals from lines of Swift, carrying block
/// comments and multi-line strings from one line to the next.
struct CommentAndStringStripper {
    private var inBlockComment = false
    private var inMultilineString = false

    mutating func strip(_ line: String) -> String {
        let characters = Array(line)
        var output = ""
        var index = 0
        func starts(_ text: String) -> Bool {
            let needle = Array(text)
            return index + needle.count <= characters.count && Array(characters[index..<index + needle.count]) == needle
        }
        while index < characters.count {
            if inBlockComment {
                if starts("*/") { inBlockComment = false; index += 2 } else { index += 1 }
                continue
            }
            if inMultilineString {
                if starts("\"\"\"") { inMultilineString = false; index += 3 } else { index += 1 }
                continue
            }
            if starts("//") { break }
            if starts("/*") { inBlockComment = true; index += 2; continue }
            if starts("\"\"\"") { inMultilineString = true; index += 3; continue }
            if characters[index] == "\"" {
                index += 1
                while index < characters.count && characters[index] != "\"" {
                    index += characters[index] == "\\" ? 2 : 1
                }
                index += 1
                output += "\"\""
                continue
            }
            output.append(characters[index])
            index += 1
        }
        return output
    }
}
