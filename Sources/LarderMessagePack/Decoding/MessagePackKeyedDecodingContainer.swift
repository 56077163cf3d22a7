#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a MessagePack map whose entries `MessagePackBufferDecoder` indexed when
/// the container was created.
///
/// The container of the top-level map is reused from one decode to the next
/// (see `MessagePackBufferDecoder.topLevelContainer`), so it reads the entry
/// count of the current decode from the decoder instead of storing one.
struct MessagePackKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// Not retained here: `owner` keeps the decoder alive.
    unowned(unsafe) let decoder: MessagePackBufferDecoder
    /// The decoder itself, or for the reused top-level container the decoder's
    /// `MessagePackContainerLink` (which holds the decoder only once someone kept the container).
    let owner: AnyObject
    let firstEntry: Int
    /// -1 for the top-level map's container, whose entries the decoder reads from the
    /// stream or the top-level index of the current input (see `MessagePackBufferDecoder.findValue`).
    let entryCount: Int
    /// The container's coding path when it is not its decoder's own (a nested container's), or
    /// nil. Every `decode(_:forKey:)` goes through the standard library's box, which copies this
    /// struct, so each reference it holds costs a retain and a release per property decoded.
    let ownPath: [any CodingKey]?

    /// A container whose path is `codingPath`, or the decoder's own path (which stays the same
    /// while the value the container reads is decoded) when that is nil.
    init(decoder: MessagePackBufferDecoder, firstEntry: Int, entryCount: Int, codingPath: [any CodingKey]?) {
        self.decoder = decoder
        owner = decoder
        self.firstEntry = firstEntry
        self.entryCount = entryCount
        ownPath = codingPath
    }

    /// The container of the top-level map of whatever input `link.decoder` reads.
    init(topLevelOf link: MessagePackContainerLink) {
        decoder = link.decoder
        owner = link
        firstEntry = 1
        entryCount = -1
        ownPath = nil
    }

    var codingPath: [any CodingKey] {
        if let ownPath { return ownPath }
        // The top-level container may outlive its decoder (kept by a type): it reads nothing from it.
        return entryCount < 0 ? [] : decoder.codingPath
    }

    var allKeys: [Key] { decoder.allKeys(Key.self, firstEntry: firstEntry, entryCount: entryCount) }

    func contains(_ key: Key) -> Bool {
        (try? lookup(key)) != nil
    }

    /// The value offset of `key`: the entry whose key is its `stringValue` (or an integer whose
    /// decimal text that is), else, for a key with an `intValue`, the entry whose key is that
    /// integer (a map written in a numbered layout, `@Archived(layout: .numbered)`).
    @inline(__always)
    private func lookup(_ key: Key) throws -> Int? {
        if let offset = try decoder.findValue(forKey: key.stringValue, firstEntry: firstEntry, entryCount: entryCount) {
            return offset
        }
        guard let number = key.intValue else { return nil }
        return try decoder.findValue(forIntegerKey: number, firstEntry: firstEntry, entryCount: entryCount)
    }

    /// Tells the decoder that the value at `offset` was read up to `end` (nil: not known),
    /// which moves the top-level map's stream past it (see `MessagePackBufferDecoder.TopLevelStream`).
    @inline(__always)
    private func passed(_ offset: Int, end: Int?) throws {
        if entryCount < 0 { try decoder.passedTopLevelValue(at: offset, end: end) }
    }

    @inline(__always)
    private func valueOffset(for key: Key) throws -> Int {
        guard let offset = try lookup(key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return offset
    }

    /// The value offset for `key`, or nil if the key is absent or its value is nil.
    @inline(__always)
    private func presentValueOffset(for key: Key) throws -> Int? {
        guard let offset = try lookup(key) else { return nil }
        switch try? decoder.reader.isNil(at: offset) {
        case false?: return offset
        case true?: try passed(offset, end: offset + 1)
        case nil: break
        }
        return nil
    }

    @inline(__always)
    private func read<T>(
        _ type: T.Type, at offset: Int, key: Key,
        _ body: (MessagePackReader, inout Int) throws(MessagePackReadError) -> T
    ) throws -> T {
        var position = offset
        let value: T
        do throws(MessagePackReadError) {
            value = try body(decoder.reader, &position)
        } catch {
            throw error.decodingError(expecting: T.self, codingPath: codingPath + [key])
        }
        try passed(offset, end: position)
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        let offset = try valueOffset(for: key)
        guard (try? decoder.reader.isNil(at: offset)) == true else { return false }
        try passed(offset, end: offset + 1)
        return true
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try read(type, at: valueOffset(for: key), key: key) { reader, offset throws(MessagePackReadError) in try reader.readBool(at: &offset) }
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try read(type, at: valueOffset(for: key), key: key) { reader, offset throws(MessagePackReadError) in try reader.readString(at: &offset) }
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try read(type, at: valueOffset(for: key), key: key) { reader, offset throws(MessagePackReadError) in try reader.readDouble(at: &offset) }
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try read(type, at: valueOffset(for: key), key: key) { reader, offset throws(MessagePackReadError) in try reader.readFloat(at: &offset) }
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeInteger(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeInteger(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeInteger(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeInteger(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeInteger(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeInteger(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeInteger(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeInteger(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeInteger(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeInteger(type, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 {
        try read(type, at: valueOffset(for: key), key: key) { reader, offset throws(MessagePackReadError) in
            try MessagePackScalarDecoding.readInt128(from: reader, at: &offset)
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 {
        try read(type, at: valueOffset(for: key), key: key) { reader, offset throws(MessagePackReadError) in
            try MessagePackScalarDecoding.readUInt128(from: reader, at: &offset)
        }
    }

    @inline(__always)
    private func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, forKey key: Key) throws -> T {
        try read(type, at: valueOffset(for: key), key: key) { reader, offset throws(MessagePackReadError) in
            try reader.readInteger(T.self, at: &offset)
        }
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeValue(type, at: valueOffset(for: key), key: key)
    }

    private func decodeValue<T: Decodable>(_ type: T.Type, at offset: Int, key: Key) throws -> T {
        guard let kind = MessagePackScalarKind(T.self) else {
            let value = try decoder.decodeNested(T.self, at: offset, key: key, containerPath: codingPath)
            try passed(offset, end: nil)
            return value
        }
        var position = offset
        let value: T
        do throws(MessagePackReadError) {
            value = try MessagePackScalarDecoding.read(T.self, kind: kind, from: decoder.reader, at: &position)
        } catch {
            throw error.decodingError(expecting: T.self, codingPath: codingPath + [key])
        }
        try passed(offset, end: position)
        return value
    }

    // One lookup instead of the default implementation's three (contains, decodeNil, decode).
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let offset = try presentValueOffset(for: key) else { return nil }
        return try decodeValue(type, at: offset, key: key)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decodeIfPresent(key: key, as: type) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decodeIfPresent(key: key, as: type) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decodeIfPresent(key: key, as: type) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decodeIfPresent(key: key, as: type) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decodeIfPresent(key: key, as: type) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try decodeIfPresent(key: key, as: type) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try decodeIfPresent(key: key, as: type) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decodeIfPresent(key: key, as: type) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decodeIfPresent(key: key, as: type) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decodeIfPresent(key: key, as: type) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try decodeIfPresent(key: key, as: type) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try decodeIfPresent(key: key, as: type) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try decodeIfPresent(key: key, as: type) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try decodeIfPresent(key: key, as: type) }

    /// Shared body of the scalar `decodeIfPresent` overloads (a distinct label so
    /// it cannot resolve back to one of them).
    private func decodeIfPresent<T: Decodable>(key: Key, as type: T.Type) throws -> T? {
        guard let offset = try presentValueOffset(for: key) else { return nil }
        return try decodeValue(type, at: offset, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let offset = try valueOffset(for: key)
        return KeyedDecodingContainer(try decoder.makeKeyedContainer(NestedKey.self, at: offset, codingPath: codingPath + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let offset = try valueOffset(for: key)
        return try decoder.makeUnkeyedContainer(at: offset, codingPath: codingPath + [key])
    }

    func superDecoder() throws -> any Decoder {
        let superKey = MessagePackCodingKey.super
        guard let offset = try decoder.findValue(forKey: superKey.stringValue, firstEntry: firstEntry,
                                             entryCount: entryCount) else {
            throw DecodingError.keyNotFound(superKey, DecodingError.Context(
                codingPath: codingPath, debugDescription: "No value associated with key \"super\"."))
        }
        return decoder.makeChildDecoder(at: offset, codingPath: codingPath + [superKey])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        let offset = try valueOffset(for: key)
        return decoder.makeChildDecoder(at: offset, codingPath: codingPath + [key])
    }
}
