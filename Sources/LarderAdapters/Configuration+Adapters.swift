#if Extras
import Larder
import Logging

extension Database.Configuration {
    /// Adds `handler` to `Database/Configuration/onEvent`: it is told every event after
    /// the handler already set, if any. The adapters add themselves this way, so that logging
    /// and metrics can both be on.
    ///
    /// ```swift
    /// configuration.addEventHandler { event in if case .mapGrew = event { alert() } }
    /// ```
    public mutating func addEventHandler(_ handler: @escaping @Sendable (DatabaseEvent) -> Void) {
        if let previous = onEvent {
            onEvent = { event in
                previous(event)
                handler(event)
            }
        } else {
            onEvent = handler
        }
    }

    /// Logs the database's events to `logger` (see ``LarderEventLogger``); commits of
    /// `slowCommitThreshold` or longer are warnings.
    public mutating func log(to logger: Logger, slowCommitThreshold: Duration = .seconds(1)) {
        let eventLogger = LarderEventLogger(logger: logger, slowCommitThreshold: slowCommitThreshold)
        addEventHandler { eventLogger.log($0) }
    }

    /// Records the database's events in `metrics` (see ``LarderMetrics``).
    public mutating func recordMetrics(_ metrics: LarderMetrics) {
        addEventHandler { metrics.record($0) }
    }
}
#endif
