#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a value was refused for how deep it nests: the error under a `DecodingError` or an
/// `EncodingError` (its context's `underlyingError`) when a value nests deeper than the coders go,
/// ``maximumDepth`` containers, or when one level more would leave the thread too little stack.
///
/// The two directions agree: ``MessagePackEncoder`` refuses to write what ``MessagePackDecoder``
/// and the reader would refuse to read, so a value that encodes also decodes. A program tells
/// this refusal from "the bytes are not that type" with ``isNestingLimit(_:)``.
public struct MessagePackNestingLimit: Error, Sendable, CustomStringConvertible {
    /// How deep containers may nest, in the bytes and in the values the coders build: 512.
    public static let maximumDepth = MessagePackReader.maximumDepth

    /// Which limit was met.
    public enum Kind: Sendable, Hashable {
        /// More than ``MessagePackNestingLimit/maximumDepth`` nested containers or values.
        case depth
        /// The thread's stack has too little left for one level more (a thread with a small
        /// stack, such as a 512 KiB secondary thread): the value may go on another thread.
        case stack
    }

    /// Which limit was met.
    public let kind: Kind
    /// What was refused, in words.
    public let description: String

    /// A refusal of `kind`, said in `description`.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// The nesting limit `error` is, or carries as the underlying error of a `DecodingError` or
    /// an `EncodingError` (at any depth); `nil` when it is another failure.
    public static func find(in error: any Error) -> MessagePackNestingLimit? {
        var current: (any Error)? = error
        for _ in 0..<16 {
            guard let error = current else { return nil }
            if let limit = error as? MessagePackNestingLimit { return limit }
            switch error {
            case let decoding as DecodingError:
                switch decoding {
                case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
                    current = context.underlyingError
                @unknown default:
                    return nil
                }
            case let encoding as EncodingError:
                switch encoding {
                case .invalidValue(_, let context):
                    current = context.underlyingError
                @unknown default:
                    return nil
                }
            default:
                return nil
            }
        }
        return nil
    }

    /// Whether `error` is, or carries, a nesting limit (see ``find(in:)``).
    public static func isNestingLimit(_ error: any Error) -> Bool {
        find(in: error) != nil
    }
}
