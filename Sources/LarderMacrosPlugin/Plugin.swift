import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that expands Larder's macros.
@main
struct LarderMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [ArchivedMacro.self]
}
