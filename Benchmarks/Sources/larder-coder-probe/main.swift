// larder-coder-probe decode|encode|generated-decode|generated-encode COUNT
//
// Decodes (or encodes) the benchmark's `Item` COUNT times through `MessagePackArchiver`, the path
// every Codable value of a store takes (or `GeneratedItem` through `GeneratedArchiver`, with the
// `generated-` modes), and prints the allocations per operation counted by
// package-benchmark's malloc interposer. The measured loop runs in a function of its own
// (`probeDecodes` / `probeEncodes`), so that
//
//     valgrind --tool=callgrind --toggle-collect='*probeDecodes*' larder-coder-probe decode 10000
//
// counts the instructions of that loop only; divide by COUNT for the cost of one operation.
// Build with `swift build -c release --product larder-coder-probe`.
import Foundation
import Larder
import LarderBenchKit
import MallocInterposerSwift

/// Decodes `bytes` `count` times with `archiver`; returns a checksum of the results (`checksum` of
/// each) so nothing is optimized away.
@inline(never)
func probeDecodes<A: Archiver>(_ archiver: A, _ bytes: [UInt8], count: Int, checksum: (A.Value) -> Int) throws -> Int {
    var total = 0
    try bytes.withUnsafeBytes { raw in
        for _ in 0..<count {
            total &+= checksum(try archiver.unarchive(raw, format: .messagePack))
        }
    }
    return total
}

/// Encodes `value` `count` times with `archiver` into one reused buffer; returns the bytes written.
@inline(never)
func probeEncodes<A: Archiver>(_ archiver: A, _ value: A.Value, count: Int) throws -> Int {
    var total = 0
    var buffer: [UInt8] = []
    buffer.reserveCapacity(256)
    for _ in 0..<count {
        buffer.removeAll(keepingCapacity: true)
        try archiver.archive(value, into: &buffer)
        total &+= buffer.count
    }
    return total
}

/// Allocations made by `body` while the interposer counts.
func allocations(_ body: () throws -> Void) rethrows -> Int {
    MallocInterposerSwift.reset()
    MallocInterposerSwift.hook()
    try body()
    MallocInterposerSwift.unhook()
    return MallocInterposerSwift.getStatistics().mallocCount
}

let arguments = CommandLine.arguments
guard arguments.count == 3, ["decode", "encode", "generated-decode", "generated-encode"].contains(arguments[1]), let count = Int(arguments[2]), count > 0 else {
    FileHandle.standardError.write(Data("usage: larder-coder-probe decode|encode|generated-decode|generated-encode COUNT\n".utf8))
    exit(1)
}
MallocInterposerSwift.initialize()
let archiver = MessagePackArchiver<Item>()
let item = Item(key: Keys.key(42), seed: 42)   // as the benchmark stores it: 116 bytes
var bytes: [UInt8] = []
try archiver.archive(item, into: &bytes)
let decoded = try bytes.withUnsafeBytes { try archiver.unarchive($0, format: .messagePack) }
precondition(decoded == item, "larder-coder-probe: the item does not survive a round trip")
var checksum = 0
let allocationCount: Int
let generated = GeneratedArchiver<GeneratedItem>()
let generatedItem = GeneratedItem(item)
let generatedBytes = try { var out: [UInt8] = []; try generated.archive(generatedItem, into: &out); return out }()
precondition(generatedBytes == bytes, "larder-coder-probe: the generated archiver writes other bytes than Codable")
if arguments[1] == "generated-decode" {
    let sum = { (item: GeneratedItem) in item.stock &+ item.name.utf8.count }
    _ = try probeDecodes(generated, bytes, count: 1, checksum: sum)
    allocationCount = try allocations { checksum = try probeDecodes(generated, bytes, count: count, checksum: sum) }
} else if arguments[1] == "generated-encode" {
    _ = try probeEncodes(generated, generatedItem, count: 1)
    allocationCount = try allocations { checksum = try probeEncodes(generated, generatedItem, count: count) }
} else if arguments[1] == "decode" {
    let sum = { (item: Item) in item.stock &+ item.name.utf8.count }
    _ = try probeDecodes(archiver, bytes, count: 1, checksum: sum)   // warm: first use of the archiver
    allocationCount = try allocations { checksum = try probeDecodes(archiver, bytes, count: count, checksum: sum) }
} else {
    _ = try probeEncodes(archiver, item, count: 1)
    allocationCount = try allocations { checksum = try probeEncodes(archiver, item, count: count) }
}
print("\(arguments[1]) of a \(bytes.count)-byte Item, \(count) times (checksum \(checksum)): \(Double(allocationCount) / Double(count)) allocations per operation")
