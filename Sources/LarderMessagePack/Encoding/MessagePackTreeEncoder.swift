#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fallback `Encoder`: builds a tree of slots first and serializes it at the
/// end, so containers may be used in any order (for example two nested
/// containers written alternately). Slower than `MessagePackStreamEncoder` and
/// only used when that encoder reports it cannot follow the caller.
final class MessagePackTreeEncoder: Encoder {
    /// State shared by every encoder and container of one top-level encode.
    final class Context {
        let sendableUserInfo: [CodingUserInfoKey: any Sendable]
        lazy var userInfo: [CodingUserInfoKey: Any] = sendableUserInfo.mapValues { $0 }
        /// The first container misuse seen; reported when the top-level call ends
        /// because the methods that detect it cannot throw.
        var misuse: EncodingError?
        /// How deep the value sits in the bytes around it (see `MessagePackEncoder`).
        var baseDepth = 0

        init(userInfo: [CodingUserInfoKey: any Sendable]) {
            sendableUserInfo = userInfo
        }

        func recordMisuse(_ message: String, codingPath: [any CodingKey]) {
            if misuse == nil {
                misuse = EncodingError.invalidValue(message, EncodingError.Context(codingPath: codingPath, debugDescription: message))
            }
        }
    }

    let slot: MessagePackTreeSlot
    let codingPath: [any CodingKey]
    let context: Context

    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    init(slot: MessagePackTreeSlot, codingPath: [any CodingKey], context: Context) {
        self.slot = slot
        self.codingPath = codingPath
        self.context = context
    }

    /// Encodes `value` and appends its bytes to `buffer`.
    /// - Throws: whatever the value's `encode(to:)` throws, or `EncodingError.invalidValue`
    ///   for values MessagePack cannot represent and for container misuse.
    static func encode<T: Encodable>(_ value: T, userInfo: [CodingUserInfoKey: any Sendable], depth: Int = 0, appendingTo buffer: inout [UInt8]) throws {
        let context = Context(userInfo: userInfo)
        context.baseDepth = depth
        let root = MessagePackTreeSlot()
        try encode(value, into: root, codingPath: [], context: context)
        if let misuse = context.misuse { throw misuse }
        var writer = MessagePackWriter()
        try root.write(into: &writer, codingPath: [])
        buffer.append(contentsOf: writer.bytes)
    }

    static func encode<T: Encodable>(_ value: T, into slot: MessagePackTreeSlot, codingPath: [any CodingKey], context: Context) throws {
        // The path grows by a key per nested value or container: past the decoder's limit the
        // value could not be read back, and a recursive value would exhaust the stack.
        if codingPath.count + context.baseDepth >= MessagePackReader.maximumDepth {
            throw MessagePackStreamEncoder.nestingError(value, codingPath: codingPath, MessagePackNestingLimit(.depth,
                "Encoding \(T.self) would nest more than \(MessagePackReader.maximumDepth) levels deep, which MessagePackDecoder would refuse to read."))
        }
        var writer = MessagePackWriter()
        if try MessagePackScalarEncoding.write(value, into: &writer, codingPath: { codingPath }) {
            slot.content = .scalar(writer.bytes)
            return
        }
        try value.encode(to: MessagePackTreeEncoder(slot: slot, codingPath: codingPath, context: context))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let map: MessagePackTreeMap
        switch slot.content {
        case .empty:
            map = MessagePackTreeMap()
            slot.content = .map(map)
        case .map(let existing):
            map = existing
        default:
            context.recordMisuse("Requested a keyed container for a value that already encoded something else.", codingPath: codingPath)
            map = MessagePackTreeMap()
        }
        return KeyedEncodingContainer(MessagePackTreeKeyedContainer<Key>(map: map, codingPath: codingPath, context: context))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: MessagePackTreeArray
        switch slot.content {
        case .empty:
            array = MessagePackTreeArray()
            slot.content = .array(array)
        case .array(let existing):
            array = existing
        default:
            context.recordMisuse("Requested an unkeyed container for a value that already encoded something else.", codingPath: codingPath)
            array = MessagePackTreeArray()
        }
        return MessagePackTreeUnkeyedContainer(array: array, codingPath: codingPath, context: context)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        MessagePackTreeSingleValueContainer(encoder: self)
    }
}
