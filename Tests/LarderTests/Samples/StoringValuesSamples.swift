import Testing
import LarderMessagePack

/// Documentation/StoringValues.md.
@Suite("Samples: Storing values")
struct StoringValuesSamples {
    struct Tool: Codable {
        var name: String
        var price: Double
    }

    @Test func valuesWithoutTheirSwiftType() throws {
        let stored = try MessagePackEncoder().encode(Tool(name: "Hammer", price: 24))

        let value = try MessagePackValue(reading: stored)   // MessagePackValue.ReadError on bad bytes
        var names: [String] = []
        if case .map(let entries) = value {
            for entry in entries { names.append(entry.key.text ?? "?") }
        }
        let again = value.encoded()   // each part in the smallest layout, as the encoder writes it

        #expect(names == ["name", "price"])
        #expect(again == stored)
    }
}
