import Testing
@testable import Larder

/// The hub's window of recent changesets (issue 16 trims one entry per commit instead of
/// rebuilding the window): always the last `recentLimit` commits, never an older one.
@Suite("Change hub")
struct ChangeHubTests {
    @Test func theWindowHoldsTheLastCommitsOnly() throws {
        try withStore { db, _ in
            let hub = db.shared.changeHub
            let limit = ChangeHub.recentLimit
            for i in 0..<(limit + 40) {
                try db.write { try $0.setObject(i, forKey: "k\(i % 7)", inCollection: "c") }
                let last = try db.read { $0.lastCommit }
                let kept = hub.recentCommits
                let first = last >= UInt64(limit) ? last - UInt64(limit) + 1 : 1
                #expect(kept == Array(first...last), "after commit \(last)")
            }
        }
    }

    @Test func aCommitTooLargeToKeepLeavesNoStaleEntryBehind() throws {
        try withStore { db, _ in
            let hub = db.shared.changeHub
            let limit = UInt64(ChangeHub.recentLimit)
            for i in 0..<(ChangeHub.recentLimit + 20) { try db.write { try $0.setObject(i, forKey: "k", inCollection: "c") } }
            try db.write { txn in  // more indexes than the hub keeps in memory
                for i in 0...ChangeHub.recentEntryLimit { try txn.setObject(i, forKey: "bulk\(i)", inCollection: "c") }
            }
            let bulk = try db.read { $0.lastCommit }
            func expectWindow(_ comment: Comment) throws {
                let last = try db.read { $0.lastCommit }
                let first = last >= limit ? last - limit + 1 : 1
                #expect(hub.recentCommits == Array(first...last).filter { $0 != bulk }, comment)
            }
            for i in 0..<10 { try db.write { try $0.setObject(i, forKey: "k", inCollection: "c") } }
            try expectWindow("with the bulk commit inside the window")
            for i in 0..<ChangeHub.recentLimit { try db.write { try $0.setObject(i, forKey: "k", inCollection: "c") } }
            try expectWindow("with the bulk commit out of it")
            #expect(hub.recentChangeset(bulk) == nil)
        }
    }
}
