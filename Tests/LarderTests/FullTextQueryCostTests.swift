import Foundation
import Testing
@testable import Larder

/// What a query's prefixes cost is bounded: a prefix written many times is read once (4,000
/// copies of `w*` read as many postings blocks as one; they read it 4,000 times, for seconds),
/// and prefixes that together would read more than `FullTextQuery.maximumPrefixBlocks` blocks
/// are refused with `invalidQuery`, never cut short.
@Suite("Full-text search: what prefixes cost")
struct FullTextQueryCostTests {
    struct Doc: Codable, Sendable {
        var text: String
    }

    static func fill(_ db: Database) throws -> FullTextSearchHandle<Doc, NoMetadata> {
        let search = try db.register(FullTextSearch<Doc, NoMetadata>(collections: ["docs"], versionTag: "1", columnNames: ["text"]) { _, doc in [doc.text] },
                                     named: "docs")
        try db.write { txn in
            for n in 0..<40 {
                let words = (0..<50).map { "w\(n * 50 + $0)" } + ["common"]
                try txn.setObject(Doc(text: words.joined(separator: " ")), forKey: "d\(n)", inCollection: "docs")
            }
        }
        return search
    }

    @Test func aPrefixWrittenManyTimesIsReadOnceAndMatchesAsOnce() throws {
        try withStore { db, _ in
            let search = try Self.fill(db)
            try db.read { txn in
                let reader = try txn[search]
                func blocksRead(_ text: String) throws -> (blocks: Int, ids: [UInt64]) {
                    let plan = try reader.plan(FullTextQuery(parsing: text))
                    let searcher = try reader.searcher()
                    var lists: [FullTextPostingList?] = []
                    let ids = try searcher.matches(plan, lists: &lists)
                    return (searcher.prefixBlocksRead, ids)
                }
                let once = try blocksRead("w*")
                #expect(once.blocks >= 2_000 && once.ids.count == 40)
                let many = try blocksRead(Array(repeating: "w*", count: 4_000).joined(separator: " OR "))
                #expect(many.blocks == once.blocks && many.ids == once.ids)
                // Another column filter or another prefix is another read; the same one excluded is not.
                #expect(try blocksRead("w1* OR w1* OR w2*").blocks == (try blocksRead("w1*").blocks) + (try blocksRead("w2*").blocks))
                #expect(try blocksRead("common NOT w1* NOT w1*").blocks == (try blocksRead("w1*").blocks))
                // Ranking sees each copy as written: the results of the copies are the single prefix's.
                #expect(try reader.search("w1* OR w1*").map(\.index) .sorted() == (try reader.search("w1*").map(\.index)).sorted())
            }
        }
    }

    @Test func prefixesThatWouldReadTooMuchAreRefusedNotCutShort() throws {
        try withStore { db, _ in
            let search = try Self.fill(db)
            try db.read { txn in
                let reader = try txn[search]
                let plan = try reader.plan(FullTextQuery(parsing: "w1* OR w2* OR w3*"))
                var searcher = try reader.searcher()
                var lists: [FullTextPostingList?] = []
                let needed = try searcher.matches(plan, lists: &lists).count
                #expect(needed > 0)
                let blocks = searcher.prefixBlocksRead
                // Exactly enough: the same answer.
                searcher = try reader.searcher()
                searcher.prefixBlockLimit = blocks
                lists = []
                #expect(try searcher.matches(plan, lists: &lists).count == needed)
                // One block fewer: refused, with the limit named.
                searcher = try reader.searcher()
                searcher.prefixBlockLimit = blocks - 1
                lists = []
                let error = #expect(throws: LarderError.self) { try searcher.matches(plan, lists: &lists) }
                #expect(error?.code == .invalidQuery && error?.message.contains("maximumPrefixBlocks") == true)
            }
            // The public limit is what searches use.
            #expect(FullTextQuery.maximumPrefixBlocks == 1_000_000)
            #expect(try db.read { try $0[search].count(matching: "w*") } == 40)
        }
    }
}
