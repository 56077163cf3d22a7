#if Extras
import LarderMacrosExpansion
import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

/// The compiler plugin that expands Larder's macros.
@main
struct LarderMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [ArchivedMacro.self]
}

/// `@Archived`, under the name `#externalMacro` gives it (`LarderMacrosPlugin.ArchivedMacro`):
/// the expansion itself is `LarderMacrosExpansion.ArchivedMacro`, in a library target, so that
/// the tests depend on that library and not on this macro target (a test target that depends on
/// a macro target is built, with everything it links, for the host as well as for the target:
/// the package's libraries and their dependencies were compiled twice).
public struct ArchivedMacro: ExtensionMacro, MemberMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        try LarderMacrosExpansion.ArchivedMacro.expansion(
            of: node, attachedTo: declaration, providingExtensionsOf: type, conformingTo: protocols, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try LarderMacrosExpansion.ArchivedMacro.expansion(of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
    }
}
#endif
