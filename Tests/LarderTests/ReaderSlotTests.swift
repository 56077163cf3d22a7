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

/// Reader slots: a reader that pins old pages is visible with its age; one left by a killed
/// process is reclaimed.
@Suite("Reader slots")
struct ReaderSlotTests {
    @Test func aPinnedReaderShowsHowFarBehindItIs() throws {
        try withStore { db, _ in
            try db.write { try $0.setObject(0, forKey: "x", inCollection: "c") }
            let ui = db.newConnection()
            try ui.pinSnapshot()
            for i in 1...5 { try db.write { try $0.setObject(i, forKey: "x", inCollection: "c") } }
            let mine = db.readerSlots().filter { $0.processID == getpid() && $0.snapshotTransactionID != nil }
            #expect(mine.count == 1)
            #expect(mine.first?.transactionsBehind == 5)
            #expect(mine.first?.isProcessAlive == true)
            ui.unpinSnapshot()
            #expect(db.readerSlots().allSatisfy { $0.processID != getpid() || $0.snapshotTransactionID == nil })
        }
    }

    @Test func aSlotLeftByAKilledReaderIsReclaimed() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        try withStore { db, directory in
            try db.write { try $0.setObject(0, forKey: "x", inCollection: "c") }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: helper)
            process.arguments = ["hold-read", directory.file("store")]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            var text = ""
            while !text.contains("reading") {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            let pid = process.processIdentifier
            #expect(db.readerSlots().contains { $0.processID == pid && $0.snapshotTransactionID != nil && $0.isProcessAlive })
            kill(pid, SIGKILL)
            process.waitUntilExit()
            #expect(db.readerSlots().contains { $0.processID == pid && !$0.isProcessAlive })
            #expect(db.clearStaleReaders() >= 1)
            #expect(!db.readerSlots().contains { $0.processID == pid })
            try db.write { try $0.setObject(1, forKey: "x", inCollection: "c") }
        }
    }

    @Test func theReaderListParses() {
        let entries = ReaderTable.parse("    pid     thread     txnid\n      1234 7f00aa -\n      99 1a 42\n(no active readers)\n")
        #expect(entries.count == 2)
        #expect(entries[0].processID == 1234 && entries[0].thread == 0x7f00aa && entries[0].transactionID == nil)
        #expect(entries[1].transactionID == 42)
    }
}
