#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A keyed container of the fallback encoder. Speed does not matter here, so
/// every overload funnels into one generic `store`.
struct MessagePackTreeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let map: MessagePackTreeMap
    let codingPath: [any CodingKey]
    let context: MessagePackTreeEncoder.Context

    private func store<T: Encodable>(_ value: T, forKey key: Key) throws {
        let slot = map.makeSlot(forKey: key.stringValue)
        try MessagePackTreeEncoder.encode(value, into: slot, codingPath: codingPath + [key], context: context)
    }

    mutating func encodeNil(forKey key: Key) throws {
        map.makeSlot(forKey: key.stringValue).content = .scalar([MessagePackFormat.nil])
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws { try store(value, forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try store(value, forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try store(value, forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try store(value, forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try store(value, forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try store(value, forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try store(value, forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try store(value, forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try store(value, forKey: key) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws { try store(value, forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try store(value, forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try store(value, forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try store(value, forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try store(value, forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try store(value, forKey: key) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws { try store(value, forKey: key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try store(value, forKey: key) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = MessagePackTreeMap()
        map.makeSlot(forKey: key.stringValue).content = .map(nested)
        return KeyedEncodingContainer(MessagePackTreeKeyedContainer<NestedKey>(map: nested, codingPath: codingPath + [key], context: context))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = MessagePackTreeArray()
        map.makeSlot(forKey: key.stringValue).content = .array(nested)
        return MessagePackTreeUnkeyedContainer(array: nested, codingPath: codingPath + [key], context: context)
    }

    mutating func superEncoder() -> any Encoder {
        let slot = map.makeSlot(forKey: MessagePackCodingKey.super.stringValue)
        return MessagePackTreeEncoder(slot: slot, codingPath: codingPath + [MessagePackCodingKey.super], context: context)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let slot = map.makeSlot(forKey: key.stringValue)
        return MessagePackTreeEncoder(slot: slot, codingPath: codingPath + [key], context: context)
    }
}
