import Foundation
import Larder
import Logging
import Synchronization

/// A temporary directory for one test, removed when the test ends.
final class TemporaryDirectory {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.path + "/larder-adapters-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A swift-log handler that keeps every line it is given (swift-log has no test backend).
struct CapturingLogHandler: LogHandler {
    struct Line: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
    }

    final class Store: Sendable {
        let lines = Mutex<[Line]>([])
        var all: [Line] { lines.withLock { $0 } }
        func lines(_ message: String) -> [Line] { all.filter { $0.message == message } }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        store.lines.withLock { $0.append(Line(level: event.level, message: "\(event.message)", metadata: merged)) }
    }

    /// A logger whose lines land in a new store.
    static func logger(level: Logger.Level = .trace) -> (Logger, Store) {
        let store = Store()
        var logger = Logger(label: "larder.tests") { _ in CapturingLogHandler(store: store) }
        logger.logLevel = level
        return (logger, store)
    }
}

/// Waits (polling) until `condition` holds or `seconds` pass.
func eventually(_ seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
