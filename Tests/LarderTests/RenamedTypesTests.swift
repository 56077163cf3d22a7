import Foundation
import Testing

/// Types renamed in 0.2 keep user code compiling for one release: the old names are deprecated
/// aliases, so code written against 0.1 type-checks with a warning that names the new name.
@Suite("Renamed types")
struct RenamedTypesTests {
    @Test(.enabled(if: TopLevelAwaitTests.compiler != nil && TopLevelAwaitTests.modules != nil, "needs swiftc and the built Larder module"))
    func codeWrittenAgainstTheOldNamesStillCompiles() throws {
        let diagnostics = try TopLevelAwaitTests.typeCheck("""
            import Larder
            struct Item: Codable, Sendable { var price: Double }
            func register(_ db: Database) throws {
                let byPrice = View<Item, NoMetadata>(collections: ["items"], versionTag: "1",
                    grouping: { _, _ in "all" }, sorting: { _, item in TupleKey(item.price) })
                _ = try db.register(byPrice, named: "byPrice")
                let order: SortOrder = .descending
                print(order)
            }
            """)
        #expect(diagnostics.contains("'View' is deprecated") && diagnostics.contains("AutoView"), "\(diagnostics)")
        #expect(diagnostics.contains("'SortOrder' is deprecated") && diagnostics.contains("IndexOrder"), "\(diagnostics)")
        #expect(!diagnostics.contains("error:"), "\(diagnostics)")
    }
}
