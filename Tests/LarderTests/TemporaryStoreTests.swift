import Foundation
import Testing
@testable import Larder

/// `Database.temporary()`: a private store in memory where the system has it, gone when it
/// closes, and gone after its process dies once another temporary store is made.
@Suite("Temporary stores")
struct TemporaryStoreTests {
    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test func aTemporaryStoreIsPrivateAndGoneWhenClosed() throws {
        let db = try Database.temporary()
        let directory = URL(fileURLWithPath: db.path).deletingLastPathComponent().path
        if exists("/dev/shm") { #expect(directory.hasPrefix("/dev/shm/")) }
        let attributes = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        try db.write { try $0.setObject("draft", forKey: "d1", inCollection: "notes") }
        #expect(try db.read { try $0.object(forKey: "d1", inCollection: "notes", as: String.self) } == "draft")
        let other = try Database.temporary()
        #expect(other.path != db.path)
        #expect(try other.read { try $0.numberOfKeys(inCollection: "notes") } == 0)
        #expect(exists(directory))
        db.close()
        #expect(!exists(directory))
        other.close()
    }

    @Test func releasingTheLastDatabaseRemovesIt() throws {
        var directory = ""
        do {
            let db = try Database.temporary()
            directory = URL(fileURLWithPath: db.path).deletingLastPathComponent().path
            try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
            #expect(exists(directory))
        }
        #expect(!exists(directory))
    }

    @Test func theStoreOfAProcessThatDiedIsRemovedByTheNextOne() throws {
        // A process that has ended: its id names a temporary store left behind.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        let base = TemporaryStore.baseDirectory
        let orphan = base + "/" + TemporaryStore.namePrefix + "\(process.processIdentifier)-left-behind"
        try FileManager.default.createDirectory(atPath: orphan, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: orphan + "/data.mdb", contents: Data([1, 2, 3])))
        // One of a live process (this one) stays.
        let live = base + "/" + TemporaryStore.namePrefix + "\(getpid())-still-running"
        try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: live) }

        let db = try Database.temporary()
        #expect(!exists(orphan))
        #expect(exists(live))
        db.close()
    }
}
