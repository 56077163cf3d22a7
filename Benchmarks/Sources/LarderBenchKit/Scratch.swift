import Foundation

/// A fresh temporary directory for one store, removed when the value is released.
public final class Scratch {
    public let path: String

    public init(_ label: String) throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("larder-bench-\(label)-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Runs `body` and returns how long it took on the continuous clock.
@inline(__always)
public func timed(_ body: () throws -> Void) rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return clock.now - start
}

/// Keeps the optimizer from discarding a result.
@inline(never)
public func consume<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
