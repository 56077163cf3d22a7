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

/// Damaged pages never crash a process: the library throws `corrupted`, `checkStructure()` and
/// `larder check` report the damage (status 4), and the other commands refuse the store with one
/// clear line. Each damaging operation runs in a child process, so a crash fails the test
/// instead of killing the runner.
@Suite("Damaged pages")
struct PageDamageTests {
    /// A sample store in a new directory; returns the store's path and its data file.
    static func sampleStore(_ directory: TemporaryDirectory) throws -> (store: String, dataFile: String) {
        let store = directory.file("store")
        return (store, try Corruption.makeStore(at: store))
    }

    @Test func undamagedStoresVerifyClean() throws {
        let directory = TemporaryDirectory()
        let (store, dataFile) = try Self.sampleStore(directory)
        let pages = try Database.verifyPages(path: store)
        #expect(pages.isConsistent, "\(pages.problems)")
        #expect(pages.pagesChecked > 20)
        #expect(try Database.verifyPages(path: dataFile).pagesChecked == pages.pagesChecked)
        let report = try Database(path: store).checkStructure()
        #expect(report.isConsistent, "\(report.problems)")
        #expect(report.pagesChecked == pages.pagesChecked)
        #expect(report.objectsChecked == Corruption.itemCount - 30 + Corruption.bigCount + 20)
        // An empty store and a single-file store with a deeper tree.
        _ = try Database(path: directory.file("empty"))
        #expect(try Database.verifyPages(path: directory.file("empty")).isConsistent)
        let single = directory.file("single.db")
        var configuration = Database.Configuration()
        configuration.singleFile = true
        let db = try Database(path: single, configuration: configuration)
        for batch in 0..<5 {
            try db.write { txn in
                for i in 0..<2_000 { try txn.setObject("value \(batch) \(i)", forKey: "key\(i * 7919 % 2_000)-\(batch)", inCollection: "c\(i % 3)") }
            }
        }
        try db.write { txn in for i in 0..<1_000 { try txn.removeObject(forKey: "key\(i)-2", inCollection: "c\(i % 3)") } }
        let deep = try db.checkStructure()
        #expect(deep.isConsistent, "\(deep.problems)")
        #expect(try Database.verifyPages(path: single).isConsistent)
        #expect(try Corruption.larder(["check", store]).status == 0)
    }

    /// The verifier's rules (key order against the parents' separators, counts, reachability)
    /// hold on whatever LMDB writes: random inserts, rewrites and removals of small and overflow
    /// values over many commits, with the store reopened between rounds.
    @Test func randomWorkloadsVerifyClean() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let seed = UInt64.random(in: 1...UInt64.max)
        var random = SplitMix(seed: seed)
        for round in 0..<4 {
            let db = try Database(path: path)
            for _ in 0..<6 {
                try db.write { txn in
                    for _ in 0..<400 {
                        let key = "key\(Int.random(in: 0..<3_000, using: &random))"
                        let collection = "c\(Int.random(in: 0..<4, using: &random))"
                        if Int.random(in: 0..<3, using: &random) == 0 {
                            try txn.removeObject(forKey: key, inCollection: collection)
                        } else {
                            let size = Int.random(in: 0..<10, using: &random) == 0 ? Int.random(in: 2_000..<30_000, using: &random) : Int.random(in: 0..<300, using: &random)
                            try txn.setObject([UInt8](repeating: UInt8(size & 0xFF), count: size), forKey: key, inCollection: collection)
                        }
                    }
                }
            }
            let report = try db.checkStructure()
            #expect(report.isConsistent, "seed \(seed), round \(round): \(report.problems.prefix(5))")
        }
        #expect(try Database.verifyPages(path: path).isConsistent, "seed \(seed)")
    }

    /// Defect 14.2 (a): a zeroed leaf page made LMDB assert `IS_LEAF` (SIGABRT) in `check`,
    /// `export` and `keys`.
    /// Pages are read from the file while writers commit: the verification holds a snapshot, so
    /// that no writer reuses its pages meanwhile (without it, `larder backup` beside a writer
    /// called a sound store damaged: "a key of page 11 is below its parent's separator key").
    @Test func aStoreBeingWrittenVerifiesClean() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            try db.write { txn in for i in 0..<400 { try txn.setObject([UInt8](repeating: UInt8(i % 251), count: 300), forKey: "k\(i)", inCollection: "c") } }
        }
        let writer = try BackgroundHelper(helper, ["put-many", path, "w", "100000"])
        defer { writer.kill() }
        #expect(writer.waitForLine("ack w10"))
        // No Database of this process is open: the verification pins the snapshot itself.
        for round in 0..<25 {
            let report = try Database.verifyPages(path: path)
            #expect(report.problems.isEmpty, "round \(round): \(report.problems)")
        }
        // With one open, it reads through the open environment.
        let db = try Database(path: path)
        for round in 0..<25 {
            let report = try Database.verifyPages(path: path)
            #expect(report.problems.isEmpty, "round \(round): \(report.problems)")
        }
        #expect(try db.checkStructure().problems.isEmpty)
    }

    @Test func aZeroedLeafPageIsReportedNotAsserted() throws {
        let directory = TemporaryDirectory()
        let (store, dataFile) = try Self.sampleStore(directory)
        var bytes = try Corruption.read(dataFile)
        let pages = Corruption.leafPages(bytes, keyPrefix: Array("items\u{0}k150".utf8))
        try #require(!pages.isEmpty)
        for page in pages { bytes.replaceSubrange((page * Corruption.pageSize)..<((page + 1) * Corruption.pageSize), with: repeatElement(0, count: Corruption.pageSize)) }
        try Corruption.write(bytes, to: dataFile)

        let check = try Corruption.larder(["check", store])
        #expect(check.signal == nil && check.status == CLI.Status.checkFailed, "\(check)")
        #expect(check.standardOutput.contains("problem: page"), "\(check)")
        for arguments in [["keys", store, "items"], ["export", store], ["collections", store], ["info", store], ["get", store, "items", "k150"]] {
            let run = try Corruption.larder(arguments)
            #expect(run.signal == nil && run.status == CLI.Status.storeError, "\(arguments[0]): \(run)")
            #expect(run.standardError.hasPrefix("larder: the store is damaged"), "\(arguments[0]): \(run)")
        }
        let report = try Database(path: store).checkStructure()
        #expect(report.problems.first?.kind == .page)
        #expect(report.objectsChecked == 0)  // the cursor walks did not run
        #expect(try Corruption.read(dataFile) == bytes)  // nothing was written
    }

    /// `Configuration.verification`: the library itself refuses a damaged store at open, with
    /// `corrupted`, instead of letting LMDB assert later; `.full` also refuses changed value
    /// bytes inside sound pages (with checksums on); sound, new and empty stores open.
    @Test func theOpensVerificationRefusesDamageBeforeAnythingReadsIt() throws {
        let directory = TemporaryDirectory()
        let (store, dataFile) = try Self.sampleStore(directory)
        var pages = Database.Configuration()
        pages.verification = .pages
        var full = Database.Configuration()
        full.verification = .full
        for configuration in [pages, full] {
            let db = try Database(path: store, configuration: configuration)
            #expect(try db.read { try $0.numberOfKeys(inCollection: "items") } == Corruption.itemCount - 30)
        }
        var bytes = try Corruption.read(dataFile)
        for page in Corruption.leafPages(bytes, keyPrefix: Array("items\u{0}k150".utf8)) {
            bytes.replaceSubrange((page * Corruption.pageSize)..<((page + 1) * Corruption.pageSize), with: repeatElement(0, count: Corruption.pageSize))
        }
        try Corruption.write(bytes, to: dataFile)
        for configuration in [pages, full] {
            let error = try #require(throws: LarderError.self) { try Database(path: store, configuration: configuration) }
            #expect(error.code == .corrupted && error.message.contains("damaged"), "\(error)")
        }
        #expect(try Corruption.read(dataFile) == bytes)  // nothing was written

        // A value changed inside a sound page: pages cannot see it, the full check can.
        var checksummed = Database.Configuration()
        checksummed.checksumsValues = true
        let valueStore = directory.file("values")
        do {
            let db = try Database(path: valueStore, configuration: checksummed)
            try db.write { try $0.setObject("a needle in the file", forKey: "k", inCollection: "c") }
        }
        var valueBytes = try Corruption.read(valueStore + "/data.mdb")
        let needle = Array("needle".utf8)
        let at = try #require((0...(valueBytes.count - needle.count)).first { valueBytes[$0..<($0 + needle.count)].elementsEqual(needle) })
        valueBytes[at] ^= 0x20
        try Corruption.write(valueBytes, to: valueStore + "/data.mdb")
        pages.checksumsValues = true
        full.checksumsValues = true
        _ = try Database(path: valueStore, configuration: pages)
        let changed = try #require(throws: LarderError.self) { try Database(path: valueStore, configuration: full) }
        #expect(changed.code == .corrupted && changed.message.contains("failed its check"), "\(changed)")

        // A file that is no store is `notAStore`; a new path and an empty directory make a store.
        try Corruption.write(Array("not a store at all".utf8), to: directory.file("text"))
        #expect(throws: LarderError.self) { try Database(path: directory.file("text"), configuration: pages) }
        _ = try Database(path: directory.file("new"), configuration: full)
        try FileManager.default.createDirectory(atPath: directory.file("empty"), withIntermediateDirectories: false)
        _ = try Database(path: directory.file("empty"), configuration: pages)
    }

    /// Defect 14.2 (b): a key shorter than its collection's prefix trapped in the enumeration
    /// walk ("Range requires lowerBound <= upperBound").
    @Test func aKeyShorterThanItsCollectionPrefixIsCorruptedNotATrap() throws {
        let directory = TemporaryDirectory()
        let (store, dataFile) = try Self.sampleStore(directory)
        var bytes = try Corruption.read(dataFile)
        let target = Array("items\u{0}k150".utf8)
        var changed = 0
        for page in Corruption.leafPages(bytes, keyPrefix: target) {
            for node in Corruption.nodes(bytes, page: page) where Corruption.key(bytes, node) == target {
                Corruption.setUInt16(&bytes, node.offset + 6, 5)  // the key is now "items"
                changed += 1
            }
        }
        try #require(changed > 0)
        try Corruption.write(bytes, to: dataFile)
        // The library, with no page verification first.
        let read = try Corruption.helper(["read-all", store])
        #expect(read.signal == nil && read.status == 3, "\(read)")
        #expect(read.standardOutput == "corrupted\n", "\(read)")
        // The tool finds the key out of order before it walks.
        let check = try Corruption.larder(["check", store])
        #expect(check.signal == nil && check.status == CLI.Status.checkFailed, "\(check)")
        #expect(check.standardOutput.contains("out of order"), "\(check)")
        let keys = try Corruption.larder(["keys", store, "items"])
        #expect(keys.signal == nil && keys.status == CLI.Status.storeError, "\(keys)")
    }

    /// Defect 14.2 (c): a stored value size running past the end of the file was a SIGBUS in
    /// `memcpy` in `get`.
    @Test func aValueSizePastTheEndOfTheFileIsCorruptedNotSIGBUS() throws {
        let directory = TemporaryDirectory()
        let (store, dataFile) = try Self.sampleStore(directory)
        var bytes = try Corruption.read(dataFile)
        let target = Array("big\u{0}b1".utf8)
        let size = bytes.count + 8 * Corruption.pageSize  // past the file, inside the map
        var changed = 0
        for page in Corruption.leafPages(bytes, keyPrefix: target) {
            for node in Corruption.nodes(bytes, page: page) where Corruption.key(bytes, node) == target && node.flags == 1 {
                Corruption.setUInt16(&bytes, node.offset, size & 0xFFFF)
                Corruption.setUInt16(&bytes, node.offset + 2, size >> 16)
                changed += 1
            }
        }
        try #require(changed > 0)
        try Corruption.write(bytes, to: dataFile)
        let read = try Corruption.helper(["read", store, "big", "b1"])
        #expect(read.signal == nil && read.status == 3, "\(read)")
        #expect(read.standardOutput == "corrupted\n", "\(read)")
        #expect(try Corruption.helper(["read", store, "big", "b2"]).standardOutput == "20000\n")  // the rest still reads
        let check = try Corruption.larder(["check", store])
        #expect(check.signal == nil && check.status == CLI.Status.checkFailed, "\(check)")
        #expect(check.standardOutput.contains("overflow"), "\(check)")
    }

    /// Defect 14.10: one damaged meta page was "not a Larder store".
    @Test func oneDamagedMetaPageIsDiagnosedAsDamage() throws {
        let directory = TemporaryDirectory()
        let (store, dataFile) = try Self.sampleStore(directory)
        var bytes = try Corruption.read(dataFile)
        bytes[Corruption.pageSize + 16] ^= 0xFF  // the magic number of meta page 1
        try Corruption.write(bytes, to: dataFile)
        let error = #expect(throws: LarderError.self) { try Database(path: store) }
        #expect(error?.code == .corrupted, "\(String(describing: error))")
        #expect(error?.message.contains("meta page 1 is damaged") == true, "\(String(describing: error))")
        #expect(error?.message.contains("meta page 0 is intact") == true, "\(String(describing: error))")
        let pages = try Database.verifyPages(path: store)
        #expect(pages.problems.map(\.kind) == [.metaPage])
        let check = try Corruption.larder(["check", store, "--json"])
        #expect(check.signal == nil && check.status == CLI.Status.checkFailed, "\(check)")
        #expect(check.standardOutput.contains("\"metaPage\""), "\(check)")
        let info = try Corruption.larder(["info", store])
        #expect(info.status == CLI.Status.storeError && info.standardError.contains("meta page 1 is damaged"), "\(info)")
        // Both damaged: nothing to go on, the file is not taken for a store.
        bytes[16] ^= 0xFF
        try Corruption.write(bytes, to: dataFile)
        #expect((#expect(throws: LarderError.self) { try Database(path: store) })?.code == .notAStore)
    }

    /// The corruption loop's copy 17 of seed 8491013628904342863: LMDB takes the page size from
    /// the newer meta page without checking it, so a damaged one stopped every process that
    /// opened the store (SIGBUS). Each damaged size, in either meta page, is refused at open.
    @Test(arguments: [UInt32(0xBA00_1000), 0, 100, 3 << 12])
    func aDamagedPageSizeInAMetaPageIsRefusedAtOpen(pageSize: UInt32) throws {
        let directory = TemporaryDirectory()
        let (store, dataFile) = try Self.sampleStore(directory)
        let intact = try Corruption.read(dataFile)
        // The newer meta page is the one LMDB uses; damage each in turn.
        for page in 0...1 {
            var bytes = intact
            let field = page * Corruption.pageSize + 40  // the free database's md_pad: mm_psize
            withUnsafeBytes(of: pageSize.littleEndian) { for (offset, byte) in $0.enumerated() { bytes[field + offset] = byte } }
            try Corruption.write(bytes, to: dataFile)
            let error = #expect(throws: LarderError.self, "meta page \(page)") { try Database(path: store) }
            #expect(error?.code == .corrupted, "meta page \(page): \(String(describing: error))")
            #expect(error?.message.contains("page size") == true, "meta page \(page): \(String(describing: error))")
            for command in ["info", "check", "keys"] {
                let run = try Corruption.larder(command == "keys" ? [command, store, "items"] : [command, store])
                #expect(run.signal == nil, "meta page \(page): larder \(command): \(run)")
                #expect(run.status != 0, "meta page \(page): larder \(command): \(run)")
            }
        }
        try Corruption.write(intact, to: dataFile)
        #expect(throws: Never.self) { _ = try Database(path: store) }
    }

    /// The corruption loop's copy 894 of seed 9477680054919216061: a data file cut inside its
    /// first page, shorter than a meta page, was "not a Larder store" (status 3 from `check`).
    /// While what is left still holds LMDB's magic number it is a damaged store; cut before the
    /// magic number ends, nothing says it was one.
    @Test(arguments: [20, 100, 151])
    func aDataFileCutInsideItsFirstPageIsDamageWhileItHoldsTheMagicNumber(length: Int) throws {
        let directory = TemporaryDirectory()
        let (store, dataFile) = try Self.sampleStore(directory)
        try Corruption.write(Array(try Corruption.read(dataFile).prefix(length)), to: dataFile)
        let error = #expect(throws: LarderError.self) { try Database(path: store) }
        #expect(error?.code == .corrupted, "\(String(describing: error))")
        #expect(error?.message.contains("truncated") == true, "\(String(describing: error))")
        let pages = try Database.verifyPages(path: store)
        #expect(pages.problems.map(\.kind) == [.metaPage])
        let check = try Corruption.larder(["check", store])
        #expect(check.signal == nil && check.status == CLI.Status.checkFailed, "\(check)")
        let info = try Corruption.larder(["info", store])
        #expect(info.status == CLI.Status.storeError && info.standardError.contains("truncated"), "\(info)")
        // Cut before the magic number ends: not a store.
        try Corruption.write(Array(try Corruption.read(dataFile).prefix(19)), to: dataFile)
        #expect((#expect(throws: LarderError.self) { try Database(path: store) })?.code == .notAStore)
    }

    /// The corruption loop's copy 7 of seed 17663078272512294345: a meta page whose transaction id
    /// was past `Int.max` (LMDB uses it as it is) stopped `check`, `info`, `keys`, `get` and
    /// `export` with a trap converting the id. The id is now read unsigned: every command and the
    /// library run.
    @Test func aTransactionIDPastIntMaxInAMetaPageStopsNothing() throws {
        let directory = TemporaryDirectory()
        let (store, dataFile) = try Self.sampleStore(directory)
        var bytes = try Corruption.read(dataFile)
        let field = 144  // meta page 0's mm_txnid
        withUnsafeBytes(of: UInt64(0xB200_0000_0000_0004).littleEndian) { for (offset, byte) in $0.enumerated() { bytes[field + offset] = byte } }
        try Corruption.write(bytes, to: dataFile)
        _ = try Database.verifyPages(path: store)
        for command in [["check", store], ["info", store], ["keys", store, "items"], ["export", store]] {
            let run = try Corruption.larder(command)
            #expect(run.signal == nil, "larder \(command[0]): \(run)")
        }
        let db = try Database(path: store)
        _ = try db.checkStructure()
    }
}
