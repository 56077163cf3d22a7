#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Encoder` returned by `superEncoder()`: it stands for one value slot (the
/// entry written under "super" or the given key) of `MessagePackStreamEncoder`,
/// whatever the main encoder is doing when the caller gets round to using it.
final class MessagePackStreamSuperEncoder: Encoder {
    let encoder: MessagePackStreamEncoder
    let slotID: Int
    let codingPath: [any CodingKey]

    var userInfo: [CodingUserInfoKey: Any] { encoder.userInfo }

    init(encoder: MessagePackStreamEncoder, slotID: Int, codingPath: [any CodingKey]) {
        self.encoder = encoder
        self.slotID = slotID
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let (id, pathCount) = encoder.openContainer(inSlot: slotID, kind: .map)
        return KeyedEncodingContainer(MessagePackStreamKeyedContainer<Key>(encoder: encoder, frameID: id, pathCount: pathCount))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let (id, pathCount) = encoder.openContainer(inSlot: slotID, kind: .array)
        return MessagePackStreamUnkeyedContainer(encoder: encoder, frameID: id, pathCount: pathCount)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        MessagePackStreamSingleValueContainer(encoder: encoder, slotID: slotID, superEncoder: self)
    }
}
