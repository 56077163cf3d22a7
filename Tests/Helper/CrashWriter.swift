// `larder-test-helper crash-writer`: the process that Tests/LarderTests/CrashTests.swift kills.

import Larder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One object of a crash-test batch. The same type, view and index are defined in CrashTests.swift.
struct CrashRecord: Codable, Sendable, Equatable {
    var batch: Int
    var item: Int
    var payload: String
}

/// The extensions the crash writer keeps up to date; the test registers the same definitions.
enum CrashExtensions {
    static let view = AutoView<CrashRecord, NoMetadata>(
        collections: ["batches"], versionTag: "1",
        grouping: { _, record in "g\(record.batch % 3)" },
        sorting: { _, record in TupleKey(record.item, record.batch) })
    static let index = SecondaryIndex<CrashRecord, NoMetadata>(collections: ["batches"], versionTag: "1") { _, record in
        TupleKey(record.item, record.batch)
    }
    static let search = FullTextSearch<CrashRecord, NoMetadata>(collections: ["batches"], versionTag: "1", columnNames: ["text"]) { _, record in
        ["item\(record.item) word\((record.batch * 7 + record.item) % 13) \(record.payload.prefix(3))"]
    }
}

/// Writes commits until killed. Commit n (from what the store holds + 1) adds batch n: `size`
/// objects `b<n>-<i>` with metadata, removes batch n-3's objects (so views see removals), and sets
/// `state/last` to n, all in one undoable transaction (undo step "batch n"). After each commit returns it prints `ack <n>` and
/// flushes, so every printed ack is a commit the store acknowledged.
func crashWriter(path: String, durability: String, size: Int) -> Never {
    var configuration = Database.Configuration()
    switch durability {
    case "full": configuration.durability = .full
    case "nometasync": configuration.durability = .noMetaSync
    case "deferred": configuration.durability = .deferred(interval: .milliseconds(50))
    default: fail("crash-writer: unknown durability \(durability)", status: 2)
    }
    configuration.initialMapSize = 1 << 20  // small, so the map grows (and resizes) between kills too
    do {
        let db = try Database(path: path, configuration: configuration)
        try db.register(CrashExtensions.view, named: "crashView")
        try db.register(CrashExtensions.index, named: "crashIndex")
        try db.register(CrashExtensions.search, named: "crashSearch")
        var next = (try db.read { try $0.object(forKey: "last", inCollection: "state", as: Int.self) } ?? 0) + 1
        while true {
            let batch = next
            try db.write(undoable: "batch \(batch)") { txn in
                for item in 0..<size {
                    let record = CrashRecord(batch: batch, item: item, payload: String(repeating: "x", count: 20 + (batch * 7 + item) % 200))
                    try txn.setObject(record, forKey: "b\(batch)-\(item)", inCollection: "batches", metadata: batch)
                }
                if batch > 3 {
                    for item in 0..<size { try txn.removeObject(forKey: "b\(batch - 3)-\(item)", inCollection: "batches") }
                }
                try txn.setObject(batch, forKey: "last", inCollection: "state")
            }
            var line = "ack \(batch)\n"
            line.withUTF8 { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
            next += 1
        }
    } catch {
        fail("crash-writer failed: \(error)")
    }
}
