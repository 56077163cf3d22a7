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

/// The crash writer's record, view, index and full-text search (the same definitions as Tests/Helper/CrashWriter.swift).
struct CrashRecord: Codable, Sendable, Equatable {
    var batch: Int
    var item: Int
    var payload: String
}

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

/// A writer process is killed with SIGKILL at random moments, again and again, on one store. After
/// each kill the store must open, hold every commit the writer acknowledged, show no part of a
/// commit without the rest, and its view and index must verify.
///
/// Quick mode (the default, for CI): 3 kills per durability. Full mode: set `LARDER_FULL=1`
/// (200 kills per durability).
@Suite("Crash safety")
struct CrashTests {
    static let batchSize = 20
    static var kills: Int { ProcessInfo.processInfo.environment["LARDER_FULL"] == nil ? 3 : 200 }

    @Test(arguments: ["full", "nometasync", "deferred"])
    func killedWritersLoseNoAcknowledgedCommit(durability: String) throws {
        let helper = try #require(ProcessTestSupport.helperExecutable(), "larder-test-helper not found beside the test binary")
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix(seed: seed)
        var acknowledged = 0
        var checkedCommits = 0
        for kill in 0..<Self.kills {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: helper)
            process.arguments = ["crash-writer", path, durability, String(Self.batchSize)]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let wanted = Int.random(in: 1...6, using: &random)
            var text = ""
            let handle = output.fileHandleForReading
            while text.components(separatedBy: "ack ").count - 1 < wanted {
                let data = handle.availableData
                if data.isEmpty { break }  // the writer ended on its own: the checks below say why
                text += String(decoding: data, as: UTF8.self)
            }
            usleep(UInt32.random(in: 0..<4_000, using: &random))  // land anywhere in a commit
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            text += String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationReason == .uncaughtSignal, "seed \(seed) kill \(kill): the writer exited on its own")
            let acks = text.split(separator: "\n").compactMap { line in line.hasPrefix("ack ") ? Int(line.dropFirst(4)) : nil }
            acknowledged = max(acknowledged, acks.max() ?? 0)
            checkedCommits += try Self.check(path: path, acknowledged: acknowledged, note: "\(durability) seed \(seed) kill \(kill)")
        }
        #expect(acknowledged > 0)
        if ProcessInfo.processInfo.environment["LARDER_FULL"] != nil {
            print("crash safety, \(durability): \(Self.kills) kills, \(acknowledged) acknowledged commits, \(checkedCommits) batch checks, nothing lost")
        }
    }

    /// Opens the store after a kill and checks it; returns how many batches it checked.
    static func check(path: String, acknowledged: Int, note: String) throws -> Int {
        let db = try Database(path: path)
        try db.register(CrashExtensions.view, named: "crashView")
        try db.register(CrashExtensions.index, named: "crashIndex")
        try db.register(CrashExtensions.search, named: "crashSearch")
        let last = try db.read { try $0.object(forKey: "last", inCollection: "state", as: Int.self) } ?? 0
        #expect(last >= acknowledged, "\(note): acknowledged commit \(acknowledged) is lost (the store is at \(last))")
        var checked = 0
        try db.read { txn in
            // Batches last-2 ... last complete; last+1 and last-3 absent: each commit all or nothing.
            for batch in max(1, last - 2)...max(1, last) where last > 0 {
                for item in 0..<batchSize {
                    let record = try txn.object(forKey: "b\(batch)-\(item)", inCollection: "batches", as: CrashRecord.self)
                    #expect(record?.batch == batch && record?.item == item, "\(note): batch \(batch) item \(item) is \(String(describing: record))")
                    #expect(try txn.metadata(forKey: "b\(batch)-\(item)", inCollection: "batches", as: Int.self) == batch, "\(note)")
                }
                checked += 1
            }
            for item in 0..<batchSize {
                #expect(try !txn.hasObject(forKey: "b\(last + 1)-\(item)", inCollection: "batches"), "\(note): part of an unacknowledged commit is visible")
                if last > 3 { #expect(try !txn.hasObject(forKey: "b\(last - 3)-\(item)", inCollection: "batches"), "\(note)") }
            }
            let expected = batchSize * min(last, 3)
            #expect(try txn.numberOfKeys(inCollection: "batches") == expected, "\(note)")
            #expect(try txn[ViewHandle<CrashRecord, NoMetadata>(name: "crashView")].numberOfItems() == expected, "\(note)")
            // Every batch present has one item 0, and the full-text search finds each.
            #expect(try txn[FullTextSearchHandle<CrashRecord, NoMetadata>(name: "crashSearch")].count(matching: "item0") == min(last, 3), "\(note): the search")
        }
        #expect(try db.verifyExtensions().isEmpty, "\(note): the view, index or search does not match the objects")
        if last > 0 {
            // The undo history survived the kill with the store: the last commit's step is the one
            // to undo, and undoing and redoing it moves the store back and forth by one commit.
            #expect(try db.undoName == "batch \(last)", "\(note): the undo history does not end with the last commit")
            try db.undo()
            try db.read { txn throws in
                #expect(try (txn.object(forKey: "last", inCollection: "state", as: Int.self) ?? 0) == last - 1, "\(note): undo")
                #expect(try !txn.hasObject(forKey: "b\(last)-0", inCollection: "batches"), "\(note): undo left the batch")
                if last > 3 { #expect(try txn.hasObject(forKey: "b\(last - 3)-0", inCollection: "batches"), "\(note): undo did not bring back the removed batch") }
            }
            try db.redo()
            #expect(try db.read { try $0.object(forKey: "last", inCollection: "state", as: Int.self) } == last, "\(note): redo")
            #expect(try db.verifyExtensions().isEmpty, "\(note): after undo and redo")
            #expect(try db.checkStructure().problems.isEmpty, "\(note): structure")
        }
        return checked
    }
}
