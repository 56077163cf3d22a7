import Foundation
import Testing
@testable import Larder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Damaged stores for the corruption tests: a sample store, its pages as LMDB laid them out,
/// and child processes whose death by a signal is reported instead of taking the runner down.
enum Corruption {
    /// How a child process ended.
    typealias Outcome = ProcessTestSupport.Run

    /// Runs `executable` with `arguments` to its end, noting a death by a signal.
    static func run(_ executable: String, _ arguments: [String]) throws -> Outcome {
        try ProcessTestSupport.run(executable, arguments)
    }

    static func larder(_ arguments: [String]) throws -> Outcome { try run(CLI.executable(), arguments) }

    static func helper(_ arguments: [String]) throws -> Outcome {
        try run(try #require(ProcessTestSupport.helperExecutable(), "larder-test-helper was not built"), arguments)
    }

    // MARK: The sample store

    /// The objects `makeStore` writes in collection `items` (key `k000`…), each 100 bytes.
    static let itemCount = 300
    static let itemKeys = (0..<itemCount).map { "k" + String(repeating: "0", count: 3 - String($0).count) + String($0) }
    /// The overflow values of collection `big` (keys `b0`…), each 20,000 bytes.
    static let bigCount = 4

    /// A store with several collections, metadata, a view and values on overflow pages, then
    /// closed. Returns the path of its data file.
    static func makeStore(at path: String) throws -> String {
        let db = try Database(path: path)
        let view = AutoView<[UInt8], NoMetadata>(collections: ["items"], versionTag: "1", grouping: { _, bytes in bytes.first.map { String($0 % 4) } }, sorting: { index, _ in TupleKey(index.key) })
        try db.register(view, named: "byFirstByte")
        try db.write { txn in
            for (i, key) in itemKeys.enumerated() {
                try txn.setObject([UInt8](repeating: UInt8(i & 0xFF), count: 100), forKey: key, inCollection: "items", metadata: "m\(i)")
            }
            for i in 0..<bigCount { try txn.setObject(helperBytes(i, count: 20_000), forKey: "b\(i)", inCollection: "big") }
            for i in 0..<20 { try txn.setObject("note \(i)", forKey: "n\(i)", inCollection: "notes") }
        }
        try db.write { txn in
            for key in itemKeys.prefix(30) { try txn.removeObject(forKey: key, inCollection: "items") }
            try txn.setObject("changed", forKey: "n3", inCollection: "notes")
        }
        return FileIdentity.isDirectory(path) ? path + "/data.mdb" : path
    }

    static func helperBytes(_ index: Int, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: index &* 31 &+ $0 &* 7 &+ ($0 >> 8)) }
    }

    // MARK: Pages

    static let pageSize = 4096

    static func read(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
    static func write(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    static func flags(_ bytes: [UInt8], page: Int) -> UInt16 {
        UInt16(bytes[page * pageSize + 10]) | UInt16(bytes[page * pageSize + 11]) << 8
    }

    static func uint16(_ bytes: [UInt8], _ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }

    static func setUInt16(_ bytes: inout [UInt8], _ offset: Int, _ value: Int) {
        bytes[offset] = UInt8(value & 0xFF)
        bytes[offset + 1] = UInt8(value >> 8 & 0xFF)
    }

    /// The leaf pages (of any tree) whose first node's key starts with `prefix`. A page freed by
    /// an older commit may match too: callers pick pages the current tree reaches by checking the
    /// damage shows.
    static func leafPages(_ bytes: [UInt8], keyPrefix prefix: [UInt8]) -> [Int] {
        (2..<(bytes.count / pageSize)).filter { page in
            guard flags(bytes, page: page) & 0x02 != 0 else { return false }
            return nodes(bytes, page: page).contains { node in
                Array(bytes[(node.offset + 8)..<(node.offset + 8 + min(node.keySize, prefix.count))]) == prefix
            }
        }
    }

    /// The nodes of page `page`: offset of each node from the start of the file, and its key size.
    static func nodes(_ bytes: [UInt8], page: Int) -> [(offset: Int, keySize: Int, flags: UInt16)] {
        let base = page * pageSize
        let lower = uint16(bytes, base + 12)
        guard lower >= 16, lower <= pageSize else { return [] }
        return (0..<((lower - 16) / 2)).compactMap { index in
            let offset = uint16(bytes, base + 16 + 2 * index)
            guard offset + 8 <= pageSize else { return nil }
            let keySize = uint16(bytes, base + offset + 6)
            guard offset + 8 + keySize <= pageSize else { return nil }
            return (base + offset, keySize, UInt16(uint16(bytes, base + offset + 4)))
        }
    }

    /// The key of a node from ``nodes(_:page:)``.
    static func key(_ bytes: [UInt8], _ node: (offset: Int, keySize: Int, flags: UInt16)) -> [UInt8] {
        Array(bytes[(node.offset + 8)..<(node.offset + 8 + node.keySize)])
    }
}
