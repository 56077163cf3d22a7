import Foundation
import Testing
@testable import Larder
@testable import LarderMessagePack

/// Undo steps are written by their own writer and read back through the `Codable` decoder, which
/// reads a small top-level map in one pass: every step must read back as it was written,
/// whatever its size (under and over the 1 KiB where the decoder changes path).
@Suite struct UndoStepRoundTripTests {
    @Test func randomStepsReadBackAsWritten() throws {
        var random = SplitMix(seed: 0x5eed_35)
        func image() -> [UInt8]? {
            Int.random(in: 0..<4, using: &random) == 0 ? nil : (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
        for _ in 0..<2_000 {
            var entries: [StoredUndoStep.Entry] = []
            for number in 0..<Int.random(in: 0...6, using: &random) {
                let before = StoredImage(object: image(), metadata: image())
                let after = StoredImage(object: image(), metadata: image())
                entries.append(StoredUndoStep.Entry(YapDB.Index(collection: "items", key: "k\(number)"), before: before, after: after))
            }
            let seconds = Double(Int.random(in: 0...2_000_000_000, using: &random))
            let group: String? = Bool.random(using: &random) ? "g\(Int.random(in: 0...9, using: &random))" : nil
            let step = StoredUndoStep(name: "step \(Int.random(in: 0...999, using: &random))", time: Date(timeIntervalSince1970: seconds), entries: entries, group: group)
            let bytes = try step.messagePackBytes()
            let read = try MessagePackDecoder().decode(StoredUndoStep.self, from: bytes)
            #expect(read.name == step.name && read.time == step.time && read.group == step.group && read.entries == step.entries, "\(bytes.count) bytes")
        }
    }
}
