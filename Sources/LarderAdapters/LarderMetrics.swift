#if Extras
import CoreMetrics
import Larder

/// Records Larder's events (`DatabaseEvent`) as swift-metrics counters, a timer and
/// gauges, under labels that start with a prefix (default `larder`):
///
/// | label | kind | what |
/// |---|---|---|
/// | `larder_commits_total` | counter | commits that changed something (a `CommitEvent/commit` number) |
/// | `larder_rows_written_total` | counter | indexes inserted, updated or removed |
/// | `larder_write_failures_total` | counter | writes that kept nothing (errors and rollbacks) |
/// | `larder_map_growths_total` | counter | times the map grew |
/// | `larder_stale_readers_cleared_total` | counter | reader slots of dead processes cleared |
/// | `larder_cache_resets_total` | counter | cache resets (changes no longer in the change log) |
/// | `larder_cache_flushes_total` | counter | caches emptied on purpose (`CacheFlushReason`) |
/// | `larder_commit_duration` | timer | each counted commit's duration |
/// | `larder_group_commit_size` | gauge | callers in the last commit |
/// | `larder_map_size_bytes`, `larder_map_used_bytes` | gauges | the map after the last commit or growth |
/// | `larder_reader_lag` | gauge | `Database/oldestReaderLag()`, when polled |
///
/// ```swift
/// let metrics = LarderMetrics(dimensions: [("store", "orders")])
/// var configuration = Database.Configuration()
/// configuration.recordMetrics(metrics)
/// let db = try Database(path: "/var/lib/app/orders", configuration: configuration)
/// ```
///
/// The reader lag is not an event: ``recordReaderLag(of:)`` reads it, and ``LarderService``
/// calls it periodically while it runs.
public final class LarderMetrics: Sendable {
    let commits: Counter
    let rowsWritten: Counter
    let writeFailures: Counter
    let mapGrowths: Counter
    let staleReadersCleared: Counter
    let cacheResets: Counter
    let cacheFlushes: Counter
    let commitDuration: Timer
    let groupCommitSize: Gauge
    let mapSize: Gauge
    let mapUsed: Gauge
    let readerLag: Gauge

    /// Metrics labelled `prefix_…` with `dimensions`, made by `factory` (by default the one
    /// `MetricsSystem.bootstrap` installed).
    public init(prefix: String = "larder", dimensions: [(String, String)] = [], factory: any MetricsFactory = MetricsSystem.factory) {
        func label(_ name: String) -> String { "\(prefix)_\(name)" }
        commits = Counter(label: label("commits_total"), dimensions: dimensions, factory: factory)
        rowsWritten = Counter(label: label("rows_written_total"), dimensions: dimensions, factory: factory)
        writeFailures = Counter(label: label("write_failures_total"), dimensions: dimensions, factory: factory)
        mapGrowths = Counter(label: label("map_growths_total"), dimensions: dimensions, factory: factory)
        staleReadersCleared = Counter(label: label("stale_readers_cleared_total"), dimensions: dimensions, factory: factory)
        cacheResets = Counter(label: label("cache_resets_total"), dimensions: dimensions, factory: factory)
        cacheFlushes = Counter(label: label("cache_flushes_total"), dimensions: dimensions, factory: factory)
        commitDuration = Timer(label: label("commit_duration"), dimensions: dimensions, factory: factory)
        groupCommitSize = Gauge(label: label("group_commit_size"), dimensions: dimensions, factory: factory)
        mapSize = Gauge(label: label("map_size_bytes"), dimensions: dimensions, factory: factory)
        mapUsed = Gauge(label: label("map_used_bytes"), dimensions: dimensions, factory: factory)
        readerLag = Gauge(label: label("reader_lag"), dimensions: dimensions, factory: factory)
    }

    /// Records `event`; use it as (or call it from) `Database/Configuration/onEvent`.
    public func record(_ event: DatabaseEvent) {
        switch event {
        case .opened(let opening):
            mapSize.record(opening.mapSize)
        case .closed:
            break
        case .mapGrew(_, let newSize):
            mapGrowths.increment()
            mapSize.record(newSize)
        case .staleReadersCleared(let count):
            staleReadersCleared.increment(by: count)
        case .cachesReset:
            cacheResets.increment()
        case .cachesFlushed:
            cacheFlushes.increment()
        case .committed(let commit):
            mapSize.record(commit.mapSize)
            mapUsed.record(commit.mapUsed)
            // A transaction that changed nothing (a registration finding its extension current,
            // a closure that wrote nothing) has no commit number: the change log holds nothing of it.
            guard commit.commit != nil else { return }
            commits.increment()
            rowsWritten.increment(by: commit.changedRows)
            commitDuration.recordNanoseconds(Self.nanoseconds(commit.duration))
            groupCommitSize.record(commit.callers)
        case .writeFailed(let failure):
            writeFailures.increment(by: failure.callers)
        case .unmigratableValues:
            break
        @unknown default:
            break
        }
    }

    /// Reads `Database/oldestReaderLag()` of `database` into `larder_reader_lag`.
    public func recordReaderLag(of database: Database) {
        readerLag.record(database.oldestReaderLag())
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
#endif
