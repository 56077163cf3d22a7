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

    @Test func numberedLayoutWritesNumbersAndReadsBoth() {
        expect("""
            @Archived(layout: .numbered)
            struct Reading: Codable {
                var sensor: String
                var note: String?
                enum CodingKeys: Int, CodingKey {
                    case sensor = 1
                    case note = -0x2
                }
            }
            """, expands: """
            struct Reading: Codable {
                var sensor: String
                var note: String?
                enum CodingKeys: Int, CodingKey {
                    case sensor = 1
                    case note = -0x2
                }
            }

            extension Reading: LarderMacros.ArchivedMessagePack {
                func writeMessagePack(to writer: inout LarderMacros.MessagePackFieldWriter) throws {
                    var count = 2
                    if self.note == nil {
                        count -= 1
                    }
                    try writer.beginMap(count: count)
                    try writer.write(self.sensor, field: 1)
                    try writer.writeIfPresent(self.note, field: -2)
                }

                init(messagePack reader: inout LarderMacros.MessagePackFieldReader) throws {
                    var _sensor: Optional<String> = nil
                    var _note: Optional<String> = nil
                    let count = try reader.beginMap(of: Self.self)
                    for _ in 0 ..< count {
                        try reader.readKey()
                        if reader.keyIs(field: 1) || reader.keyIs("sensor") {
                            _sensor = try reader.read((String).self, forKey: "sensor")
                        } else if reader.keyIs(field: -2) || reader.keyIs("note") {
                            _note = try reader.readIfPresent((String).self, forKey: "note")
                        } else {
                            try reader.skipValue()
                        }
                    }
                    guard let _sensor else {
                        throw reader.keyNotFound("sensor", in: Self.self)
                    }
                    self.sensor = _sensor
                    self.note = _note
                }
            }
            """)
    }

    @Test func namedLayoutWithIntegerKeysReadsTheirImplicitNumbers() {
        expect("""
            @Archived(layout: .named)
            struct Pair: Codable {
                var a: Int
                var b: Int
                enum CodingKeys: Int, CodingKey {
                    case a = 5, b
                }
            }
            """, expands: """
            struct Pair: Codable {
                var a: Int
                var b: Int
                enum CodingKeys: Int, CodingKey {
                    case a = 5, b
                }
            }

            extension Pair: LarderMacros.ArchivedMessagePack {
                func writeMessagePack(to writer: inout LarderMacros.MessagePackFieldWriter) throws {
                    try writer.beginMap(count: 2)
                    try writer.write(self.a, forKey: "a")
                    try writer.write(self.b, forKey: "b")
                }

                init(messagePack reader: inout LarderMacros.MessagePackFieldReader) throws {
                    var _a: Optional<Int> = nil
                    var _b: Optional<Int> = nil
                    let count = try reader.beginMap(of: Self.self)
                    for _ in 0 ..< count {
                        try reader.readKey()
                        if reader.keyIs("a") || reader.keyIs(field: 5) {
                            _a = try reader.read((Int).self, forKey: "a")
                        } else if reader.keyIs("b") || reader.keyIs(field: 6) {
                            _b = try reader.read((Int).self, forKey: "b")
                        } else {
                            try reader.skipValue()
                        }
                    }
                    guard let _a else {
                        throw reader.keyNotFound("a", in: Self.self)
                    }
                    self.a = _a
                    guard let _b else {
                        throw reader.keyNotFound("b", in: Self.self)
                    }
                    self.b = _b
                }
            }
            """)
    }

    @Test func refusesANumberedLayoutWithoutNumbers() {
        // (declaration after the attribute's line, message, line and column of the diagnostic)
        let cases: [(String, String, String, Int, Int)] = [
            ("@Archived(layout: .numbered)", "struct S: Codable {\n    var a: Int\n}",
             "@Archived(layout: .numbered) needs the fields' numbers: declare `enum CodingKeys: Int, CodingKey` with a number written out for each case", 1, 1),
            ("@Archived(layout: .numbered)", "struct S: Codable {\n    var a: Int\n    enum CodingKeys: String, CodingKey {\n        case a\n    }\n}",
             "@Archived(layout: .numbered) needs the fields' numbers: declare `enum CodingKeys: Int, CodingKey` with a number written out for each case", 4, 10),
            ("@Archived(layout: .numbered)", "struct S: Codable {\n    var a: Int\n    var b: Int\n    enum CodingKeys: Int, CodingKey {\n        case a = 1\n        case b\n    }\n}",
             "@Archived(layout: .numbered) needs this case's number written out (`case name = 1`): an implicit number changes when cases move", 7, 14),
            ("@Archived(layout: .numbered)", "struct S: Codable {\n    var a: Int\n    var b: Int\n    enum CodingKeys: Int, CodingKey {\n        case a = 1\n        case b = 1\n    }\n}",
             "@Archived(layout: .numbered) needs a different number for each field", 7, 14),
            ("@Archived(layout: .numbered)", "enum E: Int, Codable {\n    case a\n}",
             "@Archived(layout: .numbered) applies to structs and final classes; an enum is stored as its raw value", 1, 1),
            ("@Archived(layout: .compact)", "struct S: Codable {\n    var a: Int\n}",
             "@Archived's layout is .named or .numbered", 1, 19),
        ]
        for (attribute, declaration, message, line, column) in cases {
            expect(attribute + "\n" + declaration, expands: declaration,
                   diagnostics: [DiagnosticSpec(message: message, line: line, column: column)])
        }
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
        try expectWrittenOutExpansion(of: "GeneratedItem.swift", attribute: "@Archived")
    }

    /// The same for `NumberedItem`, in the numbered layout.
    @Test func theBenchmarksNumberedItemIsTheMacrosExpansion() throws {
        try expectWrittenOutExpansion(of: "NumberedItem.swift", attribute: "@Archived(layout: .numbered)")
    }

    private func expectWrittenOutExpansion(of name: String, attribute: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Benchmarks/Sources/LarderBenchKit/" + name)
        let text = try String(contentsOf: file, encoding: .utf8)
        let parts = text.components(separatedBy: "\n// @Archived expansion\n")
        try #require(parts.count == 2, "\(name) has no `// @Archived expansion` line", sourceLocation: sourceLocation)
        let declaration = parts[0].split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("import ") && !$0.hasPrefix("///") }
            .joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        let expansion = parts[1].replacingOccurrences(of: "Larder.", with: "LarderMacros.").trimmingCharacters(in: .whitespacesAndNewlines)
        expect(attribute + "\n" + declaration, expands: declaration + "\n\n" + expansion, sourceLocation: sourceLocation)
    }
}
