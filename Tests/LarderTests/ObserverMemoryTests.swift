import Foundation
import Testing
@testable import Larder

/// A stream held but never consumed keeps a bounded buffer whatever the number of commits, and
/// draining it afterwards gives merged changes that still say everything that changed (or a reset).
///
/// Quick mode: 3,000 commits per case. `LARDER_FULL=1`: 20,000, and the process's anonymous memory
/// (`RssAnon`) before and after is printed.
@Suite("Observer memory")
struct ObserverMemoryTests {
    static var full: Bool { ProcessInfo.processInfo.environment["LARDER_FULL"] != nil }
    static var commits: Int { full ? 20_000 : 3_000 }

    struct Tool: Codable, Sendable, Equatable, Persistable {
        static let collection = "tools"
        var id: String
        var price: Int
    }

    static func store(_ directory: TemporaryDirectory) throws -> Database {
        var configuration = Database.Configuration()
        configuration.durability = .noMetaSync
        return try Database(path: directory.file("store"), configuration: configuration)
    }

    static func byPrice() -> AutoView<Tool, NoMetadata> {
        AutoView(collections: [Tool.collection], versionTag: "1", grouping: { _, _ in "all" }, sorting: { _, tool in TupleKey(tool.price) })
    }

    /// The anonymous memory of this process, in kB (Linux), for the figures of the full run.
    static func anonymousKilobytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
    }

    /// Drains what `stream` buffered, checking the changesets cover commits `first...last` in order.
    static func drain(_ stream: ChangeStream, from first: UInt64 = 1, through last: UInt64) async throws -> [Changeset] {
        var iterator = stream.makeAsyncIterator()
        var received: [Changeset] = []
        while received.last?.commit != last {
            received.append(try #require(try await next(&iterator)))
        }
        #expect(received.first?.commits.lowerBound == first)
        #expect(zip(received, received.dropFirst()).allSatisfy { $0.commit + 1 == $1.commits.lowerBound })
        return received
    }

    @Test func oneObjectRewrittenWithAViewStaysBoundedAndTheViewReportsAReset() async throws {
        let directory = TemporaryDirectory()
        let db = try Self.store(directory)
        let view = try db.register(Self.byPrice(), named: "byPrice")
        let start = try await db.read { $0.lastCommit }
        let stream = db.changes(inCollection: Tool.collection)
        let subscription = stream.lease.subscription
        // The process's anonymous memory after each quarter of the commits: a plateau, not a line.
        var memory: [Int] = []
        var largest = 0
        for i in 0..<Self.commits {
            try await db.write { try $0.write(Tool(id: "hammer", price: i)) }
            largest = max(largest, subscription.bufferedFootprint)
            if (i + 1) % (Self.commits / 4) == 0 { memory.append(Self.anonymousKilobytes() ?? -1) }
        }
        if Self.full { print("one key, one view, \(Self.commits) commits: largest buffer \(largest) bytes; RssAnon by quarter \(memory) kB") }
        #expect(largest <= ChangeSubscription.byteLimit, "\(largest)")
        #expect(subscription.bufferedCount <= ChangeSubscription.bufferLimit)
        #expect(subscription.bufferedEntryCount <= ChangeSubscription.bufferLimit)

        let received = try await Self.drain(stream, from: start + 1, through: start + UInt64(Self.commits))
        #expect(received.allSatisfy { $0.hasObjectChange(for: Tool.index(forKey: "hammer")) })
        #expect(received.allSatisfy { $0.changedKeys(inCollection: Tool.collection).isSubset(of: ["hammer"]) })
        // Row moves of thousands of commits do not fit: the merged part tells the view to reload.
        let viewChanges = try view.changes(in: received)
        #expect(viewChanges.contains { $0.isReset })
        #expect(try await db.read { try $0.object(forKey: "hammer", inCollection: Tool.collection, as: Tool.self) }?.price == Self.commits - 1)
    }

    @Test func manyDistinctKeysWithRemovesStayBoundedAndMergeOrReset() async throws {
        let directory = TemporaryDirectory()
        let db = try Self.store(directory)
        let stream = db.changes()
        let subscription = stream.lease.subscription
        var expected = Set<String>()  // the keys present at the end
        var largest = 0
        var largestEntries = 0
        for i in 0..<Self.commits {
            // Three new keys a commit; the previous commit's first is removed, its second updated.
            try await db.write { txn in
                for j in 0..<3 { try txn.setObject(i, forKey: "k\(i)-\(j)", inCollection: "c") }
                if i > 0 {
                    _ = try txn.removeObject(forKey: "k\(i - 1)-0", inCollection: "c")
                    try txn.setObject(-i, forKey: "k\(i - 1)-1", inCollection: "c")
                }
            }
            expected.formUnion((0..<3).map { "k\(i)-\($0)" })
            if i > 0 { expected.remove("k\(i - 1)-0") }
            _ = try await db.read { try $0.object(forKey: "k\(i)-2", inCollection: "c", as: Int.self) }
            largest = max(largest, subscription.bufferedFootprint)
            largestEntries = max(largestEntries, subscription.bufferedEntryCount)
        }
        if Self.full { print("distinct keys, \(Self.commits) commits: largest buffer \(largest) bytes, \(largestEntries) entries") }
        #expect(largest <= ChangeSubscription.byteLimit, "\(largest)")
        #expect(largestEntries <= ChangeSubscription.entryLimit + ChangeSubscription.bufferLimit * 5)  // five indexes a commit

        let received = try await Self.drain(stream, through: UInt64(Self.commits))
        // Every key still present is reported changed by some changeset (listed, or under a reset).
        for key in expected {
            #expect(received.contains { $0.hasObjectChange(for: YapDB.Index(collection: "c", key: key)) }, "\(key) lost")
        }
        // Replaying the received changesets gives the store's final state for every key they
        // itemize after the last reset.
        let stored = try await db.read { txn in try Set(txn.keys(inCollection: "c")) }
        #expect(stored == expected)
        var known: [String: Bool] = [:]
        for changeset in received {
            if changeset.isReset { known.removeAll() }
            for (index, change) in changeset.changes {
                if let object = change.object { known[index.key] = object != .removed }
            }
        }
        #expect(!known.isEmpty)
        for (key, present) in known { #expect(stored.contains(key) == present, "\(key)") }
    }

    @Test func anUnconsumedObjectObservationStaysBounded() async throws {
        let directory = TemporaryDirectory()
        let db = try Self.store(directory)
        try db.register(Self.byPrice(), named: "byPrice")
        let observation = db.observe(Tool.self, id: "hammer")
        var iterator = observation.makeAsyncIterator()
        #expect(try await next(&iterator) == .some(nil))
        let subscription = observation.lease.subscription
        var largest = 0
        for i in 0..<Self.commits {
            try await db.write { txn in
                if i % 3 == 2 {
                    _ = try txn.removeObject(forKey: "hammer", inCollection: Tool.collection)
                } else {
                    try txn.write(Tool(id: "hammer", price: i))
                }
            }
            _ = try await db.read { try $0.object(forKey: "hammer", inCollection: Tool.collection, as: Tool.self) }
            largest = max(largest, subscription.bufferedFootprint)
        }
        #expect(largest <= ChangeSubscription.byteLimit, "\(largest)")
        // It keeps no view changes (it never reads them): at most 65 one-index changesets.
        #expect(largest <= 16 * 1024, "\(largest)")
        // The next value is the latest one.
        let last = Self.commits - 1
        let value = try #require(try await next(&iterator))
        #expect(value == (last % 3 == 2 ? nil : Tool(id: "hammer", price: last)))
    }

    @Test func mergingIntoAResetKeepsOnlyTheRange() {
        var reset = Changeset.reset(after: 4, upTo: 7)
        var later = Changeset(commit: 8)
        later.recordObject(YapDB.Index(collection: "c", key: "k"), .inserted)
        later.recordExtensionChanges([1, 2, 3], named: "v")
        later.recordCommitInfo([4])
        reset.merge(later)
        #expect(reset.isReset && reset.commits == 5...8)
        #expect(reset.entryCount == 0 && reset.extensionChanges(named: "v").isEmpty)
        #expect(reset.footprint == Changeset.reset(after: 4, upTo: 8).footprint)
    }
}
