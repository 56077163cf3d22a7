import Foundation
import Testing
@testable import Larder

/// A view's changes are written to the change log by hand (``ViewChanges/messagePackBytes()``)
/// and read with `Codable`: the two must agree byte for byte, or recorded changes would not read
/// back the same.
@Suite("View changes encoding")
struct ViewChangesEncodingTests {
    private func string(_ random: inout SplitMix) -> String {
        let pieces = ["", "a", "grüße", "\u{0}", "日本", "\u{1F600}", String(repeating: "g", count: 31), String(repeating: "h", count: 40),
                      String(repeating: "x", count: 300)]
        return (0..<Int.random(in: 0...2, using: &random)).map { _ in pieces[Int.random(in: pieces.indices, using: &random)] }.joined()
    }

    private func location(_ random: inout SplitMix) -> ViewLocation? {
        guard Bool.random(using: &random) else { return nil }
        // Positions across MessagePack's integer forms: fixint, uint8, uint16, uint32, uint64, and negatives.
        let positions = [0, 1, 127, 128, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296, Int.max, -1, -33, Int.min]
        return ViewLocation(group: string(&random), position: positions[Int.random(in: positions.indices, using: &random)])
    }

    @Test func theHandWrittenBytesAreTheCodableBytes() throws {
        var random = SplitMix(seed: 23)
        let kinds: [ViewChanges.RowChange.Kind] = [.insert, .delete, .move, .update]
        for round in 0..<200 {
            let rows = (0..<[0, 1, 2, 15, 16, 17][round % 6]).map { _ in
                ViewChanges.RowChange(kind: kinds[Int.random(in: kinds.indices, using: &random)],
                                      index: YapDB.Index(collection: string(&random), key: string(&random)),
                                      from: location(&random), to: location(&random))
            }
            let sections = (0..<[0, 1, 3, 16][round % 4]).map { _ in
                ViewChanges.SectionChange(kind: Bool.random(using: &random) ? .insert : .delete, group: string(&random))
            }
            let changes = ViewChanges(rows: rows, sections: sections, isReset: round % 5 == 0)
            let written = try changes.messagePackBytes()
            #expect(written == (try MessagePackEncoder().encode(changes)), "round \(round)")
            #expect(try MessagePackDecoder().decode(ViewChanges.self, from: written) == changes, "round \(round)")
        }
    }
}
