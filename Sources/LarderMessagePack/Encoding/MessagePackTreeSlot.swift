#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One value position in the fallback encoder's tree. A reference type so that
/// containers and super encoders handed out earlier keep writing into the right
/// place however the caller interleaves them.
final class MessagePackTreeSlot {
    enum Content {
        /// Nothing encoded yet; written as an empty map, like JSONEncoder's {}.
        case empty
        /// Already-encoded bytes of a scalar.
        case scalar([UInt8])
        case map(MessagePackTreeMap)
        case array(MessagePackTreeArray)
    }

    var content: Content = .empty

    /// Serializes this slot and everything below it.
    /// - Throws: `EncodingError.invalidValue` if a container has more than 2^32-1 elements.
    func write(into writer: inout MessagePackWriter, codingPath: [any CodingKey]) throws {
        switch content {
        case .empty:
            writer.bytes.append(MessagePackFormat.fixmapMask)
        case .scalar(let bytes):
            writer.bytes.append(contentsOf: bytes)
        case .map(let map):
            guard writer.writeMapHeader(map.keys.count) else { throw Self.tooLarge(map.keys.count, codingPath) }
            for (key, value) in zip(map.keys, map.values) {
                try MessagePackScalarEncoding.writeString(key, into: &writer, codingPath: { codingPath })
                try value.write(into: &writer, codingPath: codingPath)
            }
        case .array(let array):
            guard writer.writeArrayHeader(array.elements.count) else { throw Self.tooLarge(array.elements.count, codingPath) }
            for element in array.elements {
                try element.write(into: &writer, codingPath: codingPath)
            }
        }
    }

    private static func tooLarge(_ count: Int, _ codingPath: [any CodingKey]) -> EncodingError {
        EncodingError.invalidValue(count, EncodingError.Context(
            codingPath: codingPath,
            debugDescription: "A container with \(count) elements exceeds the MessagePack limit of 4294967295."))
    }
}
