#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An array being written by `MessagePackStreamEncoder`.
///
/// Three words, so the `any UnkeyedEncodingContainer` holding it needs no allocation.
struct MessagePackStreamUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: MessagePackStreamEncoder
    let frameID: Int
    let pathCount: Int

    var codingPath: [any CodingKey] { encoder.codingPath(prefix: pathCount) }

    var count: Int { encoder.elementCount(of: frameID) }

    mutating func encodeNil() throws {
        _ = try encoder.beginElement(in: frameID)
        encoder.writer.pointee.writeNil()
    }

    mutating func encode(_ value: Bool) throws {
        _ = try encoder.beginElement(in: frameID)
        encoder.writer.pointee.writeBool(value)
    }

    mutating func encode(_ value: String) throws {
        let index = try encoder.beginElement(in: frameID)
        try MessagePackScalarEncoding.writeString(value, into: &encoder.writer.pointee, codingPath: { elementPath(index) })
    }

    mutating func encode(_ value: Double) throws {
        _ = try encoder.beginElement(in: frameID)
        encoder.writer.pointee.writeDouble(value)
    }

    mutating func encode(_ value: Float) throws {
        _ = try encoder.beginElement(in: frameID)
        encoder.writer.pointee.writeFloat(value)
    }

    mutating func encode(_ value: Int) throws {
        _ = try encoder.beginElement(in: frameID)
        encoder.writer.pointee.writeInt(Int64(value))
    }

    mutating func encode(_ value: Int8) throws {
        _ = try encoder.beginElement(in: frameID)
        encoder.writer.pointee.writeInt(Int64(value))
    }

    mutating func encode(_ value: Int16) throws {
        _ = try encoder.beginElement(in: frameID)
        encoder.writer.pointee.writeInt(Int64(value))
    }

    mutating func encode(_ value: Int32) throws {
        _ = try encoder.beginElement(in: frameID)
        encoder.writer.pointee.writeInt(Int64(value))
    }

    mutating func encode(_ value: Int64) throws {
        _ = try encoder.beginElement(in: frameID)
        encoder.writer.pointee.writeInt(value)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws {
        let index = try encoder.beginElement(in: frameID)
        try MessagePackScalarEncoding.writeInt128(value, into: &encoder.writer.pointee, codingPath: { elementPath(index) })
    }

    mutating func encode(_ value: UInt) throws {
        _ = try encoder.beginElement(in: frameID)
        encoder.writer.pointee.writeUInt(UInt64(value))
    }

    mutating func encode(_ value: UInt8) throws {
        _ = try encoder.beginElement(in: frameID)
        encoder.writer.pointee.writeUInt(UInt64(value))
    }

    mutating func encode(_ value: UInt16) throws {
        _ = try encoder.beginElement(in: frameID)
        encoder.writer.pointee.writeUInt(UInt64(value))
    }

    mutating func encode(_ value: UInt32) throws {
        _ = try encoder.beginElement(in: frameID)
        encoder.writer.pointee.writeUInt(UInt64(value))
    }

    mutating func encode(_ value: UInt64) throws {
        _ = try encoder.beginElement(in: frameID)
        encoder.writer.pointee.writeUInt(value)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws {
        let index = try encoder.beginElement(in: frameID)
        try MessagePackScalarEncoding.writeUInt128(value, into: &encoder.writer.pointee, codingPath: { elementPath(index) })
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = try encoder.beginElement(in: frameID)
        if try MessagePackScalarEncoding.write(value, into: &encoder.writer.pointee, codingPath: { elementPath(index) }) {
            return
        }
        try encoder.encodeNested(value, key: MessagePackCodingKey(index: index))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        guard let index = try? encoder.beginElement(in: frameID) else {
            encoder.markFallback()
            return KeyedEncodingContainer(MessagePackStreamKeyedContainer<NestedKey>(encoder: encoder, frameID: 0, pathCount: pathCount))
        }
        let (id, nestedPathCount) = encoder.pushContainer(kind: .map, key: MessagePackCodingKey(index: index))
        return KeyedEncodingContainer(MessagePackStreamKeyedContainer<NestedKey>(encoder: encoder, frameID: id, pathCount: nestedPathCount))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        guard let index = try? encoder.beginElement(in: frameID) else {
            encoder.markFallback()
            return MessagePackStreamUnkeyedContainer(encoder: encoder, frameID: 0, pathCount: pathCount)
        }
        let (id, nestedPathCount) = encoder.pushContainer(kind: .array, key: MessagePackCodingKey(index: index))
        return MessagePackStreamUnkeyedContainer(encoder: encoder, frameID: id, pathCount: nestedPathCount)
    }

    mutating func superEncoder() -> any Encoder {
        guard let index = try? encoder.beginElement(in: frameID) else {
            encoder.markFallback()
            return MessagePackStreamSuperEncoder(encoder: encoder, slotID: 0, codingPath: codingPath)
        }
        let slotID = encoder.pushSuperSlot(key: MessagePackCodingKey(index: index))
        return MessagePackStreamSuperEncoder(encoder: encoder, slotID: slotID, codingPath: encoder.codingPath)
    }

    private func elementPath(_ index: Int) -> [any CodingKey] {
        codingPath + [MessagePackCodingKey(index: index)]
    }
}
