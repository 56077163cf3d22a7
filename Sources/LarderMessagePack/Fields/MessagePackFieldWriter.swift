#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Appends MessagePack for generated archivers (`@Archived` of `LarderMacros`), in exactly the forms
/// ``MessagePackEncoder`` writes: the same smallest headers, scalar forms and key strings.
///
/// Generated `writeMessagePack(to:)` methods open a map with ``beginMap(count:)`` and write each
/// property with `write(_:forKey:)` or `writeIfPresent(_:forKey:)`; the overloads for
/// ``MessagePackField`` values call their generated or built-in code, the others encode that one
/// value through `Codable`.
public struct MessagePackFieldWriter {
    var writer: MessagePackWriter
    /// How many values ``writeNested(_:)`` has open: a value below the top one is refused past
    /// what the reader reads (`MessagePackReader.maximumDepth` containers), as
    /// ``MessagePackEncoder`` refuses it, so that a recursive type cannot write what no reader
    /// takes back, nor exhaust the stack.
    @usableFromInline var depth = 0
    private var stackBounds: MessagePackStackCheck.Bounds??

    /// A writer that appends to `bytes`.
    package init(bytes: [UInt8]) {
        writer = MessagePackWriter(bytes: bytes)
    }

    /// What was written (moved in and out by the archiver, so that appends never copy).
    package var bytes: [UInt8] {
        get { writer.bytes }
        _modify { yield &writer.bytes }
    }

    // MARK: Maps, for generated code

    /// Writes the header of a map of `count` entries.
    /// - Throws: `EncodingError.invalidValue` past 2^32-1 entries.
    public mutating func beginMap(count: Int) throws {
        guard writer.writeMapHeader(count) else { throw Self.tooLong("A map with \(count) entries") }
    }

    /// Writes `key` and then `value` through its ``MessagePackField`` conformance.
    /// - Throws: what the value's `writeMessagePack(to:)` throws.
    @inlinable
    public mutating func write<T: MessagePackField>(_ value: T, forKey key: StaticString) throws {
        try writeKey(key)
        try writeNested(value)
    }

    /// Writes `value`, a value inside the one being written (a property's, an array's element),
    /// counting how deep values nest.
    /// - Throws: `EncodingError.invalidValue` carrying a ``MessagePackNestingLimit`` when the
    ///   value would nest past what the reader reads, or leave the thread too little stack;
    ///   what the value's `writeMessagePack(to:)` throws.
    @inlinable
    public mutating func writeNested<T: MessagePackField>(_ value: T) throws {
        if depth >= Self.checkedDepth { try checkNesting(T.self) }
        depth += 1
        defer { depth -= 1 }
        try value.writeMessagePack(to: &self)
    }

    /// The nesting from which each nested value checks the limits (`MessagePackStackCheck`'s).
    @usableFromInline static let checkedDepth = MessagePackStackCheck.checkedDepth

    /// Throws when one value more would nest past the reader's limit or the stack's reserve.
    @usableFromInline
    mutating func checkNesting<T>(_ type: T.Type) throws {
        if depth + 1 >= MessagePackReader.maximumDepth {
            let limit = MessagePackNestingLimit(.depth, "Writing \(T.self) would nest more than \(MessagePackReader.maximumDepth) containers deep, which no MessagePack reader of Larder reads back.")
            throw EncodingError.invalidValue(T.self, EncodingError.Context(codingPath: [], debugDescription: limit.description, underlyingError: limit))
        }
        if stackBounds == nil { stackBounds = .some(MessagePackStackCheck.currentBounds()) }
        guard let bounds = stackBounds ?? nil, let left = MessagePackStackCheck.left(in: bounds), left < MessagePackStackCheck.reserve else { return }
        let limit = MessagePackNestingLimit(.stack, "Writing \(T.self) \(depth + 1) levels deep would leave less than \(MessagePackStackCheck.reserve / 1024) KiB of the \((bounds.highest - bounds.lowest) / 1024) KiB stack of this thread; write it on a thread with a larger stack.")
        throw EncodingError.invalidValue(T.self, EncodingError.Context(codingPath: [], debugDescription: limit.description, underlyingError: limit))
    }

    /// Writes `key` and then `value` through its `Encodable` conformance (``MessagePackEncoder``).
    /// - Throws: what ``MessagePackEncoder/encode(_:into:)`` throws.
    public mutating func write<T: Encodable>(_ value: T, forKey key: StaticString) throws {
        try writeKey(key)
        try MessagePackEncoder().encode(value, into: &writer.bytes, depth: depth + 1)
    }

    /// Writes `value` alone, through its ``MessagePackField`` conformance (a raw-value enum's raw
    /// value, say).
    /// - Throws: what the value's `writeMessagePack(to:)` throws.
    public mutating func writeValue<T: MessagePackField>(_ value: T) throws {
        try value.writeMessagePack(to: &self)
    }

    /// Writes `key` and the value when `value` is not nil; writes nothing when it is (as the
    /// synthesized `encodeIfPresent` of an optional property does).
    /// - Throws: what the value's `writeMessagePack(to:)` throws.
    public mutating func writeIfPresent<T: MessagePackField>(_ value: T?, forKey key: StaticString) throws {
        guard let value else { return }
        try write(value, forKey: key)
    }

    /// Writes `key` and the value through `Encodable` when `value` is not nil; nothing when it is.
    /// - Throws: what ``MessagePackEncoder/encode(_:into:)`` throws.
    public mutating func writeIfPresent<T: Encodable>(_ value: T?, forKey key: StaticString) throws {
        guard let value else { return }
        try write(value, forKey: key)
    }

    /// Writes the field number `number` and then `value`, in the numbered layout
    /// (`@Archived(layout: .numbered)`): the key is the integer, in its smallest form (one byte
    /// from 0 to 127).
    /// - Throws: what the value's `writeMessagePack(to:)` throws.
    @inlinable
    public mutating func write<T: MessagePackField>(_ value: T, field number: Int) throws {
        writeSigned(Int64(number))
        try writeNested(value)
    }

    /// Writes the field number `number` and then `value` through its `Encodable` conformance.
    /// - Throws: what ``MessagePackEncoder/encode(_:into:)`` throws.
    public mutating func write<T: Encodable>(_ value: T, field number: Int) throws {
        writeSigned(Int64(number))
        try MessagePackEncoder().encode(value, into: &writer.bytes, depth: depth + 1)
    }

    /// Writes the field number and the value when `value` is not nil; nothing when it is.
    /// - Throws: what the value's `writeMessagePack(to:)` throws.
    public mutating func writeIfPresent<T: MessagePackField>(_ value: T?, field number: Int) throws {
        guard let value else { return }
        try write(value, field: number)
    }

    /// Writes the field number and the value through `Encodable` when `value` is not nil.
    /// - Throws: what ``MessagePackEncoder/encode(_:into:)`` throws.
    public mutating func writeIfPresent<T: Encodable>(_ value: T?, field number: Int) throws {
        guard let value else { return }
        try write(value, field: number)
    }

    /// Writes `key` as a str, as a map's key; the value comes next.
    /// - Throws: `EncodingError.invalidValue` when the key has no MessagePack form.
    @usableFromInline
    package mutating func writeKey(_ key: StaticString) throws {
        guard key.hasPointerRepresentation else {
            try writeString(String(key.unicodeScalar))
            return
        }
        let length = key.utf8CodeUnitCount
        guard writer.writeString(utf8: UnsafeRawPointer(key.utf8Start), length: length) else {
            throw Self.tooLong("A key of \(length) bytes")
        }
    }

    // MARK: Scalars, for MessagePackField conformances

    /// Writes nil.
    public mutating func writeNil() { writer.writeNil() }

    /// Writes true or false.
    public mutating func writeBool(_ value: Bool) { writer.writeBool(value) }

    /// Writes an integer in its smallest form.
    public mutating func writeSigned(_ value: Int64) { writer.writeInt(value) }

    /// Writes a non-negative integer in its smallest form.
    public mutating func writeUnsigned(_ value: UInt64) { writer.writeUInt(value) }

    /// Writes a float64.
    public mutating func writeDouble(_ value: Double) { writer.writeDouble(value) }

    /// Writes a float32.
    public mutating func writeFloat(_ value: Float) { writer.writeFloat(value) }

    /// Writes a str.
    /// - Throws: `EncodingError.invalidValue` past 2^32-1 bytes of UTF-8.
    public mutating func writeString(_ value: String) throws {
        guard writer.writeString(value) else { throw Self.tooLong("A string of \(value.utf8.count) bytes") }
    }

    /// Writes a bin.
    /// - Throws: `EncodingError.invalidValue` past 2^32-1 bytes.
    public mutating func writeData(_ value: Data) throws {
        guard value.withUnsafeBytes({ writer.writeBinary($0) }) else { throw Self.tooLong("Data of \(value.count) bytes") }
    }

    /// Writes the timestamp extension (type -1) in its smallest layout.
    /// - Throws: `EncodingError.invalidValue` for a date no timestamp holds (not finite).
    public mutating func writeDate(_ value: Date) throws {
        guard let (seconds, nanoseconds) = MessagePackTimestamp.components(of: value) else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [],
                debugDescription: "Date with timeIntervalSinceReferenceDate \(value.timeIntervalSinceReferenceDate) cannot be represented as a MessagePack timestamp."))
        }
        writer.writeTimestamp(seconds: seconds, nanoseconds: nanoseconds)
    }

    /// Writes the header of an array of `count` elements.
    /// - Throws: `EncodingError.invalidValue` past 2^32-1 elements.
    public mutating func writeArrayHeader(_ count: Int) throws {
        guard writer.writeArrayHeader(count) else { throw Self.tooLong("An array with \(count) elements") }
    }

    private static func tooLong(_ what: String) -> EncodingError {
        EncodingError.invalidValue(what, EncodingError.Context(
            codingPath: [], debugDescription: "\(what) exceeds the MessagePack limit of 4294967295."))
    }
}
