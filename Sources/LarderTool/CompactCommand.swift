#if Extras
import ArgumentParser
import Foundation
import Larder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `larder compact`: the store rewritten in place without its free pages, through a compacting
/// copy and an atomic rename.
struct CompactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compact",
        abstract: "Rewrite a store in place without its free pages, so that its file shrinks.",
        discussion: """
            The store is copied with compaction (as backup does) beside itself, the copy is \
            opened and checked, and the copy's data file is renamed over the store's in one \
            atomic step. Nothing may have the store open meanwhile: compact refuses (status 5) \
            when another process has it open, and while it swaps the files no other process can \
            open it (an open fails instead of using the old file). If any process wrote to the \
            store during the copy, compact leaves the store as it was and says so. After a \
            failure the store is unchanged and no copy is left behind; a copy left by a \
            compaction that was killed (<store>.compacting-<pid>, its process gone) is removed \
            by the next compact, and info and check mention it.
            """)

    @OptionGroup var store: StoreArgument
    @Flag(help: "Print the summary as JSON.") var json = false

    func run() throws {
        let paths = try StoreFiles(store.path)
        try StoreOpenCheck.refuseIfOpen(paths.dataFile, path: store.path)
        // A killed compact leaves its copy behind; the next one removes it (never a live one's).
        for leftover in CompactLeftover.removeDead(beside: store.path) where !json {
            say("removed \(leftover.path) (\(byteCount(leftover.bytes))), left by a compaction that did not finish")
        }
        let sizeBefore = Self.size(of: paths.dataFile)
        let snapshot = try copy(to: paths)
        do {
            try swap(paths, expecting: snapshot)
        } catch {
            paths.removeCopy()
            throw error
        }
        paths.removeCopy()
        let sizeAfter = Self.size(of: paths.dataFile)
        if json {
            sayJSON(.object([
                JSONMember("store", .string(store.path)),
                JSONMember("bytesBefore", .integer(Int64(sizeBefore))),
                JSONMember("bytesAfter", .integer(Int64(sizeAfter))),
                JSONMember("objects", .integer(Int64(snapshot.objects))),
            ]))
        } else {
            let saved = sizeBefore > 0 ? (sizeBefore - sizeAfter) * 100 / sizeBefore : 0
            say("compacted \(store.path): \(byteCount(sizeBefore)) before, \(byteCount(sizeAfter)) after (\(saved)% smaller), \(snapshot.objects) objects")
        }
    }

    /// What the copy holds: the objects, and the last transaction of the store it copies.
    struct Snapshot {
        var objects: Int
        var transactionID: UInt64
    }

    /// Writes the compacted copy and checks it. The store is opened only here: it is closed
    /// (its claim released) when this returns, which the swap needs.
    private func copy(to paths: StoreFiles) throws -> Snapshot {
        paths.removeCopy()
        let db = try StoreArgument.open(store.path)
        let before = try withStoreErrors { try db.statistics() }
        do {
            try withStoreErrors { try db.copy(to: paths.copy, compacting: true) }
            let after = try withStoreErrors { try db.statistics() }
            guard after.lastTransactionID == before.lastTransactionID else {
                throw CommandFailure(.storeError, "another process wrote to the store during the copy; the store was left as it was (run compact again when it is not in use)")
            }
            let copied = try withStoreErrors {
                let copy = try Database(path: paths.copy)
                return (try copy.statistics(), try copy.checkStructure())
            }
            guard copied.1.isConsistent, copied.0.objectCount == before.objectCount else {
                throw CommandFailure(.storeError, "the compacted copy did not check out (\(copied.1.problemCount) problems, \(copied.0.objectCount) of \(before.objectCount) objects); the store was left as it was")
            }
            return Snapshot(objects: before.objectCount, transactionID: UInt64(before.lastTransactionID))
        } catch {
            paths.removeCopy()
            throw error
        }
    }

    /// Renames the copy's data file over the store's while holding every claim on the store
    /// (see ``StoreOpenCheck``), after checking that nothing wrote to the store since the copy.
    private func swap(_ paths: StoreFiles, expecting snapshot: Snapshot) throws {
        let exclusive = try StoreOpenCheck.excludeOpeners(paths.dataFile, path: store.path)
        defer { close(exclusive) }
        // Nobody has the store open now, and nobody can open it: the data file's last
        // transaction says whether a process opened, wrote and closed it since the copy (a
        // modification time could not: the kernel's clock for it is coarse).
        guard let last = DataFileMeta.lastTransactionID(exclusive), last == snapshot.transactionID else {
            throw CommandFailure(.storeError, "another process wrote to the store during the copy; the store was left as it was (run compact again when it is not in use)")
        }
        guard rename(paths.copyDataFile, paths.dataFile) == 0 else {
            throw CommandFailure(.storeError, "cannot replace \(paths.dataFile): \(String(cString: strerror(errno))); the store was left as it was")
        }
        let directory = open(paths.directory, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    static func size(of file: String) -> Int {
        var status = stat()
        return stat(file, &status) == 0 ? Int(status.st_size) : 0
    }
}

/// The files of a store being compacted: its data file, and where the copy goes (beside the
/// store, on the same file system, so that a rename can swap them).
struct StoreFiles {
    let dataFile: String
    /// The directory holding the data file (flushed after the swap).
    let directory: String
    /// What `Database.copy` is given: a directory for a directory store, a file otherwise.
    let copy: String
    let copyDataFile: String
    let singleFile: Bool

    init(_ path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { throw CommandFailure(.notFound, "no store at \(path): nothing is there (larder opens existing stores; it creates none)") }
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        singleFile = (status.st_mode & S_IFMT) != S_IFDIR
        copy = trimmed + ".compacting-\(getpid())"
        if singleFile {
            dataFile = trimmed
            copyDataFile = copy
            let slash = trimmed.lastIndex(of: "/")
            directory = slash.map { $0 == trimmed.startIndex ? "/" : String(trimmed[..<$0]) } ?? "."
        } else {
            dataFile = trimmed + "/data.mdb"
            copyDataFile = copy + "/data.mdb"
            directory = trimmed
        }
        guard stat(dataFile, &status) == 0 else { throw CommandFailure(.notFound, "no store at \(path): the directory holds no data.mdb") }
    }

    /// Removes the copy and the lock file its check made, if they are there.
    func removeCopy() {
        if singleFile {
            unlink(copy)
            unlink(copy + "-lock")
        } else {
            unlink(copy + "/data.mdb")
            unlink(copy + "/lock.mdb")
            rmdir(copy)
        }
    }
}

/// Whether other processes have a store open, read from the claims every process that opens a
/// store holds: a shared open-file-description lock on one byte of its data file, in the range
/// `[2^60, 2^60 + 2^40)` far past its end (the library's StoreClaim; the CLI tests of compact
/// check that the two agree).
enum StoreOpenCheck {
    private static let rangeStart: Int64 = 1 << 60
    private static let rangeLength: Int64 = 1 << 40
    #if os(Linux)
    private static let setCommand: Int32 = 37  // F_OFD_SETLK
    private static let getCommand: Int32 = 36  // F_OFD_GETLK
    #else
    private static let setCommand: Int32 = F_SETLK
    private static let getCommand: Int32 = F_GETLK
    #endif

    /// Fails when any process, this one included, has the store open.
    static func refuseIfOpen(_ dataFile: String, path: String) throws {
        let descriptor = try openData(dataFile)
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(rangeStart)
        lock.l_len = off_t(rangeLength)
        guard fcntl(descriptor, getCommand, &lock) == 0 else {
            throw CommandFailure(.storeError, "cannot tell whether another process has \(path) open: \(String(cString: strerror(errno)))")
        }
        if lock.l_type != Int16(F_UNLCK) { throw inUse(path) }
    }

    /// Takes an exclusive lock on the whole claim range, which fails when any process has the
    /// store open and, while held, makes every open of the store fail. Returns the descriptor
    /// that holds it (closing it releases the lock).
    static func excludeOpeners(_ dataFile: String, path: String) throws -> Int32 {
        let descriptor = try openData(dataFile, writable: true)
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(rangeStart)
        lock.l_len = off_t(rangeLength)
        guard fcntl(descriptor, setCommand, &lock) == 0 else {
            close(descriptor)
            throw inUse(path)
        }
        return descriptor
    }

    private static func openData(_ dataFile: String, writable: Bool = false) throws -> Int32 {
        let descriptor = open(dataFile, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC)
        guard descriptor >= 0 else { throw CommandFailure(.storeError, "cannot open \(dataFile): \(String(cString: strerror(errno)))") }
        return descriptor
    }

    private static func inUse(_ path: String) -> CommandFailure {
        CommandFailure(.storeError, "another process has \(path) open; compact rewrites the data file and needs the store to itself: close the other programs (larder readers lists those that are reading) and run it again")
    }
}

/// The last committed transaction of an LMDB data file, read from its two meta pages (the one
/// with the greater transaction id is current), for a file no process has open. LMDB 0.9's layout
/// on 64-bit little-endian machines: a meta page's header is 16 bytes; the page size sits in the
/// free database record's padding at byte 40 and the transaction id at byte 144 (mdb.c's
/// `MDB_meta`; the library's page verifier reads the same fields).
enum DataFileMeta {
    static func lastTransactionID(_ descriptor: Int32) -> UInt64? {
        func meta(at offset: Int) -> (magic: UInt32, pageSize: UInt32, transactionID: UInt64)? {
            var bytes = [UInt8](repeating: 0, count: 152)
            guard pread(descriptor, &bytes, bytes.count, off_t(offset)) == bytes.count else { return nil }
            func load<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T {
                bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: T.self)) }
            }
            guard load(16, UInt32.self) == 0xBEEF_C0DE else { return nil }
            return (load(16, UInt32.self), load(40, UInt32.self), load(144, UInt64.self))
        }
        guard let first = meta(at: 0), first.pageSize >= 512, first.pageSize <= 65_536 else { return nil }
        guard let second = meta(at: Int(first.pageSize)) else { return nil }
        return max(first.transactionID, second.transactionID)
    }
}
#endif
