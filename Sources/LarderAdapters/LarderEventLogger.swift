#if Extras
import Larder
import Logging

/// Writes Larder's events (`DatabaseEvent`) to a swift-log `Logger`, at levels a server's
/// log wants: openings and closings at `info`, map growth and cache resets at `notice` (caches
/// emptied on purpose, as after a registration of value migrations, at `debug`), stale readers
/// cleared at `warning`, commits at `trace` (a slow one at `warning`), failed writes at `error`
/// when the store is in trouble (a full disk, damage) and lower otherwise. Each line
/// carries the figures as metadata (`larder.path`, `larder.callers`, `larder.duration_us`, …).
///
/// ```swift
/// var configuration = Database.Configuration()
/// configuration.log(to: Logger(label: "app.store"))
/// let db = try Database(path: "/var/lib/app/store", configuration: configuration)
/// ```
public struct LarderEventLogger: Sendable {
    /// Where the lines go.
    public var logger: Logger
    /// A commit that takes at least this long is logged at `warning` instead of `trace`.
    public var slowCommitThreshold: Duration

    /// A logger of Larder's events to `logger`; commits of `slowCommitThreshold` or longer
    /// (default one second) are logged as warnings.
    public init(logger: Logger, slowCommitThreshold: Duration = .seconds(1)) {
        self.logger = logger
        self.slowCommitThreshold = slowCommitThreshold
    }

    /// Logs `event`; use it as (or call it from) `Database/Configuration/onEvent`.
    public func log(_ event: DatabaseEvent) {
        switch event {
        case .opened(let opening):
            var metadata: Logger.Metadata = [
                "larder.path": "\(opening.path)", "larder.read_only": "\(opening.isReadOnly)",
                "larder.map_size": "\(opening.mapSize)",
            ]
            if let version = opening.formatVersion { metadata["larder.format_version"] = "\(version)" }
            logger.info("Larder store opened", metadata: metadata)
        case .closed(let path):
            logger.info("Larder store closed", metadata: ["larder.path": "\(path)"])
        case .mapGrew(let oldSize, let newSize):
            logger.notice("Larder map grew", metadata: ["larder.old_size": "\(oldSize)", "larder.new_size": "\(newSize)"])
        case .staleReadersCleared(let count):
            logger.warning("Larder cleared reader slots of dead processes", metadata: ["larder.count": "\(count)"])
        case .cachesReset(let commit):
            logger.notice("Larder caches reset: the changes since they were filled were no longer in the change log",
                          metadata: ["larder.commit": "\(commit)"])
        case .cachesFlushed(let commit, let reason):
            logger.debug("Larder caches emptied: \(Self.describe(reason))",
                         metadata: ["larder.commit": "\(commit)", "larder.reason": "\(reason)"])
        case .committed(let commit):
            logCommit(commit)
        case .writeFailed(let failure):
            logFailure(failure)
        case .unmigratableValues(let values):
            // The counts, not the key: keys can be personal data.
            let counts = values.counts.sorted { $0.key < $1.key }.map { "version \($0.key): \($0.value)" }.joined(separator: ", ")
            logger.warning("Larder values no migration step can read: reading them will fail", metadata: [
                "larder.collection": "\(values.collection)", "larder.metadata": "\(values.metadata)",
                "larder.current_version": "\(values.currentVersion)", "larder.counts": "\(counts)",
            ])
        @unknown default:
            logger.debug("Larder event", metadata: ["larder.event": "\(event)"])
        }
    }

    private func logCommit(_ commit: CommitEvent) {
        var metadata: Logger.Metadata = [
            "larder.callers": "\(commit.callers)", "larder.changed_rows": "\(commit.changedRows)",
            "larder.duration_us": "\(Self.microseconds(commit.duration))", "larder.durable": "\(commit.isDurable)",
        ]
        if let number = commit.commit { metadata["larder.commit"] = "\(number)" }
        if commit.duration >= slowCommitThreshold {
            logger.warning("Larder slow commit", metadata: metadata)
        } else {
            logger.trace("Larder commit", metadata: metadata)
        }
    }

    private func logFailure(_ failure: WriteFailure) {
        var metadata: Logger.Metadata = ["larder.callers": "\(failure.callers)"]
        if failure.isRollback {
            logger.debug("Larder write rolled back", metadata: metadata)
            return
        }
        guard let code = failure.code else {
            logger.debug("Larder write ended by an error of its closure", metadata: metadata)
            return
        }
        metadata["larder.error"] = "\(code)"
        if Self.storeProblems.contains(code) {
            logger.error("Larder write failed", metadata: metadata)
        } else {
            logger.warning("Larder write failed", metadata: metadata)
        }
    }

    /// Codes that say the store or its machine is in trouble, not the input.
    private static let storeProblems: Set<LarderError.Code> = [
        .diskFull, .mapFull, .io, .corrupted, .lmdb, .readersFull, .permissionDenied, .mapResized,
    ]

    /// Why the caches were emptied, as a log line says it.
    static func describe(_ reason: CacheFlushReason) -> String {
        switch reason {
        case .valueMigrationsRegistered: "value migrations were registered"
        case .manyCommitsBehind: "more commits to catch up on than are worth reading"
        case .everythingRemoved: "a commit removed everything"
        @unknown default: "\(reason)"
        }
    }

    static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
#endif
