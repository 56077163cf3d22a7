import Foundation
import Observation
import Synchronization
import Testing
@testable import Larder

/// `liveQuery`: an `@Observable` result that Observation's tracking sees change after a commit.
@Suite("Live queries")
@MainActor
struct LiveQueryTests {
    final class Flag: Sendable {
        let raised = Atomic<Bool>(false)
    }

    /// Waits on the main actor, letting its tasks run, until `condition` holds (10 s at most).
    func settle(_ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while !condition() && Date() < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        return condition()
    }

    @Test func aLiveQueryFollowsCommitsAndObservationSeesIt() async throws {
        let db = try Database.temporary()
        defer { db.close() }
        let count = db.liveQuery(initial: -1) { txn in try txn.numberOfKeys(inCollection: "notes") }
        #expect(await settle { count.value == 0 })

        let flag = Flag()
        withObservationTracking { _ = count.value } onChange: { flag.raised.store(true, ordering: .releasing) }
        try await db.write { try $0.setObject("milk", forKey: "n1", inCollection: "notes") }
        #expect(await settle { flag.raised.load(ordering: .acquiring) }, "Observation did not see the change")
        #expect(await settle { count.value == 1 })
        #expect(count.error == nil)

        count.stop()
        try await db.write { try $0.setObject("eggs", forKey: "n2", inCollection: "notes") }
        try await Task.sleep(for: .milliseconds(100))
        #expect(count.value == 1)  // stopped: it keeps its last result
    }

    @Test func anErrorEndsItAndIsKept() async throws {
        struct Refused: Error {}
        let db = try Database.temporary()
        defer { db.close() }
        let query = db.liveQuery(initial: 0) { txn -> Int in
            let n = try txn.object(forKey: "n", inCollection: "c", as: Int.self) ?? 0
            if n < 0 { throw Refused() }
            return n
        }
        try await db.write { try $0.setObject(5, forKey: "n", inCollection: "c") }
        #expect(await settle { query.value == 5 })
        try await db.write { try $0.setObject(-1, forKey: "n", inCollection: "c") }
        #expect(await settle { query.error is Refused })
        #expect(query.value == 5)
    }
}
