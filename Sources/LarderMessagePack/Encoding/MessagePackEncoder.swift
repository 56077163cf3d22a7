#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes `Encodable` values as MessagePack.
///
/// Values are written in a single pass straight into one byte array. Code that
/// writes to containers out of order (for example alternating between two nested
/// containers) is still encoded correctly, by a slower tree-building path.
///
/// ## Wire format
///
/// Larder stores `Codable` values as MessagePack (https://github.com/msgpack/msgpack/blob/master/spec.md)
/// so that other languages can read them. `MessagePackEncoder` and
/// `MessagePackDecoder` agree on these rules:
///
/// * Smallest representation, always. Integers are written by value, not by Swift
///   type: 0...127 positive fixint, -32...-1 negative fixint, other non-negative
///   values uint8/16/32/64, other negative values int8/16/32/64 (an `Int64` of 5 is
///   the single byte 0x05). Strings use fixstr/str8/str16/str32, `Data` uses
///   bin8/16/32, arrays fixarray/array16/array32, maps fixmap/map16/map32.
/// * `Float` is float32 and `Double` is float64, bit for bit (NaN payloads,
///   ±infinity and -0.0 survive).
/// * Keyed containers become maps whose keys are always strings (the CodingKey's
///   `stringValue`, so `[Int: V]` is written with keys "1", "2", ...), in the order
///   the value encoded them. Unkeyed containers become arrays. `encodeNil` writes
///   nil; `encodeIfPresent(nil)` omits the key. A value that encodes nothing at all
///   becomes an empty map. `superEncoder()` writes under the key "super".
/// * `Data` is bin; `Date` is the timestamp extension (type -1) in the smallest of
///   timestamp32 (whole seconds in 0..<2^32), timestamp64 (seconds in 0..<2^34) or
///   timestamp96 (anything else, including dates before 1970), with nanosecond
///   precision; `URL` is a str of its `absoluteString`; `Decimal` is a str of its
///   `description`; `UUID` keeps its own Codable form, a str. These apply wherever
///   the value appears, not only at the top level.
/// * Decoding is lenient only where nothing is lost: any MessagePack integer
///   decodes into any Swift integer type that can hold it, an integer decodes into
///   `Double`/`Float` when exactly representable, float32 widens to `Double`,
///   float64 narrows to `Float` when exact, and keyed containers accept integer map
///   keys (as written by other languages) and match them by their decimal string.
/// * The decoder rejects trailing bytes after the top-level value, the reserved
///   byte 0xc1, invalid UTF-8 in strings, lengths that run past the input, and
///   nesting deeper than 512 containers. When a map repeats a key, which of the
///   duplicates a keyed container reads is unspecified.
public struct MessagePackEncoder: Sendable {
    /// Passed to every `encode(to:)` call as `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder with empty `userInfo`.
    public init() {}

    /// Encodes `value` as MessagePack.
    ///
    /// - Parameter value: The value to encode.
    /// - Returns: The encoded bytes.
    /// - Throws: `EncodingError.invalidValue` when a value has no MessagePack
    ///   form (a non-finite `Date`, an `Int128` beyond 64 bits, a string, data or
    ///   container over 2^32-1 long, or containers misused), and any error the
    ///   value's own `encode(to:)` throws.
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        try encode(value, into: &bytes)
        return bytes
    }

    /// Appends the MessagePack encoding of `value` to `buffer`.
    ///
    /// On failure `buffer` is left as it was.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - buffer: Bytes to append to; existing content is kept.
    /// - Throws: The same errors as `encode(_:)`.
    public func encode<T: Encodable>(_ value: T, into buffer: inout [UInt8]) throws {
        try encode(value, into: &buffer, depth: 0)
    }

    /// Appends the MessagePack encoding of `value`, which sits `depth` containers deep in the
    /// bytes around it (a property of a generated archiver's value): the nesting limit counts
    /// them, as a reader of the whole value does.
    package func encode<T: Encodable>(_ value: T, into buffer: inout [UInt8], depth: Int) throws {
        let originalCount = buffer.count
        // Move the caller's array into the encoder so it stays uniquely referenced
        // and appends never copy it.
        var taken: [UInt8] = []
        swap(&taken, &buffer)
        // Encoders with `userInfo` are rare and get an object of their own; the
        // rest reuse one with its frame stack (see MessagePackObjectPool).
        let pooled = userInfo.isEmpty
        var stream: MessagePackStreamEncoder
        if pooled, let idle = MessagePackStreamEncoder.pool.take() {
            idle.reuse(buffer: &taken)
            stream = idle
        } else {
            stream = MessagePackStreamEncoder(buffer: taken, userInfo: userInfo)
        }
        stream.setBaseDepth(depth)
        var streamError: (any Error)?
        do {
            try stream.encodeTopLevel(value)
        } catch {
            streamError = error
        }
        buffer = stream.takeBytes()
        let needsFallback = stream.needsFallback
        if pooled { MessagePackStreamEncoder.pool.recycle(&stream) }
        if !needsFallback {
            if let streamError {
                buffer.removeSubrange(originalCount...)
                throw streamError
            }
            return
        }
        buffer.removeSubrange(originalCount...)
        try MessagePackTreeEncoder.encode(value, userInfo: userInfo, depth: depth, appendingTo: &buffer)
    }
}
