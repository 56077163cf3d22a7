import LarderMacrosPlugin
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
            """)
    }

    @Test func rawValueEnum() {
        expect("""
            @Archived
            enum Colour: String, Codable { case red, green }
            """, expands: """
            enum Colour: String, Codable { case red, green }
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
            }
            """)
    }

    @Test func refusesWhatItCannotArchive() {
        let cases: [(String, String, Int, Int)] = [
            ("@Archived\nclass Open: Codable { var a: Int }", "@Archived needs a final class: a subclass's own properties would be lost", 2, 7),
            ("@Archived\nprotocol P {}", "@Archived applies to a struct, a final class or an enum with a raw type", 2, 1),
            ("@Archived\nactor A {}", "@Archived applies to a struct, a final class or an enum with a raw type", 2, 1),
            ("@Archived\nenum E: Codable { case a(Int) }", "@Archived applies to an enum only when it has a raw type (String or a number); archive other enums through Codable", 2, 6),
            ("@Archived\nstruct S: Codable { var a = 1 }", "@Archived needs the type of each stored property written out", 2, 25),
            ("@Archived\nstruct S: Codable { lazy var a: Int = 1 }", "@Archived does not support lazy properties", 2, 21),
            ("@Archived\nstruct S: Codable {\n    var a: Int\n    init(from decoder: Decoder) throws { a = 1 }\n}",
             "@Archived cannot know the form a hand-written init(from:) or encode(to:) gives the type; remove one or the other", 4, 5),
        ]
        for (source, message, line, column) in cases {
            let declaration = source.split(separator: "\n", maxSplits: 1)[1]
            expect(source, expands: String(declaration),
                   diagnostics: [DiagnosticSpec(message: message, line: line, column: column)])
        }
    }
}
