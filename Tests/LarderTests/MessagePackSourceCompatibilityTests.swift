import Foundation
import Testing
import Larder

// This file imports `Larder` only (not `LarderMessagePack`, not `@testable`): it is user code of
// 0.1 that must keep compiling now that the coder lives in its own target.

extension MessagePackEncoder {
    /// An extension a user wrote on the encoder in 0.1.
    fileprivate func encodedTwice<T: Encodable>(_ value: T) throws -> [UInt8] { try encode(value) + encode(value) }
}

@Suite("MessagePack through import Larder")
struct MessagePackSourceCompatibilityTests {
    struct Note: Codable, Equatable {
        var text: String
        var when: Date
    }

    @Test func theCoderIsReachableAsBefore() throws {
        let note = Note(text: "hello", when: Date(timeIntervalSince1970: 1_000))
        var encoder = Larder.MessagePackEncoder()
        encoder.userInfo[CodingUserInfoKey(rawValue: "note")!] = 1
        let bytes = try encoder.encode(note)
        let decoder: Larder.MessagePackDecoder = MessagePackDecoder()
        #expect(try decoder.decode(Note.self, from: bytes) == note)
        #expect(try encoder.encodedTwice(note) == bytes + bytes)
        // The archiver stays Larder's and writes what the encoder writes.
        var archived: [UInt8] = []
        try MessagePackArchiver<Note>().archive(note, into: &archived)
        #expect(archived == bytes)
    }
}
