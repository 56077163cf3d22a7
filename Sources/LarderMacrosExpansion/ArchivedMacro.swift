#if Extras
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Archived`: conforms a `Codable` type to `ArchivedMessagePack` with generated code that
/// writes and reads the map its `Codable` conformance writes (see LarderMacros/Archived.swift).
///
/// Structs and enums get everything in one extension. A final class gets its initializer as a
/// member (an initializer in an extension of a class can only be a convenience one, which could
/// not set the stored properties); the rest comes in the extension.
public struct ArchivedMacro: ExtensionMacro, MemberMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        let model = try ArchivedModel(declaration, attribute: node)
        let typeName = type.trimmedDescription
        var members = [writer(model, typeName: typeName)]
        if model.kind != .finalClass {
            members.append(initializer(model, typeName: typeName))
        }
        let extensionDecl: DeclSyntax = """
            extension \(raw: typeName): LarderMacros.ArchivedMessagePack {
            \(raw: members.joined(separator: "\n\n"))
            }
            """
        guard let result = extensionDecl.as(ExtensionDeclSyntax.self) else { return [] }
        return [result]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        // The extension role reports what is wrong; reporting it twice would only add noise.
        guard let model = try? ArchivedModel(declaration, attribute: node), model.kind == .finalClass,
              let name = declaration.as(ClassDeclSyntax.self)?.name.text else { return [] }
        // Written for an extension's indentation; a member sits one level out.
        let lines = initializer(model, typeName: name).split(separator: "\n", omittingEmptySubsequences: false)
        return [DeclSyntax(stringLiteral: lines.map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : String($0) }.joined(separator: "\n"))]
    }

    // MARK: Generated code

    private static func writer(_ model: ArchivedModel, typeName: String) -> String {
        let signature = "\(model.access)func writeMessagePack(to writer: inout LarderMacros.MessagePackFieldWriter) throws"
        if model.kind == .rawValueEnum {
            return "    \(signature) {\n        try writer.writeValue(self.rawValue)\n    }"
        }
        var lines = ["    \(signature) {"]
        let optionals = model.fields.filter { $0.wrapped != nil }
        if optionals.isEmpty {
            lines.append("        try writer.beginMap(count: \(model.fields.count))")
        } else {
            // An optional property that is nil is left out, as `encodeIfPresent` leaves it out.
            lines.append("        var count = \(model.fields.count)")
            for field in optionals {
                lines.append("        if self.\(escaped(field.name)) == nil { count -= 1 }")
            }
            lines.append("        try writer.beginMap(count: count)")
        }
        for field in model.fields {
            let call = field.wrapped == nil ? "write" : "writeIfPresent"
            let key = model.numbered ? "field: \(field.number ?? 0)" : "forKey: \(literal(field.key))"
            lines.append("        try writer.\(call)(self.\(escaped(field.name)), \(key))")
        }
        lines.append("    }")
        return lines.joined(separator: "\n")
    }

    private static func initializer(_ model: ArchivedModel, typeName: String) -> String {
        let signature = "\(model.access)init(messagePack reader: inout LarderMacros.MessagePackFieldReader) throws"
        if model.kind == .rawValueEnum {
            return """
                    \(signature) {
                        let rawValue = try Self.RawValue(messagePack: &reader)
                        guard let value = Self(rawValue: rawValue) else { throw reader.invalidRawValue(rawValue, of: Self.self) }
                        self = value
                    }
                """
        }
        var lines = ["    \(signature) {"]
        for field in model.fields {
            lines.append("        var \(local(field)): Optional<\(field.wrapped ?? field.type)> = nil")
        }
        lines.append("        let count = try reader.beginMap(of: Self.self)")
        lines.append("        for _ in 0..<count {")
        lines.append("            try reader.readKey()")
        var first = true
        for field in model.fields {
            let read = field.wrapped == nil ? "read" : "readIfPresent"
            let type = field.wrapped ?? field.type
            lines.append("            \(first ? "if" : "} else if") \(keyTest(field, numbered: model.numbered)) {")
            lines.append("                \(local(field)) = try reader.\(read)((\(type)).self, forKey: \(literal(field.key)))")
            first = false
        }
        lines.append(first ? "            try reader.skipValue()" : "            } else {\n                try reader.skipValue()\n            }")
        lines.append("        }")
        for field in model.fields {
            if field.wrapped == nil {
                lines.append("        guard let \(local(field)) else { throw reader.keyNotFound(\(literal(field.key)), in: Self.self) }")
            }
            lines.append("        self.\(escaped(field.name)) = \(local(field))")
        }
        lines.append("    }")
        return lines.joined(separator: "\n")
    }

    /// The test that the key just read is `field`'s: its name, or (with `CodingKeys: Int`) its
    /// number, either layout being read whatever the type writes; the written one first.
    private static func keyTest(_ field: ArchivedModel.Field, numbered: Bool) -> String {
        let name = "reader.keyIs(\(literal(field.key)))"
        guard let number = field.number else { return name }
        let byNumber = "reader.keyIs(field: \(number))"
        return numbered ? "\(byNumber) || \(name)" : "\(name) || \(byNumber)"
    }

    /// The local that holds a property's value while the map is read.
    private static func local(_ field: ArchivedModel.Field) -> String { "_\(field.name)" }

    private static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    private static let keywords: Set<String> = [
        "class", "default", "func", "import", "in", "init", "inout", "internal", "let", "operator", "private", "protocol",
        "public", "static", "struct", "subscript", "typealias", "var", "break", "case", "continue", "do", "else", "for",
        "if", "return", "switch", "where", "while", "as", "is", "nil", "self", "super", "throw", "throws", "true", "false",
        "try", "enum", "extension", "deinit", "fileprivate", "repeat", "defer", "guard", "catch", "rethrows", "Self", "Type",
    ]

    /// `key` as a Swift string literal.
    private static func literal(_ key: String) -> String {
        var text = "\""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    text += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text + "\""
    }
}
#endif
