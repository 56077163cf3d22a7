#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes one scalar into a value slot of `MessagePackStreamEncoder` (the slot of
/// the value being encoded, or the slot a super encoder stands for).
///
/// Three words, so the `any SingleValueEncodingContainer` holding it needs no allocation.
struct MessagePackStreamSingleValueContainer: SingleValueEncodingContainer {
    let encoder: MessagePackStreamEncoder
    let slotID: Int
    /// Set when the slot belongs to a super encoder; non-scalar values are then
    /// encoded through it so their containers land in that slot.
    let superEncoder: MessagePackStreamSuperEncoder?

    var codingPath: [any CodingKey] { superEncoder?.codingPath ?? encoder.codingPath }

    mutating func encodeNil() throws {
        try encoder.beginSingleValue(in: slotID)
        encoder.writer.pointee.writeNil()
    }

    mutating func encode(_ value: Bool) throws {
        try encoder.beginSingleValue(in: slotID)
        encoder.writer.pointee.writeBool(value)
    }

    mutating func encode(_ value: String) throws {
        try encoder.beginSingleValue(in: slotID)
        try MessagePackScalarEncoding.writeString(value, into: &encoder.writer.pointee, codingPath: { codingPath })
    }

    mutating func encode(_ value: Double) throws {
        try encoder.beginSingleValue(in: slotID)
        encoder.writer.pointee.writeDouble(value)
    }

    mutating func encode(_ value: Float) throws {
        try encoder.beginSingleValue(in: slotID)
        encoder.writer.pointee.writeFloat(value)
    }

    mutating func encode(_ value: Int) throws {
        try encoder.beginSingleValue(in: slotID)
        encoder.writer.pointee.writeInt(Int64(value))
    }

    mutating func encode(_ value: Int8) throws {
        try encoder.beginSingleValue(in: slotID)
        encoder.writer.pointee.writeInt(Int64(value))
    }

    mutating func encode(_ value: Int16) throws {
        try encoder.beginSingleValue(in: slotID)
        encoder.writer.pointee.writeInt(Int64(value))
    }

    mutating func encode(_ value: Int32) throws {
        try encoder.beginSingleValue(in: slotID)
        encoder.writer.pointee.writeInt(Int64(value))
    }

    mutating func encode(_ value: Int64) throws {
        try encoder.beginSingleValue(in: slotID)
        encoder.writer.pointee.writeInt(value)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws {
        try encoder.beginSingleValue(in: slotID)
        try MessagePackScalarEncoding.writeInt128(value, into: &encoder.writer.pointee, codingPath: { codingPath })
    }

    mutating func encode(_ value: UInt) throws {
        try encoder.beginSingleValue(in: slotID)
        encoder.writer.pointee.writeUInt(UInt64(value))
    }

    mutating func encode(_ value: UInt8) throws {
        try encoder.beginSingleValue(in: slotID)
        encoder.writer.pointee.writeUInt(UInt64(value))
    }

    mutating func encode(_ value: UInt16) throws {
        try encoder.beginSingleValue(in: slotID)
        encoder.writer.pointee.writeUInt(UInt64(value))
    }

    mutating func encode(_ value: UInt32) throws {
        try encoder.beginSingleValue(in: slotID)
        encoder.writer.pointee.writeUInt(UInt64(value))
    }

    mutating func encode(_ value: UInt64) throws {
        try encoder.beginSingleValue(in: slotID)
        encoder.writer.pointee.writeUInt(value)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws {
        try encoder.beginSingleValue(in: slotID)
        try MessagePackScalarEncoding.writeUInt128(value, into: &encoder.writer.pointee, codingPath: { codingPath })
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.beginSingleValue(in: slotID)
        if try MessagePackScalarEncoding.write(value, into: &encoder.writer.pointee, codingPath: { codingPath }) {
            return
        }
        // Not a scalar: the value becomes this slot's content, as with Foundation's
        // coders, so it encodes itself through the encoder that owns the slot.
        encoder.endSingleValueWithoutScalar(in: slotID)
        if let superEncoder {
            try value.encode(to: superEncoder)
        } else {
            guard encoder.isActiveSlot(slotID) else {
                encoder.markFallback()
                throw MessagePackStreamFallback()
            }
            try value.encode(to: encoder)
        }
    }
}
