import Testing
@testable import Larder

/// `ViewChanges` and its parts print as one readable line (issue 36): in logs, in `print`, and in
/// a failed expectation.
@Suite("View changes: descriptions")
struct ViewChangesDescriptionTests {
    @Test func eachKindReadsAsWhatHappened() {
        let item = YapDB.Index(collection: "items", key: "k1")
        let a = ViewLocation(group: "tools", position: 2), b = ViewLocation(group: "garden", position: 0)
        typealias Row = ViewChanges.RowChange
        #expect(Row(kind: .insert, index: item, from: nil, to: b).description == "insert items/k1 at garden[0]")
        #expect(Row(kind: .delete, index: item, from: a, to: nil).description == "delete items/k1 from tools[2]")
        #expect(Row(kind: .move, index: item, from: a, to: b).description == "move items/k1 tools[2] → garden[0]")
        #expect(Row(kind: .update, index: item, from: a, to: a).description == "update items/k1 at tools[2]")
        #expect(ViewChanges.SectionChange(kind: .delete, group: "tools").description == "delete section tools")
        let changes = ViewChanges(rows: [Row(kind: .delete, index: item, from: a, to: nil)],
                                  sections: [ViewChanges.SectionChange(kind: .delete, group: "tools")])
        #expect(changes.description == "delete section tools; delete items/k1 from tools[2]")
        #expect(String(describing: changes) == changes.description)
        #expect(ViewChanges(isReset: true).description == "reset")
        #expect(ViewChanges().description == "no changes")
    }
}
