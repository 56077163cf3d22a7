#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A map being written by `MessagePackStreamEncoder`; every entry is its key
/// (as a str) followed by the value, appended straight to the encoder's buffer.
struct MessagePackStreamKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: MessagePackStreamEncoder
    let frameID: Int
    let pathCount: Int

    var codingPath: [any CodingKey] { encoder.codingPath(prefix: pathCount) }

    mutating func encodeNil(forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        encoder.writer.pointee.writeNil()
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        encoder.writer.pointee.writeBool(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        try MessagePackScalarEncoding.writeString(value, into: &encoder.writer.pointee, codingPath: { codingPath + [key] })
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        encoder.writer.pointee.writeDouble(value)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        encoder.writer.pointee.writeFloat(value)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        encoder.writer.pointee.writeInt(Int64(value))
    }

    mutating func encode(_ value: Int8, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        encoder.writer.pointee.writeInt(Int64(value))
    }

    mutating func encode(_ value: Int16, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        encoder.writer.pointee.writeInt(Int64(value))
    }

    mutating func encode(_ value: Int32, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        encoder.writer.pointee.writeInt(Int64(value))
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        encoder.writer.pointee.writeInt(value)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        try MessagePackScalarEncoding.writeInt128(value, into: &encoder.writer.pointee, codingPath: { codingPath + [key] })
    }

    mutating func encode(_ value: UInt, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        encoder.writer.pointee.writeUInt(UInt64(value))
    }

    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        encoder.writer.pointee.writeUInt(UInt64(value))
    }

    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        encoder.writer.pointee.writeUInt(UInt64(value))
    }

    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        encoder.writer.pointee.writeUInt(UInt64(value))
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        encoder.writer.pointee.writeUInt(value)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        try MessagePackScalarEncoding.writeUInt128(value, into: &encoder.writer.pointee, codingPath: { codingPath + [key] })
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder.beginEntry(in: frameID, key: key)
        if try MessagePackScalarEncoding.write(value, into: &encoder.writer.pointee, codingPath: { codingPath + [key] }) {
            return
        }
        try encoder.encodeNested(value, key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        do {
            try encoder.beginEntry(in: frameID, key: key)
        } catch {
            encoder.markFallback()
            return KeyedEncodingContainer(MessagePackStreamKeyedContainer<NestedKey>(encoder: encoder, frameID: 0, pathCount: pathCount))
        }
        let (id, nestedPathCount) = encoder.pushContainer(kind: .map, key: key)
        return KeyedEncodingContainer(MessagePackStreamKeyedContainer<NestedKey>(encoder: encoder, frameID: id, pathCount: nestedPathCount))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        do {
            try encoder.beginEntry(in: frameID, key: key)
        } catch {
            encoder.markFallback()
            return MessagePackStreamUnkeyedContainer(encoder: encoder, frameID: 0, pathCount: pathCount)
        }
        let (id, nestedPathCount) = encoder.pushContainer(kind: .array, key: key)
        return MessagePackStreamUnkeyedContainer(encoder: encoder, frameID: id, pathCount: nestedPathCount)
    }

    mutating func superEncoder() -> any Encoder {
        makeSuperEncoder(key: MessagePackCodingKey.super, path: MessagePackCodingKey.super)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        makeSuperEncoder(key: key, path: key)
    }

    private func makeSuperEncoder<K: CodingKey>(key: K, path: any CodingKey) -> any Encoder {
        do {
            try encoder.beginEntry(in: frameID, key: key)
        } catch {
            encoder.markFallback()
            return MessagePackStreamSuperEncoder(encoder: encoder, slotID: 0, codingPath: codingPath + [path])
        }
        let slotID = encoder.pushSuperSlot(key: path)
        return MessagePackStreamSuperEncoder(encoder: encoder, slotID: slotID, codingPath: encoder.codingPath)
    }
}
