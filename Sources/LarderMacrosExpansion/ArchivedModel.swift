#if Extras
import SwiftDiagnostics
import SwiftSyntax

/// What `@Archived` learned of a declaration: its kind and the properties `Codable` would encode.
struct ArchivedModel {
    enum Kind { case structure, finalClass, rawValueEnum }

    /// One property `Codable` encodes.
    struct Field {
        /// The property's name as written in code (backticks removed).
        var name: String
        /// The map key: the `CodingKeys` raw value, or the name.
        var key: String
        /// The declared type.
        var type: TypeSyntax
        /// For an optional property, the wrapped type (`String` of `String?`); nil otherwise.
        var wrapped: TypeSyntax?
        /// The field's number: the raw value of its `CodingKeys` case when the enum's raw type is
        /// `Int` (its `intValue`); nil otherwise.
        var number: Int?
    }

    var kind: Kind
    var fields: [Field]
    /// Whether the map is written with the fields' numbers as keys (`layout: .numbered`).
    var numbered: Bool
    /// `public `, `package ` or nothing: the access the generated members need.
    var access: String

    /// The model of `declaration`.
    /// - Throws: `DiagnosticsError` naming what the macro does not support.
    init(_ declaration: some DeclGroupSyntax, attribute: AttributeSyntax) throws {
        access = Self.access(of: declaration.modifiers)
        numbered = try Self.isNumbered(attribute)
        if let enumeration = declaration.as(EnumDeclSyntax.self) {
            guard Self.hasRawType(enumeration) else { throw Self.error(.enumWithoutRawType, at: enumeration.name) }
            if numbered { throw Self.error(.numberedEnum, at: attribute) }
            try Self.refuseCustomCoding(declaration.memberBlock)
            kind = .rawValueEnum
            fields = []
            return
        }
        if let type = declaration.as(ClassDeclSyntax.self) {
            guard type.modifiers.contains(where: { $0.name.tokenKind == .keyword(.final) }) else {
                throw Self.error(.nonFinalClass, at: type.name)
            }
            kind = .finalClass
        } else if declaration.is(StructDeclSyntax.self) {
            kind = .structure
        } else {
            throw Self.error(.notAType, at: declaration.introducer)
        }
        try Self.refuseCustomCoding(declaration.memberBlock)
        fields = try Self.fields(of: declaration.memberBlock, numbered: numbered, attribute: attribute)
    }

    /// Whether the attribute asks for the numbered layout: `@Archived(layout: .numbered)`
    /// (`.named`, the default, or no argument: the names).
    private static func isNumbered(_ attribute: AttributeSyntax) throws -> Bool {
        guard case .argumentList(let arguments)? = attribute.arguments, let argument = arguments.first else { return false }
        let name = argument.expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
        switch name {
        case "numbered": return true
        case "named": return false
        default: throw error(.unknownLayout, at: argument.expression)
        }
    }

    // MARK: Properties

    private static func fields(of members: MemberBlockSyntax, numbered: Bool, attribute: AttributeSyntax) throws -> [Field] {
        var stored: [Field] = []
        for member in members.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if variable.modifiers.contains(where: { [.keyword(.static), .keyword(.class)].contains($0.name.tokenKind) }) { continue }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            for binding in variable.bindings {
                if let accessors = binding.accessorBlock, isComputed(accessors) { continue }
                guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    throw error(.unsupportedPattern, at: binding.pattern)
                }
                // `Codable` leaves out a constant that already has its value.
                if isLet && binding.initializer != nil { continue }
                if variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.lazy) }) {
                    throw error(.lazyProperty, at: variable)
                }
                if !variable.attributes.isEmpty { throw error(.propertyWrapper, at: variable.attributes) }
                guard let type = binding.typeAnnotation?.type ?? variable.bindings.last?.typeAnnotation?.type else {
                    throw error(.missingTypeAnnotation, at: binding.pattern)
                }
                let name = identifier.identifier.text.filter { $0 != "`" }
                stored.append(Field(name: name, key: name, type: type.trimmed, wrapped: wrappedType(of: type)))
            }
        }
        guard let codingKeys = try codingKeys(in: members, numbered: numbered) else {
            if numbered { throw error(.numberedWithoutKeys, at: attribute) }
            return stored
        }
        // With `CodingKeys`, only its cases are encoded, in its order, under its strings.
        return codingKeys.compactMap { name, key, number in
            guard var field = stored.first(where: { $0.name == name }) else { return nil }
            field.key = key
            field.number = number
            return field
        }
    }

    private static func isComputed(_ accessors: AccessorBlockSyntax) -> Bool {
        switch accessors.accessors {
        case .getter:
            return true
        case .accessors(let list):
            return list.contains { [.keyword(.get), .keyword(.set), .keyword(._read), .keyword(._modify)].contains($0.accessorSpecifier.tokenKind) }
        }
    }

    /// The wrapped type of `T?`, `T!` and `Optional<T>`.
    private static func wrappedType(of type: TypeSyntax) -> TypeSyntax? {
        if let optional = type.as(OptionalTypeSyntax.self) { return optional.wrappedType.trimmed }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return unwrapped.wrappedType.trimmed }
        if let named = type.as(IdentifierTypeSyntax.self), named.name.text == "Optional",
           let argument = named.genericArgumentClause?.arguments.first, named.genericArgumentClause?.arguments.count == 1 {
            return TypeSyntax(argument.argument.as(TypeSyntax.self))?.trimmed
        }
        return nil
    }

    /// The cases of a nested `CodingKeys` enum, each with its string (the raw value when the
    /// enum's raw type is `String`, else the case name: a `CodingKey`'s `stringValue`) and, when
    /// the raw type is `Int`, its number (the raw value, written or implicit: a `CodingKey`'s
    /// `intValue`).
    /// - Throws: for the numbered layout, when the enum is not `Int`, a case has no number
    ///   written out, or two cases share one.
    private static func codingKeys(in members: MemberBlockSyntax, numbered: Bool) throws -> [(name: String, key: String, number: Int?)]? {
        for member in members.members {
            guard let keys = member.decl.as(EnumDeclSyntax.self), keys.name.text == "CodingKeys" else { continue }
            let rawType = keys.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription
            let isString = rawType == "String"
            let isInt = rawType == "Int"
            if numbered && !isInt { throw error(.numberedWithoutKeys, at: keys.name) }
            var result: [(String, String, Int?)] = []
            var nextNumber = 0
            var used: Set<Int> = []
            for caseMember in keys.memberBlock.members {
                guard let caseDecl = caseMember.decl.as(EnumCaseDeclSyntax.self) else { continue }
                for element in caseDecl.elements {
                    let name = element.name.text.filter { $0 != "`" }
                    var key = name
                    var number: Int?
                    if isString, let literal = element.rawValue?.value.as(StringLiteralExprSyntax.self),
                       let text = literal.representedLiteralValue {
                        key = text
                    }
                    if isInt {
                        if let value = element.rawValue?.value {
                            guard let written = integer(value) else { throw error(.unreadableFieldNumber, at: value) }
                            number = written
                        } else {
                            if numbered { throw error(.implicitFieldNumber, at: element) }
                            number = nextNumber
                        }
                        if numbered && !used.insert(number!).inserted { throw error(.duplicateFieldNumber, at: element) }
                        nextNumber = number! &+ 1
                    }
                    result.append((name, key, number))
                }
            }
            return result
        }
        return nil
    }

    /// The value of an integer literal (`7`, `-3`, `0x1F`, `1_000`), or nil for anything else.
    private static func integer(_ expression: ExprSyntax) -> Int? {
        var negative = false
        var expression = expression
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            negative = true
            expression = prefix.expression
        }
        guard let literal = expression.as(IntegerLiteralExprSyntax.self) else { return nil }
        var text = literal.literal.text.filter { $0 != "_" }
        var radix = 10
        for (prefix, base) in [("0x", 16), ("0o", 8), ("0b", 2)] where text.hasPrefix(prefix) {
            text.removeFirst(2)
            radix = base
        }
        guard let magnitude = Int(text, radix: radix) else { return nil }
        return negative ? -magnitude : magnitude
    }

    // MARK: Refusals

    private static func refuseCustomCoding(_ members: MemberBlockSyntax) throws {
        for member in members.members {
            if let initializer = member.decl.as(InitializerDeclSyntax.self),
               initializer.signature.parameterClause.parameters.map({ $0.firstName.text }) == ["from"] {
                throw error(.customCoding, at: initializer)
            }
            if let function = member.decl.as(FunctionDeclSyntax.self), function.name.text == "encode",
               function.signature.parameterClause.parameters.map({ $0.firstName.text }) == ["to"] {
                throw error(.customCoding, at: function)
            }
        }
    }

    private static let rawTypes: Set<String> = [
        "String", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double", "Float",
    ]

    private static func hasRawType(_ enumeration: EnumDeclSyntax) -> Bool {
        guard let first = enumeration.inheritanceClause?.inheritedTypes.first else { return false }
        return rawTypes.contains(first.type.trimmedDescription)
    }

    private static func access(of modifiers: DeclModifierListSyntax) -> String {
        for modifier in modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }

    private static func error(_ message: ArchivedDiagnostic, at node: some SyntaxProtocol) -> DiagnosticsError {
        DiagnosticsError(diagnostics: [Diagnostic(node: Syntax(node), message: message)])
    }
}
#endif
