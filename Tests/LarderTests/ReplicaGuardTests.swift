import Foundation
@testable import Larder
import Testing

/// The guard a replica's store gets (`Database.guardAsReplica()`): only a write that applies a
/// commit of the primary changes data, judged for each caller of a group commit on its own.
@Suite("Replica guard")
struct ReplicaGuardTests {
    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("larder-guard-\(name)-\(UUID().uuidString)").path
    }

    /// A commit of a "primary": what a write of `value` at `key` ships, captured in a scratch
    /// store and rolled back there.
    static func commit(key: String, value: Int) throws -> ReplicatedCommit {
        let path = temporaryPath("primary")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let scratch = try Database(path: path)
        return try scratch.write { txn in
            try txn.setObject(value, forKey: key, inCollection: "c")
            let commit = try txn.replicatedCommit()
            txn.rollback()
            return commit
        }
    }

    @Test func onlyAppliedCommitsChangeAGuardedStore() throws {
        let path = Self.temporaryPath("replica")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try Database(path: path)
        db.guardAsReplica()
        let refused = #expect(throws: LarderError.self) { try db.write { try $0.setObject(1, forKey: "local", inCollection: "c") } }
        #expect(refused?.code == .readOnly)
        let commit = try Self.commit(key: "k", value: 7)
        try db.write { try $0.apply(commit) }
        #expect(try db.read { try $0.object(forKey: "k", inCollection: "c", as: Int.self) } == 7)
        try db.write { _ in }  // a write that changes nothing is no write
    }

    /// In a group commit, a caller that applied a primary's commit lets no later caller's own
    /// write through (the guard of each caller starts afresh).
    @Test func aCallerThatAppliesLetsNoLaterCallerThrough() async throws {
        let path = Self.temporaryPath("group")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try Database(path: path)
        db.guardAsReplica()
        let commits = try (0..<8).map { try Self.commit(key: "k\($0)", value: $0) }
        for round in 0..<8 {
            // Hold the writer so that the next callers wait, and commit, together.
            async let blocker: Void = db.write { _ in Thread.sleep(forTimeInterval: 0.05) }
            try await Task.sleep(for: .milliseconds(10))
            async let applied: Void = db.write { try $0.apply(commits[round]) }
            try await Task.sleep(for: .milliseconds(5))
            let direct = await #expect(throws: LarderError.self) {
                try await db.write { try $0.setObject(round, forKey: "local\(round)", inCollection: "c") }
            }
            try await blocker
            try await applied
            #expect(direct?.code == .readOnly)
        }
        let keys = try await db.read { try $0.keys(inCollection: "c") }
        #expect(keys.sorted() == (0..<8).map { "k\($0)" })
    }
}
