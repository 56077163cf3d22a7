#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An unkeyed container of the fallback encoder.
struct MessagePackTreeUnkeyedContainer: UnkeyedEncodingContainer {
    let array: MessagePackTreeArray
    let codingPath: [any CodingKey]
    let context: MessagePackTreeEncoder.Context

    var count: Int { array.elements.count }

    private func store<T: Encodable>(_ value: T) throws {
        let key = MessagePackCodingKey(index: array.elements.count)
        let slot = array.appendSlot()
        try MessagePackTreeEncoder.encode(value, into: slot, codingPath: codingPath + [key], context: context)
    }

    mutating func encodeNil() throws {
        array.appendSlot().content = .scalar([MessagePackFormat.nil])
    }

    mutating func encode(_ value: Bool) throws { try store(value) }
    mutating func encode(_ value: String) throws { try store(value) }
    mutating func encode(_ value: Double) throws { try store(value) }
    mutating func encode(_ value: Float) throws { try store(value) }
    mutating func encode(_ value: Int) throws { try store(value) }
    mutating func encode(_ value: Int8) throws { try store(value) }
    mutating func encode(_ value: Int16) throws { try store(value) }
    mutating func encode(_ value: Int32) throws { try store(value) }
    mutating func encode(_ value: Int64) throws { try store(value) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws { try store(value) }
    mutating func encode(_ value: UInt) throws { try store(value) }
    mutating func encode(_ value: UInt8) throws { try store(value) }
    mutating func encode(_ value: UInt16) throws { try store(value) }
    mutating func encode(_ value: UInt32) throws { try store(value) }
    mutating func encode(_ value: UInt64) throws { try store(value) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws { try store(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try store(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = MessagePackCodingKey(index: array.elements.count)
        let nested = MessagePackTreeMap()
        array.appendSlot().content = .map(nested)
        return KeyedEncodingContainer(MessagePackTreeKeyedContainer<NestedKey>(map: nested, codingPath: codingPath + [key], context: context))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = MessagePackCodingKey(index: array.elements.count)
        let nested = MessagePackTreeArray()
        array.appendSlot().content = .array(nested)
        return MessagePackTreeUnkeyedContainer(array: nested, codingPath: codingPath + [key], context: context)
    }

    mutating func superEncoder() -> any Encoder {
        let key = MessagePackCodingKey(index: array.elements.count)
        return MessagePackTreeEncoder(slot: array.appendSlot(), codingPath: codingPath + [key], context: context)
    }
}
