import Foundation
import Testing
@testable import Larder

/// Undo steps are written by hand (``StoredUndoStep/messagePackBytes()``) and read with
/// `Codable`: the two must agree byte for byte, or stored steps would not read back.
@Suite("Undo step encoding")
struct UndoStepEncodingTests {
    private func image(_ random: inout SplitMix) -> [UInt8]? {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return nil
        case 1: return []
        case 2: return (0..<Int.random(in: 1...15, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        case 3: return [UInt8](repeating: 0x41, count: Int.random(in: 200...300, using: &random))   // bin 8 / bin 16 edge
        case 4: return [UInt8](repeating: 0x42, count: Int.random(in: 65_530...65_540, using: &random))  // bin 16 / bin 32 edge
        default: return (0..<Int.random(in: 16...100, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
    }

    @Test func theHandWrittenBytesAreTheCodableBytes() throws {
        var random = SplitMix(seed: 17)
        let names = ["", "rename", "Ünïcödé ✓", String(repeating: "n", count: 40), String(repeating: "x", count: 300)]
        for round in 0..<60 {
            let entries = (0..<[0, 1, 3, 15, 16, 17, 40][round % 7]).map { n in
                var entry = StoredUndoStep.Entry(YapDB.Index(collection: "c\(n % 3)", key: "k\(n)·\(round)"), before: StoredImage(), after: StoredImage())
                entry.objectBefore = image(&random)
                entry.objectAfter = image(&random)
                entry.metadataBefore = image(&random)
                entry.metadataAfter = image(&random)
                return entry
            }
            let step = StoredUndoStep(
                name: names[round % names.count], time: Date(timeIntervalSince1970: Double(Int.random(in: -5_000_000_000...5_000_000_000, using: &random)) / 7),
                entries: entries, group: round % 3 == 0 ? nil : "group-\(round)")
            let written = try step.messagePackBytes()
            #expect(written == (try MessagePackEncoder().encode(step)), "round \(round)")
            #expect(try MessagePackDecoder().decode(StoredUndoStep.self, from: written) == step, "round \(round)")
        }
    }
}
