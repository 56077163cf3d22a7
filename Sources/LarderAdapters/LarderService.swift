#if Extras
import Larder
import ServiceLifecycle

/// A swift-service-lifecycle `Service` that owns a `Database` for a server's lifetime:
/// `run()` waits for the graceful shutdown (or cancellation), then flushes the store to the disk
/// and closes it (`Database/close()`), after the writes already queued have committed.
///
/// ```swift
/// let db = try Database(path: "/var/lib/app/store")
/// let group = ServiceGroup(
///     services: [LarderService(database: db), httpServer],
///     gracefulShutdownSignals: [.sigterm],
///     logger: logger)
/// try await group.run()
/// ```
///
/// Put it before the services that use the database in the group: a `ServiceGroup` shuts its
/// services down in reverse order, so those that write finish first. With `metrics`, it also
/// records the reader lag (``LarderMetrics/recordReaderLag(of:)``) every `readerLagInterval`
/// while it runs.
public struct LarderService: Service {
    /// The database the service closes.
    public let database: Database
    /// Where the reader lag is recorded while the service runs, if anywhere.
    public let metrics: LarderMetrics?
    /// How often the reader lag is recorded. Default 10 seconds.
    public let readerLagInterval: Duration

    /// A service that closes `database` on graceful shutdown, recording its reader lag in
    /// `metrics` every `readerLagInterval` meanwhile when given.
    public init(database: Database, metrics: LarderMetrics? = nil, readerLagInterval: Duration = .seconds(10)) {
        self.database = database
        self.metrics = metrics
        self.readerLagInterval = readerLagInterval
    }

    /// Waits for the graceful shutdown (or the task's cancellation), then flushes and closes the
    /// database.
    /// - Throws: the `LarderError` of a failed flush (`Database/sync()`); the
    ///   database is closed all the same.
    public func run() async throws {
        if let metrics {
            let database = self.database
            let interval = readerLagInterval
            await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    metrics.recordReaderLag(of: database)
                    try? await Task.sleep(for: interval)
                }
            }
        } else {
            try? await gracefulShutdown()
        }
        var flushFailure: (any Error)?
        if !database.isClosed {
            do { try database.sync() } catch let error as LarderError where error.code == .databaseClosed {
            } catch { flushFailure = error }
        }
        await database.close()
        if let flushFailure { throw flushFailure }
    }
}
#endif
