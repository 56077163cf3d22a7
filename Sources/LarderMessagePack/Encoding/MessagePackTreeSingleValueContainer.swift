#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The single value container of the fallback encoder.
struct MessagePackTreeSingleValueContainer: SingleValueEncodingContainer {
    let encoder: MessagePackTreeEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    private func checkEmpty(_ value: Any) throws {
        guard case .empty = encoder.slot.content else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "Attempt to encode a value through a single value container after this value was already encoded."))
        }
    }

    private func store<T: Encodable>(_ value: T) throws {
        try checkEmpty(value)
        var writer = MessagePackWriter()
        if try MessagePackScalarEncoding.write(value, into: &writer, codingPath: { codingPath }) {
            encoder.slot.content = .scalar(writer.bytes)
        } else {
            // The value takes this slot over, as with Foundation's coders.
            try value.encode(to: encoder)
        }
    }

    mutating func encodeNil() throws {
        try checkEmpty(Optional<Int>.none as Any)
        encoder.slot.content = .scalar([MessagePackFormat.nil])
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
}
