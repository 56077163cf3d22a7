import Foundation
import LarderBenchKit

// larder-checksum-probe read|write on|off COUNT
//
// Stores COUNT items (one write transaction) in a new store with checksums on or off, then, for
// `read`, reads COUNT random items uncached in one read transaction. The measured part runs in a
// function of its own (`probeReads` / `probeWrites`), so that
//   valgrind --tool=callgrind --toggle-collect='*probeReads*' larder-checksum-probe read on 10000
// counts the instructions of that part only; divide by COUNT for the cost of one operation.

let arguments = CommandLine.arguments
guard arguments.count == 4, ["read", "write"].contains(arguments[1]), ["on", "off"].contains(arguments[2]),
      let count = Int(arguments[3]), count > 0 else {
    FileHandle.standardError.write(Data("usage: larder-checksum-probe read|write on|off COUNT\n".utf8))
    exit(1)
}
let workload = try ChecksumProbe(items: count, checksums: arguments[2] == "on")
if arguments[1] == "read" {
    try workload.store()
    print(try workload.probeReads())
} else {
    try workload.probeWrites()
}
