import Foundation
import Testing
@testable import Larder
import CLMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A truncated data file and a full disk: clear errors, nothing lost that was committed.
@Suite("Damaged files and full disks")
struct DamagedStoreTests {
    @Test func aTruncatedDataFileIsRefusedNotMapped() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            try db.write { txn in
                for i in 0..<200 { try txn.setObject([UInt8](repeating: UInt8(i), count: 2_000), forKey: "k\(i)", inCollection: "c") }
            }
        }
        let dataFile = path + "/data.mdb"
        let size = try #require(ProcessTestSupport.fileSize(dataFile))
        #expect(truncate(dataFile, off_t(size / 2)) == 0)
        // Reading a page past the end of a mapped file would kill the process with SIGBUS; the
        // open checks the length first.
        let error = #expect(throws: LarderError.self) { try Database(path: path) }
        #expect(error?.code == .corrupted)
        #expect(error?.message.contains("truncated") == true)
        #expect(ProcessTestSupport.fileSize(dataFile) == size / 2)  // the refused open changed nothing
    }

    /// A transaction that takes new pages at the end of the file and frees them before it commits
    /// leaves LMDB's last page past the end of a sound file (the freed pages are never written).
    /// The open and the structure check took that for a truncated copy and refused a healthy
    /// store; they now see that every page past the end is free. A real truncation still fails.
    @Test func pagesFreedBeforeTheirFirstWriteAreNoTruncation() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let dataFile = path + "/data.mdb"
        var lastPage = 0
        do {
            let db = try Database(path: path)
            try db.write { txn in try txn.setObject("kept", forKey: "kept", inCollection: "c") }
            // Values written and removed in the same transaction: first on leaf pages, then on
            // overflow pages at the end of the file.
            for size in [300, 3_000] {
                try db.write { txn in
                    for i in 0..<3_000 { try txn.setObject([UInt8](repeating: UInt8(i % 256), count: size), forKey: "big\(i)", inCollection: "c") }
                    for i in 0..<3_000 { _ = try txn.removeObject(forKey: "big\(i)", inCollection: "c") }
                    try txn.setObject("also kept", forKey: "also", inCollection: "c")
                }
            }
            lastPage = try db.read { txn in
                var info = MDB_envinfo()
                mdb_env_info(txn.lmdb.environment.handle, &info)
                return info.me_last_pgno
            }
        }
        let size = try #require(ProcessTestSupport.fileSize(dataFile))
        #expect(size < (lastPage + 1) * 4096, "the transaction left no unwritten pages at the end (file \(size), last page \(lastPage)): the test no longer reproduces the case")
        let db = try Database(path: path)
        #expect(try db.read { try $0.object(forKey: "also", inCollection: "c", as: String.self) } == "also kept")
        let report = try db.checkStructure()
        #expect(report.isConsistent, "\(report.problems)")
        // The free pages are reused and written by later commits, and the store stays sound.
        try db.write { txn in for i in 0..<300 { try txn.setObject([UInt8](repeating: 1, count: 3_000), forKey: "again\(i)", inCollection: "c") } }
        #expect(try db.checkStructure().isConsistent)
    }

    @Test func aTruncationIntoPagesInUseIsStillRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let dataFile = path + "/data.mdb"
        do {
            let db = try Database(path: path)
            try db.write { txn in
                for i in 0..<300 { try txn.setObject([UInt8](repeating: UInt8(i % 256), count: 3_000), forKey: "big\(i)", inCollection: "c") }
                for i in 0..<300 { _ = try txn.removeObject(forKey: "big\(i)", inCollection: "c") }
            }
            try db.write { txn in for i in 0..<50 { try txn.setObject([UInt8](repeating: 2, count: 3_000), forKey: "used\(i)", inCollection: "c") } }
        }
        // Cut at the first page a tree uses past half the file: the free tail alone would be
        // sound, but this file also loses pages in use.
        let size = try #require(ProcessTestSupport.fileSize(dataFile))
        let report = try #require(PageVerifier.verify(dataFile: dataFile, keepingReachedPages: true))
        let cut = try #require(report.reachedPages.filter { $0 >= 2 }.max())
        #expect(truncate(dataFile, off_t(Int(cut) * 4096)) == 0)
        #expect(Int(cut) * 4096 < size)
        let error = #expect(throws: LarderError.self) { try Database(path: path) }
        #expect(error?.code == .corrupted && error?.message.contains("truncated") == true)
    }

    static let canMountTmpfs: Bool = {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.path + "/larder-tmpfs-probe-\(getpid())"
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard let mount = ProcessTestSupport.tool("mount"), let run = try? ProcessTestSupport.run(mount, ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe]), run.status == 0 else { return false }
        if let umount = ProcessTestSupport.tool("umount") { _ = try? ProcessTestSupport.run(umount, [probe]) }
        return true
    }()

    @Test(.enabled(if: canMountTmpfs, "needs root and permission to mount a small tmpfs"))
    func aFullDiskIsAClearErrorAndKeepsEveryCommit() throws {
        let directory = TemporaryDirectory()
        let mountPoint = directory.file("small-disk")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mount = try #require(ProcessTestSupport.tool("mount"))
        let umount = try #require(ProcessTestSupport.tool("umount"))
        #expect(try ProcessTestSupport.run(mount, ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint]).status == 0)
        defer { _ = try? ProcessTestSupport.run(umount, [mountPoint]) }
        var configuration = Database.Configuration()
        configuration.initialMapSize = 1 << 20
        let chunk = [UInt8](repeating: 0xAB, count: 64 << 10)
        var committed = 0
        var failure: LarderError?
        do {
            let db = try Database(path: mountPoint + "/store", configuration: configuration)
            while committed < 200 {
                do {
                    try db.write { try $0.setObject(chunk, forKey: "k\(committed)", inCollection: "c") }
                    committed += 1
                } catch let error as LarderError {
                    failure = error
                    break
                }
            }
            #expect(failure?.code == .diskFull, "got \(String(describing: failure))")
            #expect(committed > 10 && committed < 200)
            // The store is still usable: everything committed reads back, nothing of the failed
            // write is there, and once there is space again, writes go on.
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: "c") == committed)
                #expect(try txn.object(forKey: "k0", inCollection: "c", as: [UInt8].self) == chunk)
                #expect(try !txn.hasObject(forKey: "k\(committed)", inCollection: "c"))
            }
            #expect(try ProcessTestSupport.run(mount, ["-o", "remount,size=16m", mountPoint]).status == 0)
            try db.write { try $0.setObject(chunk, forKey: "after", inCollection: "c") }
        }
        let reopened = try Database(path: mountPoint + "/store")
        try reopened.read { txn throws in
            #expect(try txn.numberOfKeys(inCollection: "c") == committed + 1)
            #expect(try txn.object(forKey: "k\(committed - 1)", inCollection: "c", as: [UInt8].self) == chunk)
        }
    }
}
