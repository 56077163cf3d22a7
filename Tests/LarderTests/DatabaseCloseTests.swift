import Foundation
import Synchronization
import Testing
@testable import Larder

/// `Database.close()`: what it refuses afterwards, what it lets finish first, and that the store
/// is then released.
@Suite("Closing a database")
struct DatabaseCloseTests {
    func expectClosed(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("the call did not throw after close()", sourceLocation: sourceLocation)
        } catch let error as LarderError {
            #expect(error.code == .databaseClosed, sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func everyLaterCallFailsWithDatabaseClosed() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        let connection = db.newConnection()
        try await db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
        await db.close()
        #expect(db.isClosed)
        #expect(EnvironmentRegistry.openCount(path: path) == 0)
        expectClosed { try db.write { try $0.setObject(2, forKey: "k", inCollection: "c") } }
        expectClosed { _ = try db.read { try $0.numberOfKeys(inCollection: "c") } }
        expectClosed { try connection.write { try $0.setObject(2, forKey: "k", inCollection: "c") } }
        expectClosed { _ = try connection.read { try $0.numberOfKeys(inCollection: "c") } }
        expectClosed { try connection.pinSnapshot() }
        expectClosed { _ = try connection.advanceSnapshot() }
        expectClosed { try db.sync() }
        expectClosed { _ = try db.statistics() }
        expectClosed { try db.copy(to: directory.file("copy")) }
        #expect(!FileIdentity.exists(directory.file("copy")))
        do {
            try await db.write { try $0.setObject(3, forKey: "k", inCollection: "c") }
            Issue.record("an async write after close() did not throw")
        } catch let error as LarderError {
            #expect(error.code == .databaseClosed)
        }
        #expect(db.readerSlots().isEmpty)
        #expect(db.clearStaleReaders() == 0)
        // Nothing was lost, nothing changed.
        let reopened = try Database(path: path)
        #expect(try await reopened.read { try $0.object(forKey: "k", inCollection: "c", as: Int.self) } == 1)
    }

    @Test func closingTwiceDoesNothingMore() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        await db.close()
        await db.close()
        await db.close()
        #expect(db.isClosed)
        #expect(EnvironmentRegistry.openCount(path: directory.file("store")) == 0)
    }

    @Test func closingAndReopeningTheSamePathWorks() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        for round in 0..<5 {
            let db = try Database(path: path)
            #expect(try db.read { try $0.numberOfKeys(inCollection: "c") } == round)
            try db.write { try $0.setObject(round, forKey: "k\(round)", inCollection: "c") }
            db.close()
            #expect(EnvironmentRegistry.openCount(path: path) == 0)
        }
        // A second Database on the store keeps it open after the first closes.
        let first = try Database(path: path)
        let second = try Database(path: path)
        first.close()
        #expect(EnvironmentRegistry.openCount(path: path) == 1)
        #expect(try second.read { try $0.numberOfKeys(inCollection: "c") } == 5)
        second.close()
        #expect(EnvironmentRegistry.openCount(path: path) == 0)
    }

    @Test func pendingAsyncWritesAreCommittedBeforeTheClose() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = Task {
            try await db.write { txn in
                started.signal()
                release.wait()
                try txn.setObject(0, forKey: "first", inCollection: "c")
            }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { started.wait(); continuation.resume() }
        }
        let queued = (1...3).map { i in
            Task { try await db.write { try $0.setObject(i, forKey: "q\(i)", inCollection: "c") } }
        }
        #expect(await eventually { db.writer.waitingCount == 3 })
        let closing = Task { await db.close() }
        #expect(await eventually { db.isClosed })
        // Closed to new work while the queued writes still wait.
        await #expect(throws: LarderError.self) { try await db.write { try $0.setObject(9, forKey: "late", inCollection: "c") } }
        #expect(EnvironmentRegistry.openCount(path: path) == 1)
        release.signal()
        try await first.value
        for write in queued { try await write.value }
        await closing.value
        #expect(EnvironmentRegistry.openCount(path: path) == 0)
        let reopened = try Database(path: path)
        let keys = try await reopened.read { try $0.keys(inCollection: "c") }
        #expect(Set(keys) == ["first", "q1", "q2", "q3"])
    }

    @Test func aReadInFlightFinishesBeforeTheStoreIsReleased() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try await db.write { try $0.setObject(41, forKey: "k", inCollection: "c") }
        let reading = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let closed = Atomic<Bool>(false)
        let outcome = Mutex<(value: Int?, closeReturnedDuringRead: Bool)?>(nil)
        let reader = Thread {
            let value = try? db.read { txn -> Int? in
                reading.signal()
                release.wait()
                // The transaction is still good: the store was not released under it.
                let value = try txn.object(forKey: "k", inCollection: "c", as: Int.self)
                outcome.withLock { $0 = (value, closed.load(ordering: .acquiring)) }
                return value
            }
            outcome.withLock { $0?.value = value }
        }
        reader.start()
        reading.wait()
        let closer = Task.detached {
            db.close()
            closed.store(true, ordering: .releasing)
        }
        #expect(await eventually { db.isClosed })
        try await Task.sleep(for: .milliseconds(50))
        let closedEarly = closed.load(ordering: .acquiring)
        #expect(!closedEarly)
        #expect(EnvironmentRegistry.openCount(path: path) == 1)
        release.signal()
        await closer.value
        #expect(EnvironmentRegistry.openCount(path: path) == 0)
        #expect(await eventually { outcome.withLock { $0?.value } != nil })
        let result = outcome.withLock { $0 }
        #expect(result?.value == 41)
        #expect(result?.closeReturnedDuringRead == false)
    }

    @Test func closingInsideATransactionReleasesWhenItEnds() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
        let value = try db.read { txn -> Int? in
            db.close()
            #expect(EnvironmentRegistry.openCount(path: path) == 1)
            return try txn.object(forKey: "k", inCollection: "c", as: Int.self)
        }
        #expect(value == 1)
        #expect(EnvironmentRegistry.openCount(path: path) == 0)
    }

    @Test func closingEndsPinnedSnapshots() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
        let connection = db.newConnection()
        try connection.pinSnapshot()
        #expect(connection.pinnedCommit == 1)
        db.close()
        #expect(connection.pinnedCommit == nil)
        #expect(EnvironmentRegistry.openCount(path: path) == 0)
        // The store reopens, and the released connection's snapshot pins nothing.
        let reopened = try Database(path: path)
        #expect(reopened.readerSlots().allSatisfy { $0.snapshotTransactionID == nil })
        connection.unpinSnapshot()
    }

    @Test func closingFromAnAsyncWriteDoesNotWaitForItself() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try await db.write { txn in
            try txn.setObject(1, forKey: "k", inCollection: "c")
            db.close()
        }
        #expect(db.isClosed)
        #expect(await eventually { EnvironmentRegistry.openCount(path: path) == 0 })
        let reopened = try Database(path: path)
        #expect(try await reopened.read { try $0.object(forKey: "k", inCollection: "c", as: Int.self) } == 1)
    }
}
