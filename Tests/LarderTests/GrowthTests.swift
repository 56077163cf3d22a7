import Foundation
import Synchronization
import Testing
@testable import Larder

/// The store grows from a 1 MiB map while reader threads run and a second process writes the same
/// store: no error reaches any caller, and everything reads back. Quick mode: 48 MiB here and
/// 16 MiB in the other process; `LARDER_FULL=1`: 1.1 GiB here and 256 MiB there.
@Suite("Growth")
struct GrowthTests {
    static var full: Bool { ProcessInfo.processInfo.environment["LARDER_FULL"] != nil }

    @Test func growsPastAGigabyteWhileReadersAndAnotherProcessWork() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        var configuration = Database.Configuration()
        configuration.initialMapSize = 1 << 20
        configuration.durability = .noMetaSync
        let db = try Database(path: path, configuration: configuration)
        let megabytes = Self.full ? 1_100 : 48
        let otherMegabytes = Self.full ? 256 : 16
        let valueSize = 64 << 10
        let perTransaction = 16  // 1 MiB per commit
        let written = Atomic<Int>(0)
        let readErrors = LockedBox<[String]>([])
        let reads = Atomic<Int>(0)
        let finished = Atomic<Bool>(false)

        let other = Process()
        other.executableURL = URL(fileURLWithPath: helper)
        other.arguments = ["grow", path, String(otherMegabytes)]
        other.standardOutput = FileHandle.nullDevice
        let otherErrors = Pipe()
        other.standardError = otherErrors
        try other.run()

        let readers: [@Sendable () -> Void] = (0..<2).map { worker in
            { @Sendable in
                let connection = db.newConnection()
                var probe = worker
                while !finished.load(ordering: .acquiring) {
                    let available = written.load(ordering: .acquiring)
                    guard available > 0 else { continue }
                    probe = (probe &* 31 &+ 7) % available
                    do {
                        let bytes = try connection.read { try $0.withStoredObject(forKey: "v\(probe)", inCollection: "grown-here") { _, bytes in bytes.count } }
                        if bytes != valueSize { readErrors.withLock { $0.append("v\(probe) has \(String(describing: bytes)) bytes") } }
                        reads.add(1, ordering: .relaxed)
                    } catch {
                        readErrors.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        let writer: @Sendable () -> Void = {
            defer { finished.store(true, ordering: .releasing) }
            let value = [UInt8](repeating: 0x5A, count: valueSize)
            let count = megabytes * (1 << 20) / valueSize
            var next = 0
            do {
                while next < count {
                    let start = next
                    try db.write { txn in
                        for index in start..<min(count, start + perTransaction) {
                            try txn.setObject(value, forKey: "v\(index)", inCollection: "grown-here")
                        }
                    }
                    next = min(count, start + perTransaction)
                    written.store(next, ordering: .releasing)
                }
            } catch {
                readErrors.withLock { $0.append("writer: \(error)") }
            }
        }
        ProcessTestSupport.runOnThreads(readers + [writer])
        other.waitUntilExit()

        #expect(readErrors.withLock { $0 }.isEmpty, "\(readErrors.withLock { $0.prefix(3) })")
        #expect(other.terminationStatus == 0, "the other process failed: \(String(decoding: otherErrors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
        let count = megabytes * (1 << 20) / valueSize
        try db.read { txn throws in
            #expect(try txn.numberOfKeys(inCollection: "grown-here") == count)
            #expect(try txn.numberOfKeys(inCollection: "grown") == otherMegabytes * 16)
        }
        let usage = db.environment.mapUsage()
        #expect(usage.used >= (megabytes + otherMegabytes) << 20)
        if Self.full {
            print("growth: map 1 MiB -> \(usage.mapSize >> 20) MiB, \(usage.used >> 20) MiB used, \(db.environment.resizeCount) resizes here, \(reads.load(ordering: .acquiring)) reads during growth, no error")
        }
    }
}

/// A copy (the `larder backup` path) taken after another process grew the store's map: LMDB
/// refuses the copy's read transaction until this process adopts the new size.
@Suite("Growth: copies")
struct GrowthCopyTests {
    @Test func aCopyAdoptsTheMapAnotherProcessGrew() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        var configuration = Database.Configuration()
        configuration.initialMapSize = 1 << 20
        let db = try Database(path: path, configuration: configuration)
        try db.write { try $0.setObject("here", forKey: "k", inCollection: "c") }
        let grown = try ProcessTestSupport.run(helper, ["grow", path, "8"])
        try #require(grown.status == 0, "the helper failed: \(grown.standardError)")
        let destination = directory.file("copy")
        try db.copy(to: destination)
        let copy = try Database(path: destination)
        #expect(try copy.read { try $0.numberOfKeys(inCollection: "grown") } == 8 * 16)
        #expect(try copy.read { try $0.object(forKey: "k", inCollection: "c", as: String.self) } == "here")
    }
}
