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
