import Foundation
import Testing
@testable import Larder

/// Pinned snapshots: a connection's reads stay on one commit until it moves them forward.
@Suite("Pinned snapshots")
struct SnapshotTests {
    func value(_ connection: Connection, _ key: String = "x") throws -> Int? {
        try connection.read { try $0.object(forKey: key, inCollection: "c", as: Int.self) }
    }

    @Test func pinnedReadsStayUntilAdvanced() throws {
        try withStore { db, _ in
            try db.write { try $0.setObject(1, forKey: "x", inCollection: "c") }
            let ui = db.newConnection()
            try ui.pinSnapshot()
            #expect(ui.pinnedCommit == 1)
            #expect(try value(ui) == 1)
            try db.write { try $0.setObject(2, forKey: "x", inCollection: "c") }
            try db.write { try $0.setObject(3, forKey: "y", inCollection: "c") }
            #expect(try value(ui) == 1)
            #expect(try value(ui, "y") == nil)
            #expect(try ui.read { $0.lastCommit } == 1)
            // A read nested in a read of the pinned snapshot sees the same snapshot.
            #expect(try ui.read { _ in try value(ui) } == 1)

            let skipped = try ui.advanceSnapshot()
            #expect(skipped.map(\.commit) == [2, 3])
            #expect(skipped.hasObjectChange(for: YapDB.Index(collection: "c", key: "x")))
            #expect(try value(ui) == 2 && value(ui, "y") == 3)
            #expect(try ui.advanceSnapshot().isEmpty)

            ui.unpinSnapshot()
            #expect(ui.pinnedCommit == nil)
            try db.write { try $0.setObject(4, forKey: "x", inCollection: "c") }
            #expect(try value(ui) == 4)
        }
    }

    @Test func writesOfAPinnedConnectionStartFromTheNewestCommit() throws {
        try withStore { db, _ in
            try db.write { try $0.setObject(1, forKey: "x", inCollection: "c") }
            let ui = db.newConnection()
            try ui.pinSnapshot()
            try db.write { try $0.setObject(2, forKey: "x", inCollection: "c") }
            try ui.write { txn in
                #expect(try txn.object(forKey: "x", inCollection: "c", as: Int.self) == 2)
                try txn.setObject(10, forKey: "x", inCollection: "c")
            }
            #expect(try value(ui) == 1)  // still the pinned snapshot
            #expect(try ui.advanceSnapshot().count == 2)
            #expect(try value(ui) == 10)
        }
    }

    @Test func advancingPastWhatTheLogKeepsIsAReset() throws {
        var configuration = Database.Configuration()
        configuration.changeLogLimit = 3
        configuration.durability = .noMetaSync
        try withStore(configuration) { db, _ in
            let ui = db.newConnection()
            try ui.pinSnapshot()
            let commits = ChangeHub.recentLimit + 20
            for i in 0..<commits { try db.write { try $0.setObject(i, forKey: "x", inCollection: "c") } }
            let skipped = try ui.advanceSnapshot()
            #expect(skipped.count == 1)
            #expect(skipped.first?.isReset == true)
            #expect(skipped.first?.commits == 1...UInt64(commits))
            #expect(try value(ui) == commits - 1)
        }
    }

    @Test func aPinnedSnapshotSurvivesTheMapGrowing() throws {
        var configuration = Database.Configuration()
        configuration.initialMapSize = 1 << 20
        try withStore(configuration) { db, _ in
            try db.write { try $0.setObject(1, forKey: "x", inCollection: "c") }
            let ui = db.newConnection()
            try ui.pinSnapshot()
            let chunk = [UInt8](repeating: 7, count: 64 << 10)
            for i in 0..<64 {  // 4 MiB, several resizes while the snapshot is pinned
                try db.write { try $0.setObject(chunk, forKey: "big\(i)", inCollection: "blobs") }
            }
            #expect(db.environment.resizeCount > 0)
            #expect(try value(ui) == 1)
            #expect(try ui.read { try $0.numberOfKeys(inCollection: "blobs") } == 0)
            _ = try ui.advanceSnapshot()
            #expect(try ui.read { try $0.numberOfKeys(inCollection: "blobs") } == 64)
        }
    }

    @Test func theCacheFollowsThePinnedSnapshot() throws {
        try withStore { db, _ in
            try db.write { try $0.setObject(1, forKey: "x", inCollection: "c") }
            let ui = db.newConnection()
            try ui.pinSnapshot()
            #expect(try value(ui) == 1)
            #expect(try value(ui) == 1)
            #expect(ui.cacheStatistics.objectHits == 1)
            try db.write { try $0.setObject(2, forKey: "x", inCollection: "c") }
            // A write through the pinned connection moves its cache to the newest commit; the
            // pinned snapshot is older, so its reads no longer use the cache, and stay right.
            try ui.write { try $0.setObject(5, forKey: "z", inCollection: "c") }
            #expect(try value(ui) == 1)
            _ = try ui.advanceSnapshot()
            #expect(try value(ui) == 2)
        }
    }

    @Test func unpinningWhenNothingIsPinnedDoesNothing() throws {
        try withStore { db, _ in
            let connection = db.newConnection()
            connection.unpinSnapshot()
            try connection.pinSnapshot()
            try connection.pinSnapshot()  // already pinned: stays where it is
            #expect(connection.pinnedCommit == 0)
        }
    }
}
