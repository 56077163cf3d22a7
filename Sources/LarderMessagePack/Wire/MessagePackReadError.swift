#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A low-level failure found while reading MessagePack bytes.
///
/// The reader does not know the coding path or the Swift type being decoded,
/// so it reports this small value (cheap to throw with typed throws) and the
/// decoding containers turn it into a `DecodingError` with full context.
package enum MessagePackReadError: Error {
    /// A value, length or payload runs past the end of the input.
    case truncated(offset: Int)
    /// The value at `offset` starts with `found`, which is not the expected kind.
    case typeMismatch(found: UInt8, offset: Int)
    /// The never-used format byte 0xc1.
    case reservedByte(offset: Int)
    /// A str payload that is not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// A number that exists but cannot be represented by the requested type.
    case numberOutOfRange(String, offset: Int)
    /// More nested containers than `MessagePackReader.maximumDepth`.
    case depthLimitExceeded(offset: Int)
    /// An extension value that is not a well-formed timestamp.
    case invalidTimestamp(String, offset: Int)
    /// A map key that is neither a string nor an integer.
    case unsupportedKey(found: UInt8, offset: Int)
    /// A payload that could not be converted (for example a malformed URL string).
    case invalidValue(String, offset: Int)
    /// A failure inside element `index` of an array decoded in one go; keeps the
    /// element's index and type for the coding path and message.
    indirect case element(index: Int, type: Any.Type, underlying: MessagePackReadError)
    /// A scalar kind this platform cannot decode (Int128 before it existed);
    /// unreachable in practice because such a kind is never classified.
    case unsupportedOnThisPlatform

    /// The byte offset the failure names (for an array element's failure, the element's).
    package var offset: Int {
        switch self {
        case .truncated(let offset), .typeMismatch(_, let offset), .reservedByte(let offset), .invalidUTF8(let offset),
             .numberOutOfRange(_, let offset), .depthLimitExceeded(let offset), .invalidTimestamp(_, let offset),
             .unsupportedKey(_, let offset), .invalidValue(_, let offset):
            return offset
        case .element(_, _, let underlying):
            return underlying.offset
        case .unsupportedOnThisPlatform:
            return 0
        }
    }

    /// Wraps the failure in the `DecodingError` case Swift's own decoders would use.
    package func decodingError(expecting type: Any.Type, codingPath: [any CodingKey]) -> DecodingError {
        switch self {
        case .element(let index, let elementType, let underlying):
            return underlying.decodingError(expecting: elementType, codingPath: codingPath + [MessagePackCodingKey(index: index)])
        case .typeMismatch(let found, _) where found == MessagePackFormat.nil:
            return .valueNotFound(type, DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "Expected \(type) value but found nil instead."))
        case .typeMismatch(let found, let offset):
            return .typeMismatch(type, DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "Expected to decode \(type) but found \(MessagePackFormat.describe(found)) (format byte 0x\(String(found, radix: 16))) at offset \(offset) instead."))
        default:
            return .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: message, underlyingError: nestingLimit))
        }
    }

    /// The nesting limit this failure is, for a coding error's `underlyingError`; `nil` for others.
    package var nestingLimit: MessagePackNestingLimit? {
        switch self {
        case .depthLimitExceeded: MessagePackNestingLimit(.depth, message)
        case .element(_, _, let underlying): underlying.nestingLimit
        default: nil
        }
    }

    package var message: String {
        switch self {
        case .truncated(let offset):
            return "Unexpected end of MessagePack data: a value starting at or before offset \(offset) needs more bytes than remain."
        case .typeMismatch(let found, let offset):
            return "Unexpected \(MessagePackFormat.describe(found)) at offset \(offset)."
        case .reservedByte(let offset):
            return "Invalid MessagePack: the reserved format byte 0xc1 at offset \(offset)."
        case .invalidUTF8(let offset):
            return "The string at offset \(offset) is not valid UTF-8."
        case .numberOutOfRange(let text, let offset):
            return "\(text) (at offset \(offset))."
        case .depthLimitExceeded(let offset):
            return "MessagePack data is nested more than \(MessagePackReader.maximumDepth) containers deep (at offset \(offset))."
        case .invalidTimestamp(let text, let offset):
            return "Invalid timestamp at offset \(offset): \(text)."
        case .unsupportedKey(let found, let offset):
            return "Map key at offset \(offset) is \(MessagePackFormat.describe(found)); only string and integer keys can be decoded by a keyed container."
        case .invalidValue(let text, let offset):
            return "\(text) (at offset \(offset))."
        case .element(let index, _, let underlying):
            return "Element \(index): \(underlying.message)"
        case .unsupportedOnThisPlatform:
            return "This platform cannot decode the requested integer type."
        }
    }
}
