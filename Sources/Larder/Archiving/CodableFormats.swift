#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decoding shared by the Codable archivers: the stored tag picks the decoder.
enum CodableFormats {
    static func decode<Value: Decodable>(
        _ type: Value.Type, from bytes: UnsafeRawBufferPointer, format: ArchiveFormat, messagePack: MessagePackDecoder
    ) throws -> Value {
        switch format {
        case .messagePack:
            return try messagePack.decode(type, from: bytes)
        case .json:
            return try JSONDecoder().decode(type, from: Data(bytes))
        default:
            throw LarderError(.unknownFormat, "the value is stored as \(format), which a Codable archiver of \(Value.self) does not read")
        }
    }
}
