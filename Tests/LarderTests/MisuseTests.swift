import Foundation
import Testing
@testable import Larder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Misuse the types cannot prevent stops the process with a message naming it (DESIGN.md,
// "Errors and bad input"): never a deadlock, never silence. Each case runs in a child process
// (an exit test) on a store the parent seeded; afterwards the parent checks that the store
// still opens and holds exactly what it held before (the aborted transaction left nothing).

@Suite struct MisuseTests {
    @Test func writeInsideWriteOnTheSameThreadStops() async throws {
        let store = try MisuseStore()
        let path = store.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            misuseChild {
                let db = try Database(path: path)
                try db.write { outer in
                    try outer.setObject(MisuseValue(text: "outer"), forKey: "outer", inCollection: "misuse")
                    try db.write { inner in
                        try inner.setObject(MisuseValue(text: "inner"), forKey: "inner", inCollection: "misuse")
                    }
                }
            }
        }
        expectStopped(result, message: "write transaction was started inside another write transaction")
        try store.expectUnchanged()
    }

    @Test func movingAPinnedSnapshotInsideItsReadStops() async throws {
        let store = try MisuseStore()
        let path = store.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            misuseChild {
                let db = try Database(path: path)
                let connection = db.newConnection()
                try connection.pinSnapshot()
                try connection.read { _ in _ = try connection.advanceSnapshot() }
            }
        }
        expectStopped(result, message: "pinned snapshot was moved inside a read of it")
        try store.expectUnchanged()
    }

    @Test func writeInsideWriteThroughAnotherDatabaseOnTheSameFileStops() async throws {
        // Two Database values on one file share the environment: LMDB would deadlock all the same.
        let store = try MisuseStore()
        let path = store.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            misuseChild {
                let first = try Database(path: path)
                let second = try Database(path: path + "/../store")
                try first.write { outer in
                    try outer.setObject(MisuseValue(text: "outer"), forKey: "outer", inCollection: "misuse")
                    try second.write { inner in
                        try inner.setObject(MisuseValue(text: "inner"), forKey: "inner", inCollection: "misuse")
                    }
                }
            }
        }
        expectStopped(result, message: "write transaction was started inside another write transaction")
        try store.expectUnchanged()
    }

    @Test func readTransactionUsedAfterItsClosureStops() async throws {
        let store = try MisuseStore()
        let path = store.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            misuseChild {
                let db = try Database(path: path)
                var smuggled: ReadTransaction?
                try db.read { smuggled = $0 }
                _ = try smuggled?.object(forKey: "seed", inCollection: "misuse", as: MisuseValue.self)
            }
        }
        expectStopped(result, message: "used after its closure returned")
        try store.expectUnchanged()
    }

    @Test func theOuterTransactionUsedInsideASavepointStops() async throws {
        let store = try MisuseStore()
        let path = store.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            misuseChild {
                let db = try Database(path: path)
                try db.write { outer in
                    try outer.savepoint { _ in
                        try outer.setObject(MisuseValue(text: "beside"), forKey: "beside", inCollection: "misuse")
                    }
                }
            }
        }
        expectStopped(result, message: "while a savepoint of it ran")
        try store.expectUnchanged()
    }

    @Test func writeTransactionUsedAfterItsClosureStops() async throws {
        let store = try MisuseStore()
        let path = store.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            misuseChild {
                let db = try Database(path: path)
                var smuggled: ReadWriteTransaction?
                try db.write { smuggled = $0 }
                try smuggled?.setObject(MisuseValue(text: "late"), forKey: "late", inCollection: "misuse")
            }
        }
        expectStopped(result, message: "used after its closure returned")
        try store.expectUnchanged()
    }

    @Test func modifyingTheStoreInsideAnEnumerationStops() async throws {
        let store = try MisuseStore()
        let path = store.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            misuseChild {
                let db = try Database(path: path)
                try db.write { txn throws in
                    try txn.enumerateKeys(inCollection: "misuse") { key, _ in
                        try txn.removeObject(forKey: key, inCollection: "misuse")
                    }
                }
            }
        }
        expectStopped(result, message: "inside an enumeration")
        try store.expectUnchanged()
    }

    @Test func settingAnObjectInsideAnObjectEnumerationStops() async throws {
        let store = try MisuseStore()
        let path = store.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            misuseChild {
                let db = try Database(path: path)
                try db.write { txn throws in
                    try txn.enumerateObjects(inCollection: "misuse", as: MisuseValue.self) { key, value, _ in
                        try txn.setObject(MisuseValue(text: value.text + "!"), forKey: key + "-copy", inCollection: "misuse")
                    }
                }
            }
        }
        expectStopped(result, message: "inside an enumeration")
        try store.expectUnchanged()
    }

    @Test func writeAfterRollbackStops() async throws {
        let store = try MisuseStore()
        let path = store.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            misuseChild {
                let db = try Database(path: path)
                try db.write { txn throws in
                    try txn.setObject(MisuseValue(text: "rolled back"), forKey: "gone", inCollection: "misuse")
                    txn.rollback()
                    try txn.setObject(MisuseValue(text: "after"), forKey: "after", inCollection: "misuse")
                }
            }
        }
        expectStopped(result, message: "after rollback()")
        try store.expectUnchanged()
    }

    /// The same misuse without stopping: reading after rollback is allowed and rollback keeps
    /// nothing. Guards the exit tests above against passing for a reason other than the misuse.
    @Test func rollbackWithoutFurtherWritesIsFine() throws {
        let store = try MisuseStore()
        let db = try Database(path: store.path)
        let seen = try db.write { txn throws in
            try txn.setObject(MisuseValue(text: "rolled back"), forKey: "gone", inCollection: "misuse")
            txn.rollback()
            return try txn.numberOfKeys(inCollection: "misuse")
        }
        #expect(seen >= 1)
        #expect(try db.read { try $0.hasObject(forKey: "gone", inCollection: "misuse") } == false)
        try store.expectUnchanged(db)
    }
}

// MARK: - Support

private struct MisuseValue: Codable, Equatable, Sendable {
    var text: String
}

/// A seeded store in a temporary directory, closed (no `Database` kept), for a child to misuse.
private struct MisuseStore {
    let directory = TemporaryDirectory()
    var path: String { directory.file("store") }

    init() throws {
        let db = try Database(path: path)
        try db.write { txn throws in
            try txn.setObject(MisuseValue(text: "seed"), forKey: "seed", inCollection: "misuse")
            try txn.setObject(MisuseValue(text: "second"), forKey: "second", inCollection: "misuse")
        }
    }

    /// Opens the store again (after the child died) and checks it holds just the seed.
    func expectUnchanged(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let db = try Database(path: path)
        try expectUnchanged(db, sourceLocation: sourceLocation)
        // The store still takes writes: no lock was left held by the dead child.
        try db.write { try $0.setObject(MisuseValue(text: "later"), forKey: "later", inCollection: "other") }
        #expect(try db.read { try $0.numberOfKeys(inCollection: "other") } == 1, sourceLocation: sourceLocation)
    }

    func expectUnchanged(_ db: Database, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try db.read { txn throws in
            #expect(try txn.keys(inCollection: "misuse") == ["second", "seed"], sourceLocation: sourceLocation)
            #expect(try txn.numberOfKeys(inCollection: "misuse") == 2, sourceLocation: sourceLocation)
            #expect(try txn.object(forKey: "seed", inCollection: "misuse", as: MisuseValue.self) == MisuseValue(text: "seed"), sourceLocation: sourceLocation)
        }
    }
}

/// Runs a child's body; an error thrown instead of the expected stop exits with status 3 (not a
/// signal), which ``expectStopped(_:message:sourceLocation:)`` reports.
private func misuseChild(_ body: () throws -> Void) {
    do {
        try body()
        FileHandle.standardError.write(Data("misuse child: the misuse did not stop the process\n".utf8))
        exit(4)
    } catch {
        FileHandle.standardError.write(Data("misuse child: threw instead of stopping: \(error)\n".utf8))
        exit(3)
    }
}

/// Checks that the child was stopped by a trap (a failed precondition), not by an exit, and, in
/// debug builds (where preconditions print their message), that stderr names the misuse.
private func expectStopped(_ result: ExitTest.Result?, message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let result else { return }  // #expect already recorded the wrong exit
    let standardError = String(decoding: result.standardErrorContent, as: UTF8.self)
    guard case .signal = result.exitStatus else {
        Issue.record("the child exited with \(result.exitStatus) instead of stopping on a precondition: \(standardError)", sourceLocation: sourceLocation)
        return
    }
    #if DEBUG
    #expect(standardError.contains("Larder misuse"), "stderr: \(standardError)", sourceLocation: sourceLocation)
    #expect(standardError.contains(message), "stderr: \(standardError)", sourceLocation: sourceLocation)
    #endif
}
