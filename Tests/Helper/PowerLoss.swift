// The power-loss suite's processes (Tests/LarderTests/PowerLossTests.swift): a writer run under the
// LD_PRELOAD shim of Tests/PowerLossShim, a checker of rebuilt crash states, the background-sync
// failure scenario, and a commit-rate measurement.

import Larder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What commit `n` of the power writer leaves in the store (the checker recomputes it).
enum PowerModel {
    /// How many `k<n>` keys the store keeps: commit n adds `k<n>` and removes `k<n - window>`.
    static let window = 8

    static func key(_ n: Int) -> String { "k\(n)" }

    /// The value of `k<n>`: 64 to 5,063 bytes, so some values take overflow pages.
    static func value(_ n: Int) -> [UInt8] {
        helperPattern(index: n, count: 64 + (n &* 397) % 5_000)
    }

    /// The value of key "shared", rewritten by every commit (so pages are freed and reused).
    static func shared(_ n: Int) -> [UInt8] {
        helperPattern(index: n &+ 1_000_003, count: 1_500 + (n &* 211) % 3_500)
    }

    static func durability(_ name: String) -> Durability? {
        switch name {
        case "full": .full
        case "nometasync": .noMetaSync
        case "deferred": .deferred(interval: .milliseconds(20))
        default: nil
        }
    }
}

func printLine(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
}

/// `power-writer <path> <durability> <count>`: makes `count` commits (see ``PowerModel``). After
/// each commit returns it appends an `A` record (commit number) to the shim's log,
/// `LARDER_SHIM_LOG`, and prints `ack <n>`. Every seventh commit it pauses for three intervals
/// of `.deferred`, so the background flush shows in the log.
func powerWriter(path: String, durability name: String, count: Int) -> Never {
    guard let durability = PowerModel.durability(name) else { fail("power-writer: unknown durability \(name)", status: 2) }
    guard let logPath = getenv("LARDER_SHIM_LOG").map({ String(cString: $0) }) else { fail("power-writer: LARDER_SHIM_LOG is not set", status: 2) }
    let log = open(logPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
    guard log >= 0 else { fail("power-writer: cannot open the log: errno \(errno)") }
    var configuration = Database.Configuration()
    configuration.durability = durability
    do {
        let db = try Database(path: path, configuration: configuration)
        for n in 1...count {
            try db.write { txn in
                try txn.setObject(PowerModel.value(n), forKey: PowerModel.key(n), inCollection: "power")
                if n > PowerModel.window { try txn.removeObject(forKey: PowerModel.key(n - PowerModel.window), inCollection: "power") }
                try txn.setObject(PowerModel.shared(n), forKey: "shared", inCollection: "state")
                try txn.setObject(n, forKey: "last", inCollection: "state")
            }
            var record = [UInt8](repeating: 0, count: 9)
            record[0] = UInt8(ascii: "A")
            withUnsafeBytes(of: UInt64(n).littleEndian) { record.replaceSubrange(1..<9, with: $0) }
            guard write(log, record, 9) == 9 else { fail("power-writer: cannot write the log: errno \(errno)") }
            printLine("ack \(n)")
            if n % 7 == 0 { usleep(60_000) }
        }
        exit(0)
    } catch {
        fail("power-writer failed: \(error)")
    }
}

/// `power-check <state>:<required> ...`: opens each state (a store directory) and checks it holds
/// the store of some commit c ≥ required exactly, and that `checkStructure()` is clean. Prints
/// `begin <i>` before state i (from 0), then `ok <i> <c>` or `bad <i> <reason>`. A state that
/// crashes the process leaves `begin <i>` as the last line.
func powerCheck(_ states: ArraySlice<String>) -> Never {
    for (i, argument) in states.enumerated() {
        printLine("begin \(i)")
        guard let colon = argument.lastIndex(of: ":"), let required = Int(argument[argument.index(after: colon)...]) else {
            fail("power-check: bad argument \(argument)", status: 2)
        }
        let path = String(argument[..<colon])
        do {
            let problem = try checkPowerState(path: path, required: required)
            printLine(problem.map { "bad \(i) \($0)" } ?? "ok \(i)")
        } catch let error as LarderError {
            printLine("bad \(i) open-or-read \(error.code.rawValue): \(error.message)")
        } catch {
            printLine("bad \(i) other: \(error)")
        }
    }
    exit(0)
}

/// Returns what is wrong with the state, or nil when it is the store of a commit ≥ `required`.
func checkPowerState(path: String, required: Int) throws -> String? {
    let db = try Database(path: path)
    let contentProblem = try db.read { txn -> String? in
        let last = try txn.object(forKey: "last", inCollection: "state", as: Int.self) ?? 0
        if last < required { return "lost: the store is at commit \(last), but commit \(required) was acknowledged before the power cut and must survive" }
        let oldest = max(1, last - PowerModel.window + 1)
        if last > 0 {
            for n in oldest...last where try txn.object(forKey: PowerModel.key(n), inCollection: "power", as: [UInt8].self) != PowerModel.value(n) {
                return "content: key \(PowerModel.key(n)) differs from commit \(n)'s value (store at \(last))"
            }
            if try txn.object(forKey: "shared", inCollection: "state", as: [UInt8].self) != PowerModel.shared(last) {
                return "content: key shared differs from commit \(last)'s value"
            }
        }
        let keys = try txn.numberOfKeys(inCollection: "power")
        if keys != (last == 0 ? 0 : last - oldest + 1) { return "content: \(keys) keys in power at commit \(last)" }
        return nil
    }
    if let contentProblem { return contentProblem }
    let report = try db.checkStructure()
    return report.problems.isEmpty ? nil : "structure: \(report.problemCount) problems, first \(report.problems[0])"
}

/// `sync-failure <directory> <trigger>`, under the shim with `LARDER_SHIM_FAIL_SYNC_IF_EXISTS` set
/// to `<trigger>`: makes background flushes of `.deferred` fail and prints where each failure
/// surfaced: `write: <code> (<message>)`, then `write: ok`, then `sync: <code> (<message>)`, then
/// `sync: ok`. Each round commits, then makes every flush fail for three intervals; a background
/// flush that ran before the failures began leaves nothing to fail, so a round whose call
/// succeeds is tried again, up to five times (a timer that never reports prints `ok`).
func syncFailure(directory: String, trigger: String) -> Never {
    var configuration = Database.Configuration()
    configuration.durability = .deferred(interval: .milliseconds(200))
    func outcome(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "ok"
        } catch let error as LarderError {
            return "\(error.code.rawValue) (\(error.message))"
        } catch {
            return "other \(error)"
        }
    }
    func afterFailedFlushes(_ db: Database, _ call: () throws -> Void) throws -> String {
        var result = "ok"
        for round in 0..<5 where result == "ok" {
            try db.write { try $0.setObject(round, forKey: "round", inCollection: "state") }
            let file = open(trigger, O_WRONLY | O_CREAT, 0o600)
            guard file >= 0 else { fail("sync-failure: cannot create the trigger") }
            close(file)
            usleep(600_000)
            unlink(trigger)
            result = outcome(call)
        }
        return result
    }
    do {
        let first = try Database(path: directory + "/write", configuration: configuration)
        let write = { try first.write { try $0.setObject(1, forKey: "after", inCollection: "state") } }
        printLine("write: " + (try afterFailedFlushes(first, write)))
        printLine("write: " + outcome(write))
        let second = try Database(path: directory + "/sync", configuration: configuration)
        printLine("sync: " + (try afterFailedFlushes(second, second.sync)))
        printLine("sync: " + outcome(second.sync))
        exit(0)
    } catch {
        fail("sync-failure: \(error)")
    }
}

/// `commit-rate <directory> <rounds> <commits>`: one-object commits per second under each
/// durability, in interleaved rounds on fresh stores; prints each round and the medians.
func commitRate(directory: String, rounds: Int, commits: Int) -> Never {
    let modes = ["full", "nometasync", "deferred"]
    var rates: [String: [Double]] = [:]
    do {
        for round in 0..<rounds {
            for mode in modes {
                var configuration = Database.Configuration()
                configuration.durability = PowerModel.durability(mode)!
                let path = directory + "/\(mode)-\(round)"
                let db = try Database(path: path, configuration: configuration)
                let clock = ContinuousClock()
                let start = clock.now
                for n in 0..<commits {
                    try db.write { try $0.setObject(n, forKey: "k\(n)", inCollection: "rate") }
                }
                let elapsed = clock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                rates[mode, default: []].append(Double(commits) / seconds)
                printLine("round \(round) \(mode): \(Int(Double(commits) / seconds)) commits/s")
            }
        }
        for mode in modes {
            let sorted = rates[mode]!.sorted()
            printLine("median \(mode): \(Int(sorted[sorted.count / 2])) commits/s")
        }
        exit(0)
    } catch {
        fail("commit-rate: \(error)")
    }
}
