import Foundation
import LarderMacrosExpansion
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@Archived` expands to, and what it refuses.
@Suite("Generated archivers: the macro's expansion")
struct ArchivedExpansionTests {
    static let specs = ["Archived": MacroSpec(type: ArchivedMacro.self, conformances: ["ArchivedMessagePack"])]

    func expect(_ source: String, expands expanded: String, diagnostics: [DiagnosticSpec] = [],
                sourceLocation: SourceLocation = #_sourceLocation) {
        assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: Self.specs) { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        }
    }

    @Test func structWithOptionalAndRenamedKeys() {
        expect("""
            @Archived
            public struct Item: Codable {
                var id: String
                var note: String?
                let fixed = 3
                var doubled: Int { 2 }
                enum CodingKeys: String, CodingKey {
                    case note = "n"
                    case id
                }
            }
            """, expands: """
            public struct Item: Codable {
                var id: String
                var note: String?
                let fixed = 3
                var doubled: Int { 2 }
                enum CodingKeys: String, CodingKey {
                    case note = "n"
                    case id
                }
            }

            extension Item: LarderMacros.ArchivedMessagePack {
                public func writeMessagePack(to writer: inout LarderMacros.MessagePackFieldWriter) throws {
                    var count = 2
                    if self.note == nil {
                        count -= 1
                    }
                    try writer.beginMap(count: count)
                    try writer.writeIfPresent(self.note, forKey: "n")
                    try writer.write(self.id, forKey: "id")
                }

                public init(messagePack reader: inout LarderMacros.MessagePackFieldReader) throws {
                    var _note: Optional<String> = nil
                    var _id: Optional<String> = nil
                    let count = try reader.beginMap(of: Self.self)
                    for _ in 0 ..< count {
                        try reader.readKey()
                        if reader.keyIs("n") {
                            _note = try reader.readIfPresent((String).self, forKey: "n")
                        } else if reader.keyIs("id") {
                            _id = try reader.read((String).self, forKey: "id")
                        } else {
                            try reader.skipValue()
                        }
                    }
                    self.note = _note
                    guard let _id else {
                        throw reader.keyNotFound("id", in: Self.self)
                    }
                    self.id = _id
                }
            }
            """)
    }

    @Test func rawValueEnum() {
        expect("""
            @Archived
            enum Colour: String, Codable {
                case red, green
            }
            """, expands: """
            enum Colour: String, Codable {
                case red, green
            }

            extension Colour: LarderMacros.ArchivedMessagePack {
                func writeMessagePack(to writer: inout LarderMacros.MessagePackFieldWriter) throws {
                    try writer.writeValue(self.rawValue)
                }

                init(messagePack reader: inout LarderMacros.MessagePackFieldReader) throws {
                    let rawValue = try Self.RawValue(messagePack: &reader)
                    guard let value = Self(rawValue: rawValue) else {
                        throw reader.invalidRawValue(rawValue, of: Self.self)
                    }
                    self = value
                }
            }
            """)
    }

    @Test func finalClassGetsItsInitializerAsAMember() {
        expect("""
            @Archived
            final class Node: Codable {
                var name: String
                var children: [Node]
            }
            """, expands: """
            final class Node: Codable {
                var name: String
                var children: [Node]

                init(messagePack reader: inout LarderMacros.MessagePackFieldReader) throws {
                    var _name: Optional<String> = nil
                    var _children: Optional<[Node]> = nil
                    let count = try reader.beginMap(of: Self.self)
                    for _ in 0 ..< count {
                        try reader.readKey()
                        if reader.keyIs("name") {
                            _name = try reader.read((String).self, forKey: "name")
                        } else if reader.keyIs("children") {
                            _children = try reader.read(([Node]).self, forKey: "children")
                        } else {
                            try reader.skipValue()
                        }
                    }
                    guard let _name else {
                        throw reader.keyNotFound("name", in: Self.self)
                    }
                    self.name = _name
                    guard let _children else {
                        throw reader.keyNotFound("children", in: Self.self)
                    }
                    self.children = _children
                }
            }

            extension Node: LarderMacros.ArchivedMessagePack {
                func writeMessagePack(to writer: inout LarderMacros.MessagePackFieldWriter) throws {
                    try writer.beginMap(count: 2)
                    try writer.write(self.name, forKey: "name")
                    try writer.write(self.children, forKey: "children")
                }
            }
            """)
    }

    @Test func refusesWhatItCannotArchive() {
        // (declaration after the attribute's line, message, line and column of the diagnostic)
        let cases: [(String, String, Int, Int)] = [
            ("class Open: Codable {\n    var a: Int\n}", "@Archived needs a final class: a subclass's own properties would be lost", 2, 7),
            ("protocol P {\n}", "@Archived applies to a struct, a final class or an enum with a raw type", 2, 1),
            ("actor A {\n}", "@Archived applies to a struct, a final class or an enum with a raw type", 2, 1),
            ("enum E: Codable {\n    case a(Int)\n}", "@Archived applies to an enum only when it has a raw type (String or a number); archive other enums through Codable", 2, 6),
            ("struct S: Codable {\n    var a = 1\n}", "@Archived needs the type of each stored property written out", 3, 9),
            ("struct S: Codable {\n    lazy var a: Int = 1\n}", "@Archived does not support lazy properties", 3, 5),
            ("struct S: Codable {\n    @Wrapped var a: Int\n}", "@Archived does not support property wrappers; archive this type through Codable", 3, 5),
            ("struct S: Codable {\n    var a: Int\n    init(from decoder: Decoder) throws { a = 1 }\n}",
             "@Archived cannot know the form a hand-written init(from:) or encode(to:) gives the type; remove one or the other", 4, 5),
            ("struct S: Codable {\n    var a: Int\n    func encode(to encoder: Encoder) throws {}\n}",
             "@Archived cannot know the form a hand-written init(from:) or encode(to:) gives the type; remove one or the other", 4, 5),
        ]
        for (declaration, message, line, column) in cases {
            expect("@Archived\n" + declaration, expands: declaration,
                   diagnostics: [DiagnosticSpec(message: message, line: line, column: column)])
        }
    }
}

extension ArchivedExpansionTests {
    /// The benchmarks' `GeneratedItem` carries `@Archived`'s expansion written out (so that their
    /// release build needs no swift-syntax): expanding its declaration gives exactly that text,
    /// with `LarderMacros.` where the copy says `Larder.` (the same declarations, re-exported).
    @Test func theBenchmarksItemIsTheMacrosExpansion() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Benchmarks/Sources/LarderBenchKit/GeneratedItem.swift")
        let text = try String(contentsOf: file, encoding: .utf8)
        let parts = text.components(separatedBy: "\n// @Archived expansion\n")
        try #require(parts.count == 2, "GeneratedItem.swift has no `// @Archived expansion` line")
        let declaration = parts[0].split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("import ") && !$0.hasPrefix("///") }
            .joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        let expansion = parts[1].replacingOccurrences(of: "Larder.", with: "LarderMacros.").trimmingCharacters(in: .whitespacesAndNewlines)
        expect("@Archived\n" + declaration, expands: declaration + "\n\n" + expansion)
    }
}
