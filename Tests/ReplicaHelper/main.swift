// larder-replica-helper: one embedded replica per process, for the scale-out tests in
// Tests/LarderPostgresTests/ReplicaProcessTests.swift, and the replica benchmarks. Each command
// prints its results on stdout, one line each, flushed at once; it exits 0 on success, 1 when a
// check failed or an unexpected error came (`error <description>`, after a line
// `statistics commits=<n> conflicts=<n> bootstraps=<n> position=<n>` where a replica was open),
// 2 on a usage error.
//
//   larder-replica-helper transfers <store-path> <primary-url> <seconds> <accounts> <seed>
//       Opens the replica, catches up and reads the total of the balances of `acct-0` ...
//       `acct-<accounts-1>` (collection "accounts", Int; missing is 0). For <seconds>, makes
//       transfers: one `Replica.write` reads two distinct accounts, moves 1...10 from one to the
//       other and sets "transfers"/`transfer-<pid>-<i>` to the amount; prints
//       `ack transfer-<pid>-<i>` once the write returned. After every write (made or not), sums the
//       balances in one read of the replica's store: a sum other than the first prints
//       `bad-total <sum>` and exits 1. `.writeConflict` is counted; any other error is fatal.
//       Ends with `statistics …` (the replica's counters), `conflicts <n>` and
//       `done <transfers made>`.
//
//   larder-replica-helper increments <store-path> <primary-url> <count>
//       Adds 1 to "counters"/"total" <count> times, one write each (a write that gives up on
//       conflicts is made again), printing `ack <i>` after each; then `conflicts <closures run
//       again>` and `done`.
//
//   larder-replica-helper writer-until-killed <store-path> <primary-url>
//       Registers the view "ackedByParity" (Support.swift), then loops until killed: write i sets
//       "acked"/`k-<pid>-<i>` to i and prints `ack k-<pid>-<i>` once it returned. On
//       `.primaryUnavailable` or `.commitOutcomeUnknown` it waits 50 ms and goes on.
//
//   larder-replica-helper bank <store-path> <primary-url> <seconds> <accounts> <seed>
//       The Jepsen-style bank (Bank.swift): random transfers with a log row each, while the
//       test injects faults into the primary; prints `ack`, `fail` or `unknown <id>` per write.
//
//   larder-replica-helper bench [--quick]
//       Starts a private PostgreSQL server of its own and measures replica reads against a plain
//       store, a one-put replica write against the same write straight through postgres-nio,
//       commit throughput with one and three writing replicas, and the lag of a following
//       replica; prints a table with the targets (see Bench.swift). Never fails on a miss.

import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())

func argument<T>(_ arguments: [String], _ index: Int, _ name: String, _ parse: (String) -> T?) -> T {
    guard index < arguments.count, let value = parse(arguments[index]) else {
        usage("\(arguments.first ?? "?"): missing or bad <\(name)>")
    }
    return value
}

switch arguments.first {
case "transfers":
    guard arguments.count == 6 else { usage("transfers <store-path> <primary-url> <seconds> <accounts> <seed>") }
    await runTransfers(
        path: arguments[1], url: arguments[2],
        seconds: argument(arguments, 3, "seconds") { Double($0) },
        accountCount: argument(arguments, 4, "accounts") { Int($0).flatMap { $0 >= 2 ? $0 : nil } },
        seed: argument(arguments, 5, "seed") { UInt64($0) })
case "bank":
    guard arguments.count == 6 else { usage("bank <store-path> <primary-url> <seconds> <accounts> <seed>") }
    await runBank(
        path: arguments[1], url: arguments[2],
        seconds: argument(arguments, 3, "seconds") { Double($0) },
        accountCount: argument(arguments, 4, "accounts") { Int($0).flatMap { $0 >= 2 ? $0 : nil } },
        seed: argument(arguments, 5, "seed") { UInt64($0) })
case "increments":
    guard arguments.count == 4 else { usage("increments <store-path> <primary-url> <count>") }
    await runIncrements(path: arguments[1], url: arguments[2], count: argument(arguments, 3, "count") { Int($0).flatMap { $0 >= 0 ? $0 : nil } })
case "writer-until-killed":
    guard arguments.count == 3 else { usage("writer-until-killed <store-path> <primary-url>") }
    await runWriterUntilKilled(path: arguments[1], url: arguments[2])
case "bench":
    guard arguments.count == 1 || (arguments.count == 2 && arguments[1] == "--quick") else { usage("bench [--quick]") }
    await runBench(quick: arguments.count == 2)
default:
    usage("unknown command \(arguments.first ?? "(none)"); commands: transfers, bank, increments, writer-until-killed, bench")
}
exit(0)
