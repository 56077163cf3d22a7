// Counts heap allocations per raw read (workload 1), for larder-bench's allocation row. Linked
// with package-benchmark's malloc interposer, which larder-bench itself is not, so that its
// timings run on the plain allocator.
//
//     larder-alloc-probe ENTRIES READS   →   last line: "<Larder allocs/read> <C floor allocs/read>"
import LarderBenchKit
import MallocInterposerSwift

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let entries = arguments.first ?? 10_000
let reads = arguments.dropFirst().first ?? 10_000

/// Allocations made by `body` while the interposer counts.
func allocations(_ body: () throws -> Void) rethrows -> Int {
    MallocInterposerSwift.reset()
    MallocInterposerSwift.hook()
    try body()
    MallocInterposerSwift.unhook()
    return MallocInterposerSwift.getStatistics().mallocCount
}

MallocInterposerSwift.initialize()
let workload = try RawReadWorkload(entries: entries, reads: reads)
// The interposer must see allocations at all, or a zero below would prove nothing.
let control = allocations { consume([UInt8](repeating: 1, count: 64)) }
precondition(control >= 1, "larder-alloc-probe: the malloc interposer counted no allocation; counts would be meaningless")

var larderCount = 0
_ = try workload.larder()   // warm: first use of the connection and its transaction slot
try workload.db.read { txn in
    larderCount = try allocations { consume(try workload.larder(in: txn)) }
}
var floorCount = 0
_ = try workload.floorReads()
floorCount = try allocations { consume(try workload.floorReads()) }

print("reads: \(reads); allocations counted: Larder (inside one read transaction) \(larderCount), C floor (transaction included) \(floorCount)")
print("\(Double(larderCount) / Double(reads)) \(Double(floorCount) / Double(reads))")
