import Foundation
import Larder

/// Workload 16: commits of one put each (durability deferred for an hour, so that the commit's own work is what
/// is timed), in a store with 100 idle observations (each reads a key no commit touches) and one
/// that every commit re-runs, against the same commits with no observation at all.
public final class ObservationWorkload {
    let observed: Database
    let plain: Database
    let observedScratch: Scratch
    let plainScratch: Scratch
    /// The consumers of the observations, cancelled when the workload is released.
    private var consumers: [Task<Void, Never>] = []
    /// Results the live observation consumed: its re-runs (for the report).
    private let reruns = RerunCounter()

    final class RerunCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    public init(idle: Int = 100) throws {
        observedScratch = try Scratch("observed-commits")
        plainScratch = try Scratch("plain-commits")
        observed = try Database(path: observedScratch.path, configuration: benchConfiguration(durability: .deferred(interval: .seconds(3600))))
        plain = try Database(path: plainScratch.path, configuration: benchConfiguration(durability: .deferred(interval: .seconds(3600))))
        for n in 0..<idle {
            let key = "idle-\(n)"
            let observation = observed.observe { txn in try txn.object(forKey: key, inCollection: "quiet", as: Int.self) }
            consumers.append(Task { do { for try await _ in observation {} } catch {} })
        }
        let live = observed.observe { txn in try txn.object(forKey: "counter", inCollection: "busy", as: Int.self) }
        let reruns = reruns
        consumers.append(Task { do { for try await _ in live { reruns.add() } } catch {} })
    }

    deinit { for consumer in consumers { consumer.cancel() } }

    private func commits(_ count: Int, into db: Database) throws -> Duration {
        try timed {
            for n in 0..<count { try db.write { try $0.setObject(n, forKey: "counter", inCollection: "busy") } }
        }
    }

    /// `count` commits into the observed store.
    public func observedCommits(_ count: Int) throws -> Duration { try commits(count, into: observed) }
    /// `count` commits into the store no one observes.
    public func plainCommits(_ count: Int) throws -> Duration { try commits(count, into: plain) }
    /// How many results the live observation has consumed so far.
    public var liveResults: Int { reruns.value }
}
