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

/// Decodes `bytes` `count` times; returns a checksum of the results so nothing is optimized away.
@inline(never)
func probeDecodes(_ archiver: MessagePackArchiver<Item>, _ bytes: [UInt8], count: Int) throws -> Int {
    var total = 0
    try bytes.withUnsafeBytes { raw in
        for _ in 0..<count {
            let item = try archiver.unarchive(raw, format: .messagePack)
            total &+= item.stock &+ item.name.utf8.count
        }
    }
    return total
}

/// Encodes `item` `count` times into one reused buffer; returns the bytes written.
@inline(never)
func probeEncodes(_ archiver: MessagePackArchiver<Item>, _ item: Item, count: Int) throws -> Int {
    var total = 0
    var buffer: [UInt8] = []
    buffer.reserveCapacity(256)
    for _ in 0..<count {
        buffer.removeAll(keepingCapacity: true)
        try archiver.archive(item, into: &buffer)
        total &+= buffer.count
    }
    return total
}

/// `probeDecodes` through the generated archiver (`@Archived`).
@inline(never)
func probeGeneratedDecodes(_ archiver: GeneratedArchiver<GeneratedItem>, _ bytes: [UInt8], count: Int) throws -> Int {
    var total = 0
    try bytes.withUnsafeBytes { raw in
        for _ in 0..<count {
            let item = try archiver.unarchive(raw, format: .messagePack)
            total &+= item.stock &+ item.name.utf8.count
        }
    }
    return total
}

/// `probeEncodes` through the generated archiver (`@Archived`).
@inline(never)
func probeGeneratedEncodes(_ archiver: GeneratedArchiver<GeneratedItem>, _ item: GeneratedItem, count: Int) throws -> Int {
    var total = 0
    var buffer: [UInt8] = []
    buffer.reserveCapacity(256)
    for _ in 0..<count {
        buffer.removeAll(keepingCapacity: true)
        try archiver.archive(item, into: &buffer)
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
    _ = try probeGeneratedDecodes(generated, bytes, count: 1)
    allocationCount = try allocations { checksum = try probeGeneratedDecodes(generated, bytes, count: count) }
} else if arguments[1] == "generated-encode" {
    _ = try probeGeneratedEncodes(generated, generatedItem, count: 1)
    allocationCount = try allocations { checksum = try probeGeneratedEncodes(generated, generatedItem, count: count) }
} else if arguments[1] == "decode" {
    _ = try probeDecodes(archiver, bytes, count: 1)   // warm: first use of the archiver
    allocationCount = try allocations { checksum = try probeDecodes(archiver, bytes, count: count) }
} else {
    _ = try probeEncodes(archiver, item, count: 1)
    allocationCount = try allocations { checksum = try probeEncodes(archiver, item, count: count) }
}
print("\(arguments[1]) of a \(bytes.count)-byte Item, \(count) times (checksum \(checksum)): \(Double(allocationCount) / Double(count)) allocations per operation")
