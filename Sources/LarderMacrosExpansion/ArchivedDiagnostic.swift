#if Extras
import SwiftDiagnostics

/// Why `@Archived` refuses a declaration.
enum ArchivedDiagnostic: String, DiagnosticMessage {
    case notAType
    case nonFinalClass
    case enumWithoutRawType
    case customCoding
    case missingTypeAnnotation
    case lazyProperty
    case propertyWrapper
    case unsupportedPattern
    case unknownLayout
    case numberedEnum
    case numberedWithoutKeys
    case implicitFieldNumber
    case duplicateFieldNumber
    case unreadableFieldNumber

    var message: String {
        switch self {
        case .notAType:
            return "@Archived applies to a struct, a final class or an enum with a raw type"
        case .nonFinalClass:
            return "@Archived needs a final class: a subclass's own properties would be lost"
        case .enumWithoutRawType:
            return "@Archived applies to an enum only when it has a raw type (String or a number); archive other enums through Codable"
        case .customCoding:
            return "@Archived cannot know the form a hand-written init(from:) or encode(to:) gives the type; remove one or the other"
        case .missingTypeAnnotation:
            return "@Archived needs the type of each stored property written out"
        case .lazyProperty:
            return "@Archived does not support lazy properties"
        case .propertyWrapper:
            return "@Archived does not support property wrappers; archive this type through Codable"
        case .unsupportedPattern:
            return "@Archived needs one stored property per name (no tuple patterns)"
        case .unknownLayout:
            return "@Archived's layout is .named or .numbered"
        case .numberedEnum:
            return "@Archived(layout: .numbered) applies to structs and final classes; an enum is stored as its raw value"
        case .numberedWithoutKeys:
            return "@Archived(layout: .numbered) needs the fields' numbers: declare `enum CodingKeys: Int, CodingKey` with a number written out for each case"
        case .implicitFieldNumber:
            return "@Archived(layout: .numbered) needs this case's number written out (`case name = 1`): an implicit number changes when cases move"
        case .duplicateFieldNumber:
            return "@Archived(layout: .numbered) needs a different number for each field"
        case .unreadableFieldNumber:
            return "@Archived reads a field's number from an integer literal"
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "LarderMacros", id: rawValue) }
    var severity: DiagnosticSeverity { .error }
}
#endif
