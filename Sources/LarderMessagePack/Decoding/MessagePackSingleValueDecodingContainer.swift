#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads the one value a `MessagePackBufferDecoder` currently stands for.
///
/// Three words, so the `any SingleValueDecodingContainer` holding it needs no allocation.
struct MessagePackSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: MessagePackBufferDecoder
    let offset: Int
    let codingPath: [any CodingKey]

    @inline(__always)
    private func read<T>(_ type: T.Type, _ body: (MessagePackReader, inout Int) throws(MessagePackReadError) -> T) throws -> T {
        var position = offset
        do throws(MessagePackReadError) {
            return try body(decoder.reader, &position)
        } catch {
            throw error.decodingError(expecting: T.self, codingPath: codingPath)
        }
    }

    func decodeNil() -> Bool {
        (try? decoder.reader.isNil(at: offset)) ?? false
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        try read(type) { reader, offset throws(MessagePackReadError) in try reader.readBool(at: &offset) }
    }

    func decode(_ type: String.Type) throws -> String {
        try read(type) { reader, offset throws(MessagePackReadError) in try reader.readString(at: &offset) }
    }

    func decode(_ type: Double.Type) throws -> Double {
        try read(type) { reader, offset throws(MessagePackReadError) in try reader.readDouble(at: &offset) }
    }

    func decode(_ type: Float.Type) throws -> Float {
        try read(type) { reader, offset throws(MessagePackReadError) in try reader.readFloat(at: &offset) }
    }

    func decode(_ type: Int.Type) throws -> Int { try decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeInteger(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type) throws -> Int128 {
        try read(type) { reader, offset throws(MessagePackReadError) in try MessagePackScalarDecoding.readInt128(from: reader, at: &offset) }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 {
        try read(type) { reader, offset throws(MessagePackReadError) in try MessagePackScalarDecoding.readUInt128(from: reader, at: &offset) }
    }

    @inline(__always)
    private func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        try read(type) { reader, offset throws(MessagePackReadError) in try reader.readInteger(T.self, at: &offset) }
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard let kind = MessagePackScalarKind(T.self) else {
            // A wrapper delegating to the value it wraps: same bytes, one level deeper.
            return try decoder.decodeNested(T.self, at: offset, key: nil)
        }
        var position = offset
        do throws(MessagePackReadError) {
            return try MessagePackScalarDecoding.read(T.self, kind: kind, from: decoder.reader, at: &position)
        } catch {
            throw error.decodingError(expecting: T.self, codingPath: codingPath)
        }
    }
}
