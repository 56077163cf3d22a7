#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads MessagePack for generated archivers (`@Archived` of `LarderMacros`), accepting what
/// ``MessagePackDecoder`` accepts: any integer form that fits, integer map keys matched by their
/// decimal string or by a field's number (``keyIs(field:)``), unknown keys skipped.
///
/// A reader walks the bytes once, as the generated code reads them, and refuses exactly what
/// ``MessagePackDecoder`` refuses: every read checks its bounds and the kind of what it finds,
/// containers nest at most 512 deep (counted as the value is read), values the type does not
/// know are checked whole as they are skipped (bounds, the reserved byte, nesting), and
/// `finish()` refuses bytes after the value. Where an input has several problems, the one
/// met first is the one reported.
public struct MessagePackFieldReader {
    let reader: MessagePackReader
    var offset: Int
    /// Containers open above the current position. `beginMap(of:)` and `readArrayHeader()` count
    /// one up; whoever reads a nested value puts the count back when it returns (see
    /// `read(_:forKey:)`), so the count follows the nesting without an end-of-container call.
    @usableFromInline var depth = 0
    /// The key `readKey()` read last: a string's payload (start and length), or an integer
    /// (`keyIsInteger`; its value in `integerKey`, or in `largeIntegerKey` above `Int64.max`).
    /// Usable from inline so that `keyIs(_:)` compiles into the generated code.
    @usableFromInline var keyStart: UnsafeRawPointer?
    @usableFromInline var keyLength = 0
    @usableFromInline var keyIsInteger = false
    @usableFromInline var integerKey: Int64 = 0
    var largeIntegerKey: UInt64?

    /// A reader of `bytes`, which should hold exactly one value (`finish()` checks the end).
    package init(bytes: UnsafeRawBufferPointer) {
        reader = MessagePackReader(bytes: bytes)
        offset = 0
    }

    /// Checks that the value read ends where the bytes end.
    /// - Throws: `DecodingError.dataCorrupted` for bytes after the value (the error
    ///   ``MessagePackDecoder`` throws for them).
    package func finish() throws {
        let count = reader.bytes.count
        guard offset == count else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [],
                debugDescription: "Found \(count - offset) unexpected bytes after the top-level MessagePack value, which ends at offset \(offset)."))
        }
    }

    /// Reads a container's header with `readHeader` and counts one more open container,
    /// refusing the 513th; on failure the position stays before the header.
    @inline(__always)
    private mutating func openContainer(
        expecting type: Any.Type, _ readHeader: (MessagePackReader, inout Int) throws(MessagePackReadError) -> Int
    ) throws -> Int {
        let start = offset
        do throws(MessagePackReadError) {
            let count = try readHeader(reader, &offset)
            guard depth < MessagePackReader.maximumDepth else { throw .depthLimitExceeded(offset: start) }
            depth += 1
            return count
        } catch {
            offset = start
            throw error.decodingError(expecting: type, codingPath: [])
        }
    }

    // MARK: Maps, for generated code

    /// Reads a map header and returns its entry count.
    /// - Throws: `DecodingError.typeMismatch` when the value is not a map.
    public mutating func beginMap(of type: Any.Type) throws -> Int {
        try openContainer(expecting: type) { reader, offset throws(MessagePackReadError) in try reader.readMapHeader(at: &offset) }
    }

    /// Reads the next entry's key; ``keyIs(_:)`` then compares it.
    /// - Throws: `DecodingError.dataCorrupted` for a key that is neither a string nor an integer.
    public mutating func readKey() throws {
        let start = offset
        do throws(MessagePackReadError) {
            let format = try reader.byte(at: start)
            switch format {
            case 0xa0...0xbf, MessagePackFormat.str8, MessagePackFormat.str16, MessagePackFormat.str32:
                let range = try reader.readStringRange(at: &offset)
                keyStart = reader.bytes.baseAddress.map { $0 + range.start }
                keyLength = range.length
                keyIsInteger = false
            default:
                let integer: MessagePackInteger
                do throws(MessagePackReadError) {
                    integer = try reader.readInteger(at: &offset)
                } catch {
                    throw .unsupportedKey(found: format, offset: start)
                }
                keyIsInteger = true
                switch integer {
                case .negative(let value):
                    integerKey = value
                    largeIntegerKey = nil
                case .nonNegative(let value):
                    integerKey = Int64(truncatingIfNeeded: value)
                    largeIntegerKey = value > UInt64(Int64.max) ? value : nil
                }
            }
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: error.message))
        }
    }

    /// Whether the key ``readKey()`` read is `key`.
    @inlinable
    public func keyIs(_ key: StaticString) -> Bool {
        guard key.hasPointerRepresentation, !keyIsInteger else { return slowKeyIs(key) }
        let length = key.utf8CodeUnitCount
        guard length == keyLength else { return false }
        guard let stored = keyStart else { return length == 0 }
        let expected = key.utf8Start
        var index = 0
        while index < length {
            if stored.load(fromByteOffset: index, as: UInt8.self) != expected[index] { return false }
            index += 1
        }
        return true
    }

    /// `keyIs(_:)` for an integer key (matched by its decimal string, as ``MessagePackDecoder``
    /// matches it) or a one-scalar `StaticString`.
    @usableFromInline
    func slowKeyIs(_ key: StaticString) -> Bool {
        let text = key.description
        if keyIsInteger { return text == largeIntegerKey.map { String($0) } ?? String(integerKey) }
        guard let keyStart else { return text.isEmpty }
        return text.utf8.elementsEqual(UnsafeRawBufferPointer(start: keyStart, count: keyLength))
    }

    /// Whether the key ``readKey()`` read is the integer `number`: a field's number in the
    /// numbered layout (`@Archived(layout: .numbered)`).
    @inlinable
    public func keyIs(field number: Int) -> Bool {
        keyIsInteger && integerKey == Int64(number) && (number >= 0 || !keyIsLarge)
    }

    /// Whether the integer key read last is above `Int64.max` (no field has such a number).
    @usableFromInline
    var keyIsLarge: Bool { largeIntegerKey != nil }

    /// Moves past the current value (an entry the type does not know), checking it whole as
    /// ``MessagePackDecoder`` checks the values it skips: bounds, the reserved byte, nesting.
    /// - Throws: `DecodingError.dataCorrupted` when the value is malformed or truncated.
    public mutating func skipValue() throws {
        let depth = self.depth
        try run(Any.self) { reader, offset throws(MessagePackReadError) in offset = try reader.validateValue(at: offset, depth: depth) }
    }

    /// Reads a nested value (an element, a property's value) through its ``MessagePackField``
    /// conformance and puts the count of open containers back after it.
    /// - Throws: `DecodingError` when the value is not a `T`, or nests past 512 containers.
    @inlinable
    public mutating func readNested<T: MessagePackField>(_ type: T.Type) throws -> T {
        let depth = self.depth
        defer { self.depth = depth }
        return try T(messagePack: &self)
    }

    /// Reads the value of the entry `key` through its ``MessagePackField`` conformance.
    /// - Throws: `DecodingError` when the value is not a `T` (nil included).
    @inlinable
    public mutating func read<T: MessagePackField>(_ type: T.Type, forKey key: StaticString) throws -> T {
        try readNested(T.self)
    }

    /// Reads the value of the entry `key` through `Decodable` (``MessagePackDecoder``).
    /// - Throws: what ``MessagePackDecoder`` throws.
    public mutating func read<T: Decodable>(_ type: T.Type, forKey key: StaticString) throws -> T {
        let start = offset
        // Checked here at its real depth, so nesting counts as it would in one Codable decode.
        try skipValue()
        return try MessagePackDecoder().decode(T.self, from: UnsafeRawBufferPointer(rebasing: reader.bytes[start..<offset]))
    }

    /// Reads the value of the entry `key`, or nil when it is nil (as `decodeIfPresent` does).
    /// - Throws: `DecodingError` when the value is neither nil nor a `T`.
    @inlinable
    public mutating func readIfPresent<T: MessagePackField>(_ type: T.Type, forKey key: StaticString) throws -> T? {
        try readNil() ? nil : readNested(T.self)
    }

    /// Reads the value of the entry `key` through `Decodable`, or nil when it is nil.
    /// - Throws: what ``MessagePackDecoder`` throws for it.
    public mutating func readIfPresent<T: Decodable>(_ type: T.Type, forKey key: StaticString) throws -> T? {
        try readNil() ? nil : read(T.self, forKey: key)
    }

    /// The error a missing non-optional entry throws (`DecodingError.keyNotFound`, as the
    /// synthesized `init(from:)` throws).
    public func keyNotFound(_ key: StaticString, in type: Any.Type) -> DecodingError {
        let codingKey = FieldKey(stringValue: key.description)
        return DecodingError.keyNotFound(codingKey, DecodingError.Context(
            codingPath: [], debugDescription: "No value associated with key \"\(key)\" for \(type)."))
    }

    /// The error a raw value no case has throws (as the synthesized `init(from:)` of a raw-value
    /// enum throws).
    public func invalidRawValue<Raw>(_ rawValue: Raw, of type: Any.Type) -> DecodingError {
        DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: [], debugDescription: "Cannot initialize \(type) from invalid \(Raw.self) value \(rawValue)"))
    }

    // MARK: Scalars, for MessagePackField conformances

    /// Moves past a nil and returns true, or returns false (and stays) before anything else.
    /// - Throws: `DecodingError.dataCorrupted` at the end of the bytes.
    public mutating func readNil() throws -> Bool {
        guard try run(Any.self, { reader, offset throws(MessagePackReadError) in try reader.isNil(at: offset) }) else { return false }
        offset += 1
        return true
    }

    /// Reads true or false.
    /// - Throws: `DecodingError` before anything else.
    public mutating func readBool() throws -> Bool {
        try run(Bool.self) { reader, offset throws(MessagePackReadError) in try reader.readBool(at: &offset) }
    }

    /// Reads an integer that fits `T`.
    /// - Throws: `DecodingError` before anything else or an integer out of `T`'s range.
    public mutating func readInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        try run(T.self) { reader, offset throws(MessagePackReadError) in try reader.readInteger(T.self, at: &offset) }
    }

    /// Reads a float, or an integer a `Double` holds exactly.
    /// - Throws: `DecodingError` before anything else.
    public mutating func readDouble() throws -> Double {
        try run(Double.self) { reader, offset throws(MessagePackReadError) in try reader.readDouble(at: &offset) }
    }

    /// Reads a float32, or a float64 or integer a `Float` holds exactly.
    /// - Throws: `DecodingError` before anything else.
    public mutating func readFloat() throws -> Float {
        try run(Float.self) { reader, offset throws(MessagePackReadError) in try reader.readFloat(at: &offset) }
    }

    /// Reads a str.
    /// - Throws: `DecodingError` before anything else or invalid UTF-8.
    public mutating func readString() throws -> String {
        try run(String.self) { reader, offset throws(MessagePackReadError) in try reader.readString(at: &offset) }
    }

    /// Reads a bin (a copy).
    /// - Throws: `DecodingError` before anything else.
    public mutating func readData() throws -> Data {
        try run(Data.self) { reader, offset throws(MessagePackReadError) in try reader.readBinary(at: &offset) }
    }

    /// Reads the timestamp extension.
    /// - Throws: `DecodingError` before anything else or a malformed timestamp.
    public mutating func readDate() throws -> Date {
        let (seconds, nanoseconds) = try run(Date.self) { reader, offset throws(MessagePackReadError) in try reader.readTimestamp(at: &offset) }
        return MessagePackTimestamp.date(seconds: seconds, nanoseconds: nanoseconds)
    }

    /// Reads a str that is a UUID (upper or lower case).
    /// - Throws: `DecodingError` before anything else or a str that is no UUID.
    public mutating func readUUID() throws -> UUID {
        let string = try readString()
        guard let uuid = UUID(uuidString: string) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "Attempted to decode UUID from invalid UUID string."))
        }
        return uuid
    }

    /// Reads an array header and returns its element count.
    /// - Throws: `DecodingError` before anything else.
    public mutating func readArrayHeader() throws -> Int {
        try openContainer(expecting: [Any].self) { reader, offset throws(MessagePackReadError) in try reader.readArrayHeader(at: &offset) }
    }

    @inline(__always)
    private mutating func run<Result>(
        _ type: Any.Type, _ body: (MessagePackReader, inout Int) throws(MessagePackReadError) -> Result
    ) throws -> Result {
        do throws(MessagePackReadError) {
            return try body(reader, &offset)
        } catch {
            throw error.decodingError(expecting: type, codingPath: [])
        }
    }
}

/// The key a `keyNotFound` error names.
private struct FieldKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
