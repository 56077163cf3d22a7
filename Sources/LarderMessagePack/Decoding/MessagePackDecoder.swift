#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes `Decodable` values from MessagePack written by `MessagePackEncoder`
/// or by any other MessagePack implementation (the format rules are described
/// on `MessagePackEncoder`).
///
/// The input is read in place and every byte of it is checked before
/// `decode` returns: every length against the bytes that remain, the nesting
/// depth against a limit of 512 containers, and the end of the top-level value
/// against the end of the input. A small top-level map (the usual stored value)
/// is read in one pass: its keys are matched where they stand, in the order the
/// type asks for them, and each value is checked by the read that decodes it;
/// the entries nobody read are checked at the end. Anything else is checked
/// completely before any value is built. A malformed input is refused as
/// malformed, with the first problem in it, whatever the type read first; a
/// type's `init(from:)` may have started before that problem was found. The
/// decoding state is reused from one call to the next (see
/// `MessagePackObjectPool`), so a flat keyed value costs no allocation beyond
/// its own strings and arrays; each nested keyed container still costs one. No
/// input can make it read out of bounds, and decoding time grows at most as
/// n log n with the input size whatever its shape.
///
/// Only a recursive type (one that holds values of its own type) can recurse
/// as deep as the input nests, through its own `init(from:)`: about 2 KB of
/// stack a level, so roughly 1 MB at the 512-level limit, well within the 8 MB
/// of a Linux thread but more than a 512 KiB thread offers. That recursion is
/// the type's, so the decoder cannot turn it into a loop; instead, from 24
/// levels on, it checks the stack the thread has left before each level and
/// throws `DecodingError.dataCorrupted` when less than 64 KiB would remain: on
/// a thread with a small stack a deep value is an error to retry on a larger
/// one, never a crash.
public struct MessagePackDecoder: Sendable {
    /// Passed to every `init(from:)` call as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates a decoder with empty `userInfo`.
    public init() {}

    /// Decodes a value of `type` from memory the decoder does not own (for
    /// example an LMDB memory map). The pointer is not retained after the call
    /// returns; `Data` and `String` results are copies.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - bytes: Exactly one MessagePack value.
    /// - Returns: The decoded value.
    /// - Throws: `DecodingError.dataCorrupted` for malformed or truncated input,
    ///   trailing bytes, invalid UTF-8, nesting deeper than 512 (or deeper than
    ///   the thread's stack leaves room for, see above) or numbers that do
    ///   not fit the requested type; `DecodingError.typeMismatch`,
    ///   `.valueNotFound` or `.keyNotFound` when the input does not match `type`;
    ///   and any error thrown by the type's own `init(from:)`.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        // Big inputs get a table of container ends so that no nesting can make
        // decoding walk the same bytes over and over (see MessagePackContainerSpan).
        var spans: [MessagePackContainerSpan]? = bytes.count >= MessagePackContainerSpan.inputThreshold ? [] : nil
        // Decoders with `userInfo` are rare and get an object of their own; the
        // rest reuse one, with its scratch memory (see MessagePackObjectPool).
        let pooled = userInfo.isEmpty
        var decoder: MessagePackBufferDecoder
        if pooled, let idle = MessagePackBufferDecoder.pool.take() {
            idle.reuse(bytes: bytes)
            decoder = idle
        } else {
            decoder = MessagePackBufferDecoder(bytes: bytes, userInfo: userInfo, spans: [])
        }
        defer {
            decoder.invalidate()
            if pooled && decoder.keptEntryCapacity <= MessagePackBufferDecoder.maximumKeptEntries {
                MessagePackBufferDecoder.pool.recycle(&decoder)
            }
        }
        try decoder.prepare(spans: &spans)
        do {
            let value = try decoder.decodeTopLevel(type)
            try decoder.finishTopLevelMap()
            return value
        } catch {
            // Whatever failed first, a malformed input is reported as malformed.
            try decoder.reportMalformedInput()
            throw error
        }
    }

    /// Decodes a value of `type` from a byte array.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - bytes: Exactly one MessagePack value.
    /// - Returns: The decoded value.
    /// - Throws: The same errors as `decode(_:from:)` with a raw buffer.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try bytes.withUnsafeBytes { try decode(type, from: $0) }
    }
}
