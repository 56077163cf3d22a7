#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a MessagePack array element by element with a cursor into the buffer.
/// A failed decode leaves the cursor where it was, like Foundation's decoders.
struct MessagePackUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: MessagePackBufferDecoder
    let codingPath: [any CodingKey]
    let elementCount: Int
    private(set) var currentIndex = 0
    /// Offset of the element at `currentIndex`.
    private var position: Int

    init(decoder: MessagePackBufferDecoder, codingPath: [any CodingKey], elementCount: Int, position: Int) {
        self.decoder = decoder
        self.codingPath = codingPath
        self.elementCount = elementCount
        self.position = position
    }

    var count: Int? { elementCount }
    var isAtEnd: Bool { currentIndex >= elementCount }

    private var elementPath: [any CodingKey] { codingPath + [MessagePackCodingKey(index: currentIndex)] }

    private func checkNotAtEnd(_ type: Any.Type) throws {
        guard currentIndex < elementCount else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: elementPath, debugDescription: "Unkeyed container is at end."))
        }
    }

    @inline(__always)
    private mutating func read<T>(
        _ type: T.Type, _ body: (MessagePackReader, inout Int) throws(MessagePackReadError) -> T
    ) throws -> T {
        try checkNotAtEnd(type)
        var offset = position
        do throws(MessagePackReadError) {
            let value = try body(decoder.reader, &offset)
            position = offset
            currentIndex += 1
            return value
        } catch {
            throw error.decodingError(expecting: T.self, codingPath: elementPath)
        }
    }

    /// Offset just past the current element.
    private func endOfCurrentElement() throws -> Int {
        do throws(MessagePackReadError) {
            return try decoder.endOfValue(at: position)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: elementPath, debugDescription: error.message))
        }
    }

    mutating func decodeNil() throws -> Bool {
        try checkNotAtEnd(Any?.self)
        guard (try? decoder.reader.isNil(at: position)) == true else { return false }
        position += 1
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        try read(type) { reader, offset throws(MessagePackReadError) in try reader.readBool(at: &offset) }
    }

    mutating func decode(_ type: String.Type) throws -> String {
        try read(type) { reader, offset throws(MessagePackReadError) in try reader.readString(at: &offset) }
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        try read(type) { reader, offset throws(MessagePackReadError) in try reader.readDouble(at: &offset) }
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        try read(type) { reader, offset throws(MessagePackReadError) in try reader.readFloat(at: &offset) }
    }

    mutating func decode(_ type: Int.Type) throws -> Int { try decodeInteger(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeInteger(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeInteger(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeInteger(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeInteger(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeInteger(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeInteger(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeInteger(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeInteger(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeInteger(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 {
        try read(type) { reader, offset throws(MessagePackReadError) in try MessagePackScalarDecoding.readInt128(from: reader, at: &offset) }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 {
        try read(type) { reader, offset throws(MessagePackReadError) in try MessagePackScalarDecoding.readUInt128(from: reader, at: &offset) }
    }

    @inline(__always)
    private mutating func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        try read(type) { reader, offset throws(MessagePackReadError) in try reader.readInteger(T.self, at: &offset) }
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try checkNotAtEnd(type)
        guard let kind = MessagePackScalarKind(T.self) else {
            let end = try endOfCurrentElement()
            let value = try decoder.decodeNested(T.self, at: position, key: MessagePackCodingKey(index: currentIndex),
                                                 containerPath: codingPath)
            position = end
            currentIndex += 1
            return value
        }
        var offset = position
        do throws(MessagePackReadError) {
            let value = try MessagePackScalarDecoding.read(T.self, kind: kind, from: decoder.reader, at: &offset)
            position = offset
            currentIndex += 1
            return value
        } catch {
            throw error.decodingError(expecting: T.self, codingPath: elementPath)
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try checkNotAtEnd(KeyedDecodingContainer<NestedKey>.self)
        let end = try endOfCurrentElement()
        let container = try decoder.makeKeyedContainer(NestedKey.self, at: position, codingPath: elementPath)
        position = end
        currentIndex += 1
        return KeyedDecodingContainer(container)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try checkNotAtEnd((any UnkeyedDecodingContainer).self)
        let end = try endOfCurrentElement()
        let container = try decoder.makeUnkeyedContainer(at: position, codingPath: elementPath)
        position = end
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        try checkNotAtEnd((any Decoder).self)
        let end = try endOfCurrentElement()
        let child = decoder.makeChildDecoder(at: position, codingPath: elementPath)
        position = end
        currentIndex += 1
        return child
    }
}
