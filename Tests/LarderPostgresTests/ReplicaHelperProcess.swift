import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `larder-replica-helper` (Tests/ReplicaHelper), which SwiftPM builds into the same directory
/// as the test binary; found the way Tests/LarderTests finds `larder-test-helper`
/// (`ProcessTestSupport.builtExecutable`).
enum ReplicaHelperProcess {
    static func executable() -> String? { builtExecutable("larder-replica-helper") }

    /// An executable of this package, looked for beside the test binary and up to three
    /// directories above it.
    static func builtExecutable(_ name: String) -> String? {
        var starts: [URL] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append(URL(fileURLWithPath: executable))
        }
        starts.append(URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath())
        if let executable = Bundle.main.executableURL { starts.append(executable.resolvingSymlinksInPath()) }
        starts.append(Bundle.main.bundleURL.resolvingSymlinksInPath())
        for start in starts {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name).path
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }
}

/// How a helper process ended, and what it printed.
struct ReplicaHelperRun: CustomStringConvertible {
    /// The exit status; -1 when a signal ended the process.
    var status: Int32
    /// The signal that ended the process, or `nil` when it exited.
    var signal: Int32?
    var standardOutput: String
    var standardError: String
    /// Whether the test killed it for running past its time limit.
    var timedOut: Bool

    var lines: [Substring] { standardOutput.split(separator: "\n") }

    /// What follows `prefix` on each line that starts with it (`"ack "` gives the ids).
    func values(after prefix: String) -> [String] {
        lines.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    var description: String {
        let end = timedOut ? "timed out and killed" : signal.map { "signal \($0)" } ?? "status \(status)"
        let tail = lines.suffix(5).joined(separator: " | ")
        return "\(end); last lines of stdout: \(tail); stderr: \(standardError.suffix(1500))"
    }
}

/// A helper process running in the background; its standard output and error are collected on
/// threads of their own, so that no pipe fills up and blocks it.
final class LaunchedReplicaHelper: @unchecked Sendable {  // `process` is only started, signalled and waited for; the output is behind `lock`
    private let process = Process()
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()
    private let drained = DispatchGroup()

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let outputPipe = Pipe(), errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for (handle, isOutput) in [(outputPipe.fileHandleForReading, true), (errorPipe.fileHandleForReading, false)] {
            drained.enter()
            Thread.detachNewThread { [self] in
                let data = handle.readDataToEndOfFile()
                lock.withLock {
                    if isOutput { output = data } else { errors = data }
                }
                drained.leave()
            }
        }
    }

    var processIdentifier: Int32 { process.processIdentifier }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) {
        _ = kill(process.processIdentifier, signal)
    }

    /// Waits, on a thread of its own, for the process to end (killing it after `timeout`
    /// seconds) and for its pipes to close.
    func wait(timeout: Double) async -> ReplicaHelperRun {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                let deadline = Date(timeIntervalSinceNow: timeout)
                var timedOut = false
                while process.isRunning {
                    if Date() > deadline {
                        timedOut = true
                        send(SIGKILL)
                        break
                    }
                    usleep(10_000)
                }
                process.waitUntilExit()
                drained.wait()
                let signaled = process.terminationReason == .uncaughtSignal
                let run = lock.withLock {
                    ReplicaHelperRun(
                        status: signaled ? -1 : process.terminationStatus,
                        signal: signaled ? process.terminationStatus : nil,
                        standardOutput: String(decoding: output, as: UTF8.self),
                        standardError: String(decoding: errors, as: UTF8.self),
                        timedOut: timedOut)
                }
                continuation.resume(returning: run)
            }
        }
    }
}

/// A fresh temporary directory, removed with its contents when released.
final class ReplicaProcessDirectory: Sendable {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.path + "/larder-replica-processes-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the directory (not created).
    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
