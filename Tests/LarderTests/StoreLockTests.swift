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

/// One store, one lock: every spelling of a store's path reaches one lock file; opening never
/// waits for a writer, never turns an empty file into a store, and creation is atomic; read-only
/// opens; the lock file on a full disk; stale readers in a long-running writer.
@Suite("Store locations, locks and opening")
struct StoreLockTests {
    // MARK: One lock file per store

    @Test func everySpellingOfADirectoryStoreIsOneStore() throws {
        let directory = TemporaryDirectory()
        let store = directory.file("store")
        let db = try Database(path: store)
        try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
        symlink(store, directory.file("link-to-store"))
        symlink(store + "/data.mdb", directory.file("link-to-data"))
        let spellings = [store + "/", store + "/data.mdb", store + "/../store", directory.file("link-to-store"),
                         directory.file("link-to-store") + "/data.mdb", directory.file("link-to-data")]
        var others: [Database] = []
        for spelling in spellings {
            let other = try Database(path: spelling)
            #expect(try other.read { try $0.object(forKey: "k", inCollection: "c", as: Int.self) } == 1, "\(spelling)")
            #expect(try other.statistics().isSingleFile == false, "\(spelling)")
            others.append(other)
        }
        #expect(EnvironmentRegistry.openCount(path: store) == spellings.count + 1)
        others.removeAll()
        // Only the directory's own lock file exists: no `data.mdb-lock` beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: store).sorted() == ["data.mdb", "lock.mdb"])
    }

    @Test func aSingleFileNamedDataMdbCannotBeMade() throws {
        let directory = TemporaryDirectory()
        var configuration = Database.Configuration()
        configuration.singleFile = true
        let error = #expect(throws: LarderError.self) { try Database(path: directory.file("data.mdb"), configuration: configuration) }
        #expect(error?.code == .invalidConfiguration)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// Two processes write at once, each through its own spelling of one store; every write either
    /// process acknowledged must be in the store afterwards, and one lock file exists.
    @Test(arguments: [
        ("directory", "data file"), ("directory", "symlink to the data file"),
        ("directory with a trailing slash", "symlink to the directory"), ("single file", "symlink to the file"),
    ])
    func writersThroughTwoSpellingsLoseNothing(first: String, second: String) throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let directory = TemporaryDirectory()
        let singleFile = first == "single file"
        let store = directory.file(singleFile ? "store.larder" : "store")
        var configuration = Database.Configuration()
        configuration.singleFile = singleFile
        do { _ = try Database(path: store, configuration: configuration) }
        symlink(store + "/data.mdb", directory.file("data-link"))
        symlink(store, directory.file("store-link"))
        func spelling(_ name: String) -> String {
            switch name {
            case "directory", "single file": store
            case "directory with a trailing slash": store + "/"
            case "data file": store + "/data.mdb"
            case "symlink to the data file": directory.file("data-link")
            default: directory.file("store-link")
            }
        }
        let count = 150
        let runs = try [("a", spelling(first)), ("b", spelling(second))].map { prefix, path in
            try BackgroundHelper(helper, ["put-many", path, prefix, String(count)])
        }
        var acknowledged: [String] = []
        for run in runs {
            let result = run.finish()
            #expect(result.status == 0, "\(result.standardError)")
            acknowledged += result.standardOutput.split(separator: "\n").compactMap { line in
                line.hasPrefix("ack ") ? String(line.dropFirst(4)) : nil
            }
        }
        #expect(acknowledged.count == 2 * count)
        let db = try Database(path: store)
        let stored = try db.read { try Set($0.keys(inCollection: "spellings")) }
        let missing = acknowledged.filter { !stored.contains($0) }
        #expect(missing.isEmpty, "\(missing.count) acknowledged writes are missing")
        #expect(try db.checkStructure().isConsistent)
        let lockFiles = try FileManager.default.contentsOfDirectory(atPath: singleFile ? directory.path : store).filter { $0.hasSuffix("lock") || $0.hasSuffix("lock.mdb") }
        #expect(lockFiles == [singleFile ? "store.larder-lock" : "lock.mdb"])
    }

    /// Hard links have no one true name, so two of them would take two lock files: while a
    /// process has the store open through one, an open through the other is refused.
    @Test func aSecondHardLinkIsRefusedWhileTheFirstIsInUse() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let directory = TemporaryDirectory()
        let first = directory.file("one.larder")
        let second = directory.file("two.larder")
        var configuration = Database.Configuration()
        configuration.singleFile = true
        do {
            let db = try Database(path: first, configuration: configuration)
            try db.write { try $0.setObject("kept", forKey: "k", inCollection: "c") }
        }
        #expect(link(first, second) == 0)
        let holder = try BackgroundHelper(helper, ["hold-read", first])
        #expect(holder.waitForLine("reading"))
        let error = #expect(throws: LarderError.self) { try Database(path: second) }
        #expect(error?.code == .lockConflict)
        #expect(!FileManager.default.fileExists(atPath: second + "-lock"))
        holder.kill()
        // With the first name closed, the second opens (and then refuses the first in turn).
        let db = try Database(path: second)
        #expect(try db.read { try $0.object(forKey: "k", inCollection: "c", as: String.self) } == "kept")
        // In one process, both names share the one open environment.
        let again = try Database(path: first)
        #expect(try again.read { try $0.object(forKey: "k", inCollection: "c", as: String.self) } == "kept")
    }

    // MARK: Opening

    @Test func anEmptyDataFileIsDamageNotANewStore() throws {
        let directory = TemporaryDirectory()
        let store = directory.file("store")
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: store + "/data.mdb", contents: Data()))
        for readOnly in [false, true] {
            var configuration = Database.Configuration()
            configuration.readOnly = readOnly
            let error = #expect(throws: LarderError.self) { try Database(path: store, configuration: configuration) }
            #expect(error?.code == .corrupted)
            #expect(error?.message.contains("empty") == true)
        }
        #expect(ProcessTestSupport.fileSize(store + "/data.mdb") == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store) == ["data.mdb"])
    }

    /// A creator killed at any moment leaves either no store or a whole one, never a data file
    /// that later opens call "not a Larder store".
    @Test func aCreatorKilledAtAnyMomentLeavesNoHalfStore() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let directory = TemporaryDirectory()
        let kills = ProcessInfo.processInfo.environment["LARDER_FULL"] == nil ? 6 : 200
        var random = SystemRandomNumberGenerator()
        for round in 0..<kills {
            let base = directory.file("round\(round)")
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: false)
            let creator = try BackgroundHelper(helper, ["create-stores", base, "1000"])
            usleep(UInt32.random(in: 20_000...150_000, using: &random))
            creator.kill()
            for name in try FileManager.default.contentsOfDirectory(atPath: base) where name.hasPrefix("s") {
                let store = base + "/" + name
                let db = try Database(path: store)
                let count = try db.read { try $0.numberOfKeys(inCollection: "c") }
                #expect(count <= 1)
                #expect(try db.checkStructure().isConsistent)
                #expect(try FileManager.default.contentsOfDirectory(atPath: store).allSatisfy { !$0.contains("creating") })
            }
        }
    }

    @Test func leftoversOfAnInterruptedCreationAreRemoved() throws {
        let directory = TemporaryDirectory()
        let store = directory.file("store")
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: store + "/.data.mdb.creating-99999", contents: Data(repeating: 7, count: 100)))
        #expect(FileManager.default.createFile(atPath: store + "/.data.mdb.creating-99999-lock", contents: Data()))
        let db = try Database(path: store)
        try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: store).sorted() == ["data.mdb", "lock.mdb"])
    }

    /// Opening reads the store's layout in a read transaction, so it does not wait for another
    /// process's write transaction (it used to take LMDB's writer lock).
    @Test func openingDoesNotWaitForAnotherProcesssWriter() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let larder = try #require(ProcessTestSupport.builtExecutable("larder"))
        let directory = TemporaryDirectory()
        let store = directory.file("store")
        do {
            let db = try Database(path: store)
            try db.write { try $0.setObject("before", forKey: "k", inCollection: "c") }
        }
        let writer = try BackgroundHelper(helper, ["hold-write", store])
        defer { writer.kill() }
        #expect(writer.waitForLine("writing"))
        let reader = try BackgroundHelper(larder, ["get", store, "c", "k"])
        let result = reader.finish(within: 30)
        #expect(result.status == 0, "the open waited for the writer or failed: \(result.standardError)")
        #expect(result.standardOutput.contains("before"))
    }

    // MARK: Read-only opens

    @Test func aReadOnlyOpenCreatesNothingAndWritesNothing() throws {
        let directory = TemporaryDirectory()
        var readOnly = Database.Configuration()
        readOnly.readOnly = true
        let missing = #expect(throws: LarderError.self) { try Database(path: directory.file("nothing"), configuration: readOnly) }
        #expect(missing?.code == .notFound)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

        let store = directory.file("store")
        do {
            let db = try Database(path: store)
            try db.write { try $0.setObject("v", forKey: "k", inCollection: "c") }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb"))
        let db = try Database(path: store, configuration: readOnly)
        #expect(try db.read { try $0.object(forKey: "k", inCollection: "c", as: String.self) } == "v")
        let refused = #expect(throws: LarderError.self) { try db.write { try $0.setObject("w", forKey: "k", inCollection: "c") } }
        #expect(refused?.code == .readOnly)
        let view = AutoView<String, NoMetadata>(collections: ["c"], versionTag: "1", grouping: { _, _ in "all" }, sorting: { _, value in TupleKey(value) })
        let registration = #expect(throws: LarderError.self) { try db.register(view, named: "all") }
        #expect(registration?.code == .readOnly)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store + "/data.mdb")) == before)
        // A writable open in the same process is refused while the read-only one is open.
        let writable = #expect(throws: LarderError.self) { try Database(path: store) }
        #expect(writable?.code == .invalidConfiguration)
    }

    @Test func anAsyncWriteOnAReadOnlyDatabaseThrows() async throws {
        let directory = TemporaryDirectory()
        let store = directory.file("store")
        do { _ = try Database(path: store) }
        var readOnly = Database.Configuration()
        readOnly.readOnly = true
        let db = try Database(path: store, configuration: readOnly)
        await #expect(throws: LarderError.self) { try await db.write { try $0.setObject(1, forKey: "k", inCollection: "c") } }
    }

    /// Files the reader may only read (0400, in a 0500 directory): a read-only open reads them.
    @Test(.enabled(if: getuid() == 0, "needs root to hand the files to another user"))
    func aReadOnlyOpenReadsFilesItMayNotWrite() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let store = directory.file("store")
        do {
            let db = try Database(path: store)
            try db.write { try $0.setObject("readable", forKey: "k", inCollection: "c") }
        }
        for file in [store, store + "/data.mdb", store + "/lock.mdb"] { chown(file, 65534, 65534) }
        chmod(store + "/data.mdb", 0o400)
        chmod(store + "/lock.mdb", 0o400)
        chmod(store, 0o500)
        let run = try ProcessTestSupport.run(helper, ["read-as-nobody", store, "c", "k"])
        #expect(run.status == 0, "\(run.standardOutput) \(run.standardError)")
        #expect(run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "readable")
        chmod(store, 0o700)
    }

    /// A store on a read-only file system: a read-only open reads it; a writable open says why
    /// it cannot.
    @Test(.enabled(if: DamagedStoreTests.canMountTmpfs, "needs root and permission to mount a small tmpfs"))
    func aStoreOnAReadOnlyFileSystemIsReadable() throws {
        let directory = TemporaryDirectory()
        let mountPoint = directory.file("media")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mount = try #require(ProcessTestSupport.tool("mount"))
        let umount = try #require(ProcessTestSupport.tool("umount"))
        #expect(try ProcessTestSupport.run(mount, ["-t", "tmpfs", "-o", "size=8m", "tmpfs", mountPoint]).status == 0)
        defer { _ = try? ProcessTestSupport.run(umount, [mountPoint]) }
        let store = mountPoint + "/store"
        do {
            let db = try Database(path: store)
            try db.write { try $0.setObject("on media", forKey: "k", inCollection: "c") }
        }
        unlink(store + "/lock.mdb")  // media written elsewhere carry no lock file
        #expect(try ProcessTestSupport.run(mount, ["-o", "remount,ro", mountPoint]).status == 0)
        var readOnly = Database.Configuration()
        readOnly.readOnly = true
        do {
            let db = try Database(path: store, configuration: readOnly)
            #expect(try db.read { try $0.object(forKey: "k", inCollection: "c", as: String.self) } == "on media")
        }
        let error = #expect(throws: LarderError.self) { try Database(path: store) }
        #expect(error?.code == .permissionDenied)
    }

    /// A store behind a directory the user may not search is a permission problem, which the
    /// tool used to report as "no store".
    @Test(.enabled(if: getuid() == 0 && ProcessTestSupport.tool("runuser") != nil, "needs root and runuser"))
    func theToolTellsAPermissionProblemFromAMissingStore() throws {
        let larder = try #require(ProcessTestSupport.builtExecutable("larder"))
        let runuser = try #require(ProcessTestSupport.tool("runuser"))
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let closed = directory.file("closed")
        try FileManager.default.createDirectory(atPath: closed, withIntermediateDirectories: false)
        do { _ = try Database(path: closed + "/store") }
        chmod(closed, 0o700)
        let run = try ProcessTestSupport.run(runuser, ["-u", "nobody", "--", larder, "info", closed + "/store"])
        #expect(run.status == 5, "\(run.standardError)")
        #expect(run.standardError.contains("permission denied"))
        let missing = try ProcessTestSupport.run(runuser, ["-u", "nobody", "--", larder, "info", directory.file("nothing")])
        #expect(missing.status == 2, "\(missing.standardError)")
    }

    // MARK: The lock file and reader slots

    /// LMDB's lock file is sparse; on a full disk a reader taking a slot on a page without a
    /// block behind it stopped the process with SIGBUS. Now the open preallocates it: readers
    /// either work or the open says the disk is full.
    @Test(.enabled(if: DamagedStoreTests.canMountTmpfs, "needs root and permission to mount a small tmpfs"))
    func manyReadersOnAFullDiskNeverCrash() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let directory = TemporaryDirectory()
        let mountPoint = directory.file("small-disk")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mount = try #require(ProcessTestSupport.tool("mount"))
        let umount = try #require(ProcessTestSupport.tool("umount"))
        #expect(try ProcessTestSupport.run(mount, ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint]).status == 0)
        defer { _ = try? ProcessTestSupport.run(umount, [mountPoint]) }
        let store = mountPoint + "/store"
        do {
            let db = try Database(path: store)
            try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
        }
        unlink(store + "/lock.mdb")
        // Fill the disk.
        let filler = open(mountPoint + "/filler", O_WRONLY | O_CREAT, 0o600)
        let block = [UInt8](repeating: 1, count: 4096)
        while write(filler, block, block.count) == block.count {}
        close(filler)
        let run = try ProcessTestSupport.run(helper, ["many-readers", store, "150"])
        let said = run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(run.status == 0 || run.status == 1, "the reader process died: status \(run.status), \(run.standardError)")
        #expect(said == "ok 150" || said == "diskFull", "\(said) \(run.standardError)")
        unlink(mountPoint + "/filler")
        #expect(try ProcessTestSupport.run(helper, ["many-readers", store, "150"]).standardOutput.contains("ok 150"))
    }

    /// A reader killed inside its transaction pins its snapshot; the writer clears its slot by
    /// itself (every few commits and before growing), so the file stops growing.
    @Test func aDeadReaderDoesNotMakeAWritersFileGrowWithoutBound() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        try withStore { db, directory in
            let value = [UInt8](repeating: 0x5A, count: 1_000)
            func rewrite() throws {
                try db.write { txn in
                    for i in 0..<300 { try txn.setObject(value, forKey: "k\(i)", inCollection: "c") }
                }
            }
            try rewrite()
            let reader = try BackgroundHelper(helper, ["hold-read", directory.file("store")])
            #expect(reader.waitForLine("reading"))
            reader.kill()
            #expect(db.readerSlots().contains { !$0.isProcessAlive })
            for _ in 0..<(Environment.readerCheckInterval + 1) { try rewrite() }
            #expect(!db.readerSlots().contains { !$0.isProcessAlive }, "the dead reader's slot is still taken")
            let settled = try #require(ProcessTestSupport.fileSize(directory.file("store") + "/data.mdb"))
            for _ in 0..<(2 * Environment.readerCheckInterval) { try rewrite() }
            let later = try #require(ProcessTestSupport.fileSize(directory.file("store") + "/data.mdb"))
            // 128 rewrites of 300 KB behind a pinned snapshot would add tens of megabytes.
            #expect(later <= settled * 2, "the file grew from \(settled) to \(later) bytes")
        }
    }

    @Test func theReadersFullAdviceSaysWhoFixedTheNumberOfSlots() {
        let error = LMDBResult.error(-30790, operation: "beginRead")  // MDB_READERS_FULL
        #expect(error.code == .readersFull)
        #expect(error.message.contains("first process that opened the store"))
    }
}

/// A child process whose output is collected while it runs.
final class BackgroundHelper: @unchecked Sendable {  // output guarded by `lock`
    private let process = Process()
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()
    private let done = DispatchGroup()

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for (pipe, isOutput) in [(out, true), (err, false)] {
            done.enter()
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread { [self] in
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    lock.lock()
                    if isOutput { output.append(data) } else { errors.append(data) }
                    lock.unlock()
                }
                done.leave()
            }
        }
    }

    var standardOutput: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: output, as: UTF8.self)
    }

    /// Waits (up to 30 s) until the output holds a line equal to `line`.
    func waitForLine(_ line: String) -> Bool {
        for _ in 0..<3_000 {
            if standardOutput.split(separator: "\n").contains(Substring(line)) { return true }
            if !process.isRunning && done.wait(timeout: .now()) == .success { return standardOutput.split(separator: "\n").contains(Substring(line)) }
            usleep(10_000)
        }
        return false
    }

    /// Waits for the process to end (killing it after `seconds`), with everything it printed.
    func finish(within seconds: Int = 120) -> ProcessTestSupport.Run {
        if done.wait(timeout: .now() + .seconds(seconds)) == .timedOut {
            process.terminate()
            _ = done.wait(timeout: .now() + .seconds(5))
        }
        process.waitUntilExit()
        lock.lock()
        defer { lock.unlock() }
        let signaled = process.terminationReason == .uncaughtSignal
        return ProcessTestSupport.Run(
            status: signaled ? -1 : process.terminationStatus,
            standardOutput: String(decoding: output, as: UTF8.self),
            standardError: String(decoding: errors, as: UTF8.self),
            signal: signaled ? process.terminationStatus : nil)
    }

    /// Kills the process (SIGKILL) and waits for it.
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// Paths that cannot hold a store: each is a clear error, and nothing is created.
@Suite("Store locations: bad paths")
struct StoreLocationBadPathTests {
    @Test func pathsThatCannotHoldAStoreAreRefusedAndCreateNothing() throws {
        let directory = TemporaryDirectory()
        let file = directory.file("plain.txt")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("text".utf8)))
        symlink(directory.file("nowhere"), directory.file("dangling"))
        #expect(mkfifo(directory.file("fifo"), 0o600) == 0)
        let cases: [(path: String, code: LarderError.Code)] = [
            ("", .invalidConfiguration),
            (directory.file("dangling"), .notAStore),        // a symlink to nothing
            (file + "/store", .notAStore),                   // through a file
            (directory.file("fifo"), .notAStore),            // neither a directory nor a file
            (directory.file("missing/store"), .notAStore),   // no directory to hold it
        ]
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        for (path, code) in cases {
            let error = #expect(throws: LarderError.self, "\(path)") { try Database(path: path) }
            #expect(error?.code == code, "\(path): \(String(describing: error))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == before)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "text")
    }
}
