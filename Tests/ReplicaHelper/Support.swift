import Foundation
import Larder

/// Prints `line` on stdout and flushes it at once: the tests read the lines while the process
/// runs, and a SIGKILL must not take back a line that was printed.
func say(_ line: String) {
    print(line)
    fflush(nil)  // every output stream: `stdout` itself is a global that Swift 6 will not touch
}

/// Prints `message` on stderr and exits with `status` (2: a usage error).
func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("larder-replica-helper: \(message)\n".utf8))
    exit(2)
}

/// Prints `error <description>` on stdout and exits 1.
func fatal(_ error: any Error) -> Never {
    say("error \(String(describing: error).replacingOccurrences(of: "\n", with: " "))")
    exit(1)
}

/// SplitMix64: a small, seedable generator, so that a run can be repeated from its seed.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The view that `writer-until-killed` keeps over collection "acked" (the tests register the
/// same definition): the integers by parity, sorted by value. It makes the killed writes keep
/// an extension up to date, which `verifyExtensions()` checks afterwards.
let ackedView = AutoView<Int, NoMetadata>(
    collections: ["acked"], versionTag: "1",
    grouping: { _, value in value % 2 == 0 ? "even" : "odd" },
    sorting: { _, value in TupleKey(value) })
