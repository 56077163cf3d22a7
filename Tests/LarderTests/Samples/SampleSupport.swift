import Foundation
import Synchronization
import Larder

// The Swift samples of README.md, Documentation/*.md and the DocC articles live in this folder,
// each copied verbatim into a test (DocumentationSampleTests checks that every one is here) with
// what it needs around it, and the test checks what the sample did.
//
// Samples are written for a reader: they open stores at paths such as "/tmp/shop" and print. A
// suite that runs them adopts `SampleSuite` (for `print(_:)`) and `OpensStoresByPath` (for
// `Database(path:)`). Their methods are found before Swift's `print` and Larder's `Database`
// initializer inside the suite, so the sample's own code runs unchanged while its store lands in
// the test's temporary directory and its output is recorded for the test to check.

/// A temporary directory for one sample test, and what the sample printed.
final class SampleEnvironment: Sendable {
    let directory: String
    private let lines = Mutex<[String]>([])

    init() {
        directory = FileManager.default.temporaryDirectory.path + "/larder-samples-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// What the sample printed so far, one entry per `print` call.
    var printed: [String] { lines.withLock { $0 } }

    func record(_ items: [Any]) {
        let line = items.map { "\($0)" }.joined(separator: " ")
        lines.withLock { $0.append(line) }
    }
}

/// A suite of documentation samples: one fresh `SampleEnvironment` per test.
protocol SampleSuite: Sendable {
    var environment: SampleEnvironment { get }
}

/// A suite of samples that open their stores by path: there `Database(path:)` is this
/// protocol's, so `Database` names no type in the suite's expressions (write `Larder.Database`).
protocol OpensStoresByPath: SampleSuite {}

extension OpensStoresByPath {
    /// Stands in for `Database(path:)` inside samples: the store opens under the test's directory,
    /// named after the last component of `path`.
    func Database(path: String) throws -> Larder.Database {
        try Larder.Database(path: environment.directory + "/" + URL(fileURLWithPath: path).lastPathComponent)
    }
}

extension SampleSuite {
    /// Stands in for `print` inside samples: records the line.
    func print(_ items: Any...) {
        environment.record(items)
    }

    /// A store for samples that use a `db` they do not open themselves.
    func sampleStore(_ name: String = "store") throws -> Larder.Database {
        try Larder.Database(path: environment.directory + "/" + name)
    }

    /// Waits up to 10 seconds for `condition`, checking every 10 ms.
    func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }
}
