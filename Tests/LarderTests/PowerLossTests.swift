import Foundation
import Synchronization
import Testing
@testable import Larder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Power cuts, simulated. A writer process (`larder-test-helper power-writer`) runs under the
/// LD_PRELOAD shim of Tests/PowerLossShim, which logs every write to the data file, every
/// completed `fsync`/`fdatasync`, and every commit the writer acknowledged. From the log the test
/// rebuilds the states the file could be in after a power cut at a random moment: everything a
/// completed sync covers (and writes through an `O_DSYNC` descriptor) is on the disk; of the later
/// writes any subset is, each whole, absent or torn at 512-byte sectors. A checker process
/// (`power-check`; a damaged file may crash the process that opens it) opens each state and
/// checks it holds exactly the store of a commit at least as new as the durability mode promises,
/// and that `checkStructure()` is clean.
///
/// Quick mode (CI): 120 states per durability mode and for the negative control. Full mode,
/// `LARDER_FULL=1`: 2,000 states each, from 4 writer runs of 60 commits.
@Suite("Power loss", .serialized)
struct PowerLossTests {
    static let full = ProcessInfo.processInfo.environment["LARDER_FULL"] != nil
    static var writerRuns: Int { full ? 4 : 1 }
    static var commitsPerRun: Int { full ? 60 : 30 }
    static var statesPerRun: Int { full ? 500 : 120 }

    /// `LARDER_POWER_SEED`, or a random seed. A seed picks the crash states of a given log; the
    /// logs themselves differ from run to run (the writer's timing decides where the syncs fall).
    static func seed() -> UInt64 {
        ProcessInfo.processInfo.environment["LARDER_POWER_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
    }

    @Test(arguments: ["full", "nometasync", "deferred"])
    func everyCrashStateHoldsTheCommitsItsDurabilityPromises(durability: String) throws {
        let seed = Self.seed()
        var random = SplitMix(seed: seed)
        var tally = PowerTally()
        var reported = 0  // the first failing states are recorded one by one, then the count
        for run in 0..<Self.writerRuns {
            let capture = try PowerCapture.record(durability: durability, commits: Self.commitsPerRun)
            #expect(capture.replayedFileMatches, "\(durability): replaying every logged write does not give the writer's file: the log misses writes")
            // The writer pauses every seventh commit for three intervals: `.deferred`'s timer
            // must flush the commit before a pause (a sync after an acknowledgement, covering
            // every write); nothing else syncs after a commit has returned. (At least one of the
            // pauses, not all: a loaded machine may run the timer late.)
            let idleFlushes = capture.log.flushesAfterAcknowledgement
            if durability == "deferred" {
                #expect(idleFlushes >= 1, "\(durability): no background flush in \(Self.commitsPerRun / 7) pauses")
            } else {
                #expect(idleFlushes == 0, "\(durability)")
            }
            let states = (0..<Self.statesPerRun).map { _ in
                capture.log.crashState(base: capture.base, durability: durability, honourSyncs: true, using: &random)
            }
            let outcomes = try PowerChecker.check(states)
            tally.add(outcomes, states: states)
            for (index, outcome) in outcomes.enumerated() where outcome != .ok && reported < 20 {
                reported += 1
                Issue.record("\(durability) seed \(seed) run \(run) state \(index) (crash after record \(states[index].crashPoint) of \(capture.log.records.count), commit \(states[index].required) required): \(outcome)")
            }
        }
        #expect(tally.failed == 0, "\(durability) seed \(seed): \(tally.summary)")
        #expect(tally.states == Self.writerRuns * Self.statesPerRun)
        #expect(tally.required > 0, "no state required any commit: the log holds no completed sync")
        print("power loss, \(durability): \(tally.summary) (seed \(seed))")
    }

    /// The negative control: the same logs with every sync ignored (any subset of all writes may
    /// reach the disk, which is what LMDB's `MDB_NOSYNC`, the old `.deferred`, allows), checked
    /// against the same promises, must produce damaged states, or the checker proves nothing.
    @Test(arguments: ["full", "deferred"])
    func ignoringSyncsProducesDamagedStates(durability: String) throws {
        let seed = Self.seed()
        var random = SplitMix(seed: seed)
        var tally = PowerTally()
        for _ in 0..<Self.writerRuns {
            let capture = try PowerCapture.record(durability: durability, commits: Self.commitsPerRun)
            let states = (0..<Self.statesPerRun).map { _ in
                capture.log.crashState(base: capture.base, durability: durability, honourSyncs: false, using: &random)
            }
            tally.add(try PowerChecker.check(states), states: states)
        }
        #expect(tally.failed > 0, "seed \(seed): no damaged state with syncs ignored: the checker finds nothing")
        print("power loss, negative control (\(durability) log, syncs ignored): \(tally.summary) (seed \(seed))")
    }

    /// A failed background flush of `.deferred` is thrown by the next write, or by the next
    /// `sync()`, once (regression: the timer ignored the result of `mdb_env_sync`).
    @Test func failedBackgroundSyncsSurfaceInTheNextWriteOrSync() throws {
        let directory = TemporaryDirectory()
        let shim = try PowerLossShim.build(in: directory)
        let trigger = directory.file("fail-syncs")
        let result = try PowerProcess.runHelper(
            ["sync-failure", directory.path, trigger],
            environment: ["LD_PRELOAD": shim, "LARDER_SHIM_LOG": directory.file("log"), "LARDER_SHIM_FAIL_SYNC_IF_EXISTS": trigger])
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(result.status == 0, "\(result.output)")
        #expect(lines.count == 4, "\(lines)")
        guard lines.count == 4 else { return }
        #expect(lines[0].hasPrefix("write: io "), "the write after a failed background flush did not throw it: \(lines[0])")
        #expect(lines[0].contains("background flush"), "\(lines[0])")
        #expect(lines[1] == "write: ok", "the failure was reported more than once: \(lines[1])")
        #expect(lines[2].hasPrefix("sync: io "), "sync() after a failed background flush did not throw it: \(lines[2])")
        #expect(lines[3] == "sync: ok", "\(lines[3])")
    }
}

// MARK: - The shim

enum PowerLossShim {
    /// The shim's source, beside this file's folder.
    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("PowerLossShim/powerloss-shim.c").path

    /// Compiles the shim into `directory` with the system C compiler; returns the library's path.
    static func build(in directory: TemporaryDirectory) throws -> String {
        let library = directory.file("powerloss-shim.so")
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compiler.arguments = ["cc", "-shared", "-fPIC", "-O1", "-o", library, source, "-ldl", "-lpthread"]
        try compiler.run()
        compiler.waitUntilExit()
        try #require(compiler.terminationStatus == 0, "cc could not build \(source)")
        return library
    }
}

// MARK: - The log

/// The shim's log, parsed.
struct PowerLog {
    enum Record {
        /// A completed write; `durable` when the descriptor was opened with `O_DSYNC`.
        case write(offset: Int, bytes: [UInt8], durable: Bool)
        /// A completed sync covering the first `covered` writes.
        case sync(covered: Int)
        /// A failed sync, or a call that promises nothing (`sync_file_range`).
        case noGuarantee
        /// Commit `n` was acknowledged.
        case ack(Int)
    }

    var records: [Record] = []

    init(_ data: [UInt8]) throws {
        var at = 0
        func integer(_ size: Int) throws -> Int {
            try #require(at + size <= data.count, "the log ends inside a record")
            var value = 0
            for i in (0..<size).reversed() { value = value << 8 | Int(data[at + i]) }
            at += size
            return value
        }
        while at < data.count {
            let tag = data[at]
            at += 1
            switch tag {
            case UInt8(ascii: "W"):
                let flags = try integer(1), offset = try integer(8), length = try integer(4)
                try #require(at + length <= data.count, "the log ends inside a write")
                records.append(.write(offset: offset, bytes: Array(data[at..<at + length]), durable: flags & 1 != 0))
                at += length
            case UInt8(ascii: "S"): records.append(.sync(covered: try integer(8)))
            case UInt8(ascii: "F"), UInt8(ascii: "R"): _ = try integer(8); records.append(.noGuarantee)
            case UInt8(ascii: "A"): records.append(.ack(try integer(8)))
            case UInt8(ascii: "M"): throw LarderError(.io, "the writer called msync, which the model does not cover")
            default: throw LarderError(.io, "unknown log record \(tag)")
            }
        }
    }

    /// The syncs that followed an acknowledgement and covered every write before them: the
    /// flushes of the newest commit after it returned.
    var flushesAfterAcknowledgement: Int {
        var count = 0
        var writes = 0
        var previous: Record?
        for record in records {
            switch record {
            case .write: writes += 1
            case .sync(let covered): if covered == writes, case .ack = previous { count += 1 }
            default: break
            }
            previous = record
        }
        return count
    }

    /// The file after every logged write, over `base`.
    func replayAll(base: [UInt8]) -> [UInt8] {
        var file = base
        for case .write(let offset, let bytes, _) in records { Self.apply(bytes, at: offset, to: &file) }
        return file
    }

    static func apply(_ bytes: some Collection<UInt8>, at offset: Int, to file: inout [UInt8]) {
        if file.count < offset + bytes.count { file += [UInt8](repeating: 0, count: offset + bytes.count - file.count) }
        file.replaceSubrange(offset..<offset + bytes.count, with: bytes)
    }

    /// A state of the file after a power cut following a random record. With `honourSyncs`,
    /// the writes a completed sync covers and `O_DSYNC` writes are all there; every other write
    /// is absent, whole, or torn (each 512-byte sector there or not), independently.
    func crashState(base: [UInt8], durability: String, honourSyncs: Bool, using random: inout SplitMix) -> CrashState {
        let crashPoint = Int.random(in: 0...records.count, using: &random)
        var writeCount = 0
        var covered = 0
        var durable: [Bool] = []
        var acks: [(commit: Int, writesBefore: Int)] = []
        for record in records[..<crashPoint] {
            switch record {
            case .write(_, _, let dsync):
                durable.append(honourSyncs && dsync)
                writeCount += 1
            case .sync(let count) where honourSyncs: covered = max(covered, count)
            case .ack(let n): acks.append((n, writeCount))
            default: break
            }
        }
        for i in 0..<min(covered, durable.count) { durable[i] = true }
        // The commits whose every write was on the disk before the power cut.
        let firstVolatile = durable.firstIndex(of: false) ?? durable.count
        let synced = acks.last { $0.writesBefore <= firstVolatile }?.commit ?? 0
        let promised: Int
        switch durability {
        case "full": promised = acks.last?.commit ?? 0
        default: promised = acks.count >= 2 ? acks[acks.count - 2].commit : 0  // all but the last
        }
        var file = base
        var index = 0
        var lostOrTorn = 0
        for case .write(let offset, let bytes, _) in records[..<crashPoint] {
            defer { index += 1 }
            if durable[index] {
                Self.apply(bytes, at: offset, to: &file)
                continue
            }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: lostOrTorn += 1  // never reached the disk
            case 1: Self.apply(bytes, at: offset, to: &file)
            default:
                lostOrTorn += 1
                var start = offset
                while start < offset + bytes.count {
                    let end = min(offset + bytes.count, (start / 512 + 1) * 512)
                    if Bool.random(using: &random) { Self.apply(bytes[(start - offset)..<(end - offset)], at: start, to: &file) }
                    start = end
                }
            }
        }
        return CrashState(file: file, required: max(synced, promised), crashPoint: crashPoint, lostOrTornWrites: lostOrTorn)
    }
}

/// A rebuilt data file and the newest commit it must hold.
struct CrashState {
    var file: [UInt8]
    var required: Int
    var crashPoint: Int
    /// How many of the writes after the last completed sync were left out or torn.
    var lostOrTornWrites: Int
}

/// One writer run: the data file before it, and its log.
struct PowerCapture {
    var base: [UInt8]
    var log: PowerLog
    var replayedFileMatches: Bool

    /// Creates a store (without the shim), then runs the writer on it under the shim.
    static func record(durability: String, commits: Int) throws -> PowerCapture {
        let directory = TemporaryDirectory()
        let shim = try PowerLossShim.build(in: directory)
        let store = directory.file("store")
        do { _ = try Database(path: store) }  // creation is not part of the model: see Reliability.md
        let base = try [UInt8](Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb")))
        let logPath = directory.file("log")
        let result = try PowerProcess.runHelper(
            ["power-writer", store, durability, String(commits)],
            environment: ["LD_PRELOAD": shim, "LARDER_SHIM_LOG": logPath])
        try #require(result.status == 0, "the power writer failed: \(result.output)")
        let log = try PowerLog([UInt8](Data(contentsOf: URL(fileURLWithPath: logPath))))
        let final = try [UInt8](Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb")))
        return PowerCapture(base: base, log: log, replayedFileMatches: log.replayAll(base: base) == final)
    }
}

// MARK: - The checker

enum PowerOutcome: Equatable, CustomStringConvertible {
    case ok
    case bad(String)
    case crashed(String)

    var description: String {
        switch self {
        case .ok: "ok"
        case .bad(let reason): reason
        case .crashed(let how): "the checker crashed: \(how)"
        }
    }
}

enum PowerChecker {
    /// Writes each state to a store directory and checks them in `power-check` processes,
    /// starting a new one after a state that crashed one.
    static func check(_ states: [CrashState]) throws -> [PowerOutcome] {
        let directory = TemporaryDirectory()
        var outcomes: [PowerOutcome] = []
        var next = 0
        while next < states.count {
            let batch = next..<min(states.count, next + 100)
            var arguments = ["power-check"]
            for index in batch {
                let store = directory.file("s\(index)")
                try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
                try Data(states[index].file).write(to: URL(fileURLWithPath: store + "/data.mdb"))
                arguments.append("\(store):\(states[index].required)")
            }
            let result = try PowerProcess.runHelper(arguments, environment: [:])
            var began = -1
            for line in result.output.split(separator: "\n") {
                let words = line.split(separator: " ", maxSplits: 2).map(String.init)
                guard words.count >= 2, let local = Int(words[1]) else { continue }
                switch words[0] {
                case "begin": began = local
                case "ok": outcomes.append(.ok)
                case "bad": outcomes.append(.bad(words.count > 2 ? words[2] : "bad"))
                default: break
                }
            }
            if outcomes.count < batch.upperBound {
                // The process died inside state `began` of the batch.
                try #require(began >= 0 && next + began == outcomes.count, "the checker failed before its first state: \(result.output)")
                outcomes.append(.crashed(result.signal.map { "signal \($0)" } ?? "status \(result.status)"))
            }
            for index in next..<outcomes.count {
                try? FileManager.default.removeItem(atPath: directory.file("s\(index)"))
            }
            next = outcomes.count
        }
        return outcomes
    }
}

/// What a batch of states came to.
struct PowerTally {
    var states = 0
    var failed = 0
    var crashed = 0
    var unopenable = 0
    var lost = 0
    var required = 0
    var damaged = 0

    mutating func add(_ outcomes: [PowerOutcome], states crashStates: [CrashState]) {
        states += outcomes.count
        required += crashStates.filter { $0.required > 0 }.count
        damaged += crashStates.filter { $0.lostOrTornWrites > 0 }.count
        for outcome in outcomes where outcome != .ok {
            failed += 1
            switch outcome {
            case .crashed: crashed += 1
            case .bad(let reason) where reason.hasPrefix("open-or-read"): unopenable += 1
            case .bad(let reason) where reason.hasPrefix("lost"): lost += 1
            default: break
            }
        }
    }

    var summary: String {
        "\(states) states (\(required) requiring a commit, \(damaged) with unsynced writes left out or torn), \(failed) failed: \(unopenable) unopenable, \(crashed) crashed the checker, \(lost) lost an acknowledged commit, \(failed - unopenable - crashed - lost) other"
    }
}

/// Runs `larder-test-helper` with extra environment variables; a process still running after
/// five minutes (a damaged state that makes LMDB loop) is killed and reported by its signal.
enum PowerProcess {
    struct Result {
        var status: Int32
        var signal: Int32?
        var output: String
    }

    static func runHelper(_ arguments: [String], environment: [String: String]) throws -> Result {
        let helper = try #require(ProcessTestSupport.helperExecutable(), "larder-test-helper not found beside the test binary")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: helper)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let pid = process.processIdentifier
        let finished = Atomic(false)
        let watchdog = DispatchWorkItem { if !finished.load(ordering: .acquiring) { kill(pid, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 300, execute: watchdog)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        finished.store(true, ordering: .releasing)
        watchdog.cancel()
        let signalled = process.terminationReason == .uncaughtSignal
        return Result(status: process.terminationStatus, signal: signalled ? process.terminationStatus : nil, output: text)
    }
}
