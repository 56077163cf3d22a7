import Foundation
import Synchronization
import Testing
@testable import Larder

/// The write path's seam: a participant added to the store hears of every change in order, sees
/// the bytes before a change when it asks, finishes at the commit, and keeps nothing of a group
/// commit's failed caller.
@Suite("Write path")
struct WritePathTests {
    /// What a recording participant heard, one commit per entry.
    final class Log: Sendable {
        let commits = Mutex<[(commit: UInt64, events: [String])]>([])
    }

    /// Writes down each thing the transaction tells it.
    final class Recorder: WriteParticipant {
        let log: Log
        let wantsImages: Bool
        var events: [String] = []

        init(log: Log, wantsImages: Bool) {
            self.log = log
            self.wantsImages = wantsImages
        }

        func fork() -> Recorder {
            let copy = Recorder(log: log, wantsImages: wantsImages)
            copy.events = events
            return copy
        }

        var wantsBeforeImages: Bool { wantsImages }

        func willChange(_ index: YapDB.Index, at storageKey: UnsafeRawBufferPointer, in txn: ReadWriteTransaction) throws {
            let image = try txn.storedImage(at: storageKey)
            let object = try image.object.map { try MessagePackDecoder().decode(Int.self, from: Array($0.dropFirst())) }
            events.append("before \(index.key) \(object.map(String.init) ?? "none") \(image.metadata == nil ? "-" : "m")")
        }

        func didChange(_ change: WriteChange, in txn: ReadWriteTransaction) throws {
            switch change {
            case .row(let row):
                events.append("row \(row.index.key) \(Self.describe(row.object, row.writtenObjectBox?.anyValue)) \(Self.describe(row.metadata, row.metadataBox?.anyValue))")
            case .removed(let index): events.append("removed \(index.key)")
            case .cleared(let collection): events.append("cleared \(collection)")
            case .removedEverything: events.append("removedEverything")
            }
        }

        static func describe(_ change: ValueChange?, _ value: Any?) -> String {
            switch change {
            case nil: return "-"
            case .written?: return "=\(value.map { "\($0)" } ?? "?")"
            case .removed?: return "removed"
            case .restored?: return "restored"
            case .touched?: return "touched"
            }
        }

        func closureDidReturn(in txn: ReadWriteTransaction) throws { events.append("closure") }

        func willCommit(_ changes: inout Changeset, in txn: ReadWriteTransaction) throws {
            events.append("willCommit \(changes.changes.count)")
        }

        func didCommit(_ commit: CommitReceipt) {
            let events = self.events
            log.commits.withLock { $0.append((commit.changeset.commit, events)) }
        }
    }

    static func recorded(_ db: Database, wantsImages: Bool = false) -> Log {
        let log = Log()
        db.shared.addParticipant { Recorder(log: log, wantsImages: wantsImages) }
        return log
    }

    @Test func aParticipantHearsOfEveryChangeInOrder() throws {
        try withStore { db, _ in
        let log = Self.recorded(db)
        try db.write { txn in
            try txn.setObject(1, forKey: "a", inCollection: "c")
            try txn.setObject(2, forKey: "b", inCollection: "c", metadata: "m")
            try txn.replaceMetadata("n", forKey: "b", inCollection: "c")
            try txn.touchObject(forKey: "a", inCollection: "c")
            try txn.removeObject(forKey: "b", inCollection: "c")
            try txn.setObject(3, forKey: "z", inCollection: "d")
            try txn.removeAllObjects(inCollection: "d")
        }
        let commits = log.commits.withLock { $0 }
        #expect(commits.count == 1)
        #expect(commits.first?.commit == 1)
        #expect(commits.first?.events == [
            "row a =1 removed", "row b =2 =m", "row b - =n", "row a touched -", "removed b",
            "row z =3 removed", "cleared d", "closure", "willCommit 1",
        ])
        }
    }

    @Test func aWriteThatChangesNothingStillFinishesButIsNotCommitted() throws {
        try withStore { db, _ in
            let log = Self.recorded(db)
            try db.write { txn in _ = try txn.removeObject(forKey: "missing", inCollection: "c") }
            #expect(log.commits.withLock { $0.isEmpty })
        }
    }

    @Test func aParticipantThatAsksSeesTheBytesBeforeTheFirstChange() throws {
        try withStore { db, _ in
        try db.write { try $0.setObject(7, forKey: "x", inCollection: "c", metadata: "m") }
        let log = Self.recorded(db, wantsImages: true)
        try db.write { txn in
            try txn.setObject(8, forKey: "x", inCollection: "c")
            try txn.setObject(1, forKey: "new", inCollection: "c")
        }
        #expect(log.commits.withLock { $0.first?.events.filter { $0.hasPrefix("before") } } == ["before x 7 m", "before new none -"])
        }
    }

    @Test func aFailedCallerOfAGroupCommitLeavesNoTraceInAParticipant() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        let log = Self.recorded(db)
        let outcomes = try await GroupCommitTests().grouped(db, 4) { caller, txn in
            try txn.setObject(caller, forKey: "k\(caller)", inCollection: "g")
            if caller == 2 { throw GroupCommitTests.Failure(caller: caller) }
            return caller
        }
        #expect(outcomes.filter { (try? $0.get()) == nil }.count == 1)
        let grouped = try #require(log.commits.withLock { $0.last })
        // The callers' tasks may reach the writer in any order: the group holds their rows in
        // the order they ran, which the test does not fix.
        let rows = grouped.events.filter { $0.hasPrefix("row") }.sorted()
        #expect(rows == ["row k0 =0 removed", "row k1 =1 removed", "row k3 =3 removed"])
        #expect(grouped.events.filter { $0 == "closure" }.count >= 3)
    }

    /// Rewrites nine keys with values of changing sizes (overflow values among them), with
    /// metadata on every other write and some removals, over four transactions, reading each
    /// value back in the transaction; returns what the store should hold.
    static func rewriteValues(in db: Database) throws -> [String: [UInt8]] {
        let sizes = [1, 100, 9_000, 3, 40_000, 0, 600]
        var expected: [String: [UInt8]] = [:]
        for round in 0..<4 {
            try db.write { txn in
                for step in 0..<30 {
                    let key = "k\(step % 9)"
                    let value = [UInt8](repeating: UInt8(truncatingIfNeeded: round * 31 + step), count: sizes[(round + step) % sizes.count])
                    try txn.setObject(value, forKey: key, inCollection: "values", metadata: step % 2 == 0 ? value.count : nil)
                    expected[key] = value
                    #expect(try txn.object(forKey: key, inCollection: "values", as: [UInt8].self) == value)
                    if step % 7 == 6 {
                        _ = try txn.removeObject(forKey: key, inCollection: "values")
                        expected[key] = nil
                    }
                }
            }
        }
        return expected
    }

    /// Stores go through a cursor kept for the transaction (one search of the tree per store):
    /// replacing a value with one of another size, across the page boundary both ways (an
    /// overflow value and back), in one transaction and across several, in a group commit whose
    /// caller fails (its nested transaction's cursor goes with it), keeps every value and a
    /// consistent store.
    @Test func replacingValuesThroughTheTransactionsCursorKeepsEveryValue() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        var expected = try Self.rewriteValues(in: db)
        let outcomes = try await GroupCommitTests().grouped(db, 4) { caller, txn in
            try txn.setObject([UInt8](repeating: UInt8(caller), count: [5_000, 7, 50, 30_000][caller]), forKey: "k\(caller)", inCollection: "values")
            if caller == 2 { throw GroupCommitTests.Failure(caller: caller) }
            return caller
        }
        #expect(outcomes.filter { (try? $0.get()) == nil }.count == 1)
        for caller in [0, 1, 3] { expected["k\(caller)"] = [UInt8](repeating: UInt8(caller), count: [5_000, 7, 50, 30_000][caller]) }
        let stored = try Self.storedValues(in: db)
        #expect(stored == expected)
        #expect(try Self.storedCount(in: db) == expected.count)
        #expect(try db.checkStructure().isConsistent)
    }

    /// The count of the collection "values", as the store keeps it.
    static func storedCount(in db: Database) throws -> Int {
        try db.read { try $0.numberOfKeys(inCollection: "values") }
    }

    /// Every value of the collection "values", read back.
    static func storedValues(in db: Database) throws -> [String: [UInt8]] {
        try db.read { txn in
            var values: [String: [UInt8]] = [:]
            for key in try txn.keys(inCollection: "values") {
                values[key] = try txn.object(forKey: key, inCollection: "values", as: [UInt8].self)
            }
            return values
        }
    }
}
