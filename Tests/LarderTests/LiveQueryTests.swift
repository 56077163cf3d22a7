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

    @Test func aLiveViewFollowsAGroupWithRowChangesAndASlidingWindow() async throws {
        let db = try Database.temporary()
        defer { db.close() }
        let byName = try db.register(
            AutoView<String, NoMetadata>(collections: ["notes"], versionTag: "1",
                                         grouping: { _, name in name.hasPrefix("x") ? nil : "all" },
                                         sorting: { _, name in TupleKey(name) }),
            named: "byName")
        try await db.write { txn in for name in ["b", "d", "f"] { try txn.setObject(name, forKey: name, inCollection: "notes") } }
        let list = db.liveView(byName, groups: ["all"], range: .first(2))
        #expect(await settle { list.page?.sections.first?.items.map(\.object) == ["b", "d"] })
        #expect(list.page?.isReset == true)
        #expect(list.page?.sections.first?.numberOfItems == 3)

        let flag = Flag()
        withObservationTracking { _ = list.page } onChange: { flag.raised.store(true, ordering: .releasing) }
        try await db.write { try $0.setObject("a", forKey: "a", inCollection: "notes") }
        #expect(await settle { flag.raised.load(ordering: .acquiring) }, "Observation did not see the change")
        #expect(await settle { list.page?.sections.first?.items.map(\.object) == ["a", "b"] })
        let changes = try #require(list.page).rowChanges
        #expect(Set(changes.map { "\($0.kind) \($0.index.key)" }) == ["insert a", "delete d"])

        list.setRange(.positions(2..<4))
        #expect(await settle { list.page?.sections.first?.items.map(\.object) == ["d", "f"] })
        #expect(list.page?.isReset == false)

        list.stop()
        try await db.write { try $0.setObject("c", forKey: "c", inCollection: "notes") }
        try await Task.sleep(for: .milliseconds(100))
        #expect(list.page?.sections.first?.items.map(\.object) == ["d", "f"])  // stopped: the last page kept
        #expect(list.error == nil)
    }

    @Test func aLiveViewOfAViewNotRegisteredKeepsTheError() async throws {
        let db = try Database.temporary()
        defer { db.close() }
        let missing = ViewHandle<String, NoMetadata>(name: "missing")
        let list = db.liveView(missing)
        #expect(await settle { list.error != nil })
        #expect((list.error as? LarderError)?.code == .extensionNotRegistered)
        #expect(list.page == nil)
    }
}
