#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Maintenance: what tools (the `larder` command, a health check, a backup job) need to look at a
// store from outside: its statistics, the extensions recorded in it, a structural check, and a
// compacting copy taken while writers run.

/// Figures about a store as a whole, read in one transaction by ``Database/statistics()``.
public struct StoreStatistics: Sendable, Hashable {
    /// The store format version recorded in the store.
    public let formatVersion: UInt32
    /// The size of the memory map this process uses now, in bytes. It is an upper bound the map
    /// grows past by itself, not the size of the file.
    public let mapSize: Int
    /// The bytes of the map in use: the pages up to the last one written, free pages included.
    public let usedBytes: Int
    /// The size of the data file on the disk, in bytes (`nil` if it cannot be read).
    public let fileSize: Int?
    /// LMDB's page size, in bytes.
    public let pageSize: Int
    /// The longest `collection ‖ 0x00 ‖ key` the store accepts, in bytes.
    public let maxKeySize: Int
    /// The number of reader slots the environment has (``Database/Configuration/maxReaders`` of
    /// the first process that opened it).
    public let maxReaders: Int
    /// The number of objects, in every collection.
    public let objectCount: Int
    /// The number of metadata values.
    public let metadataCount: Int
    /// The number of collections that hold at least one object.
    public let collectionCount: Int
    /// The number of commits the change log holds now.
    public let changeLogEntries: Int
    /// The number of the last commit (0 before the first).
    public let lastCommit: UInt64
    /// LMDB's id of the last transaction committed, by any process (it counts commits that
    /// change nothing Larder numbers, such as extension registrations, too).
    public let lastTransactionID: Int
    /// Whether the store is one data file (``Database/Configuration/singleFile``) rather than a
    /// directory.
    public let isSingleFile: Bool
    /// The path of the data file.
    public let dataFile: String
}

/// An extension as the store records it: what ``Database/recordedExtensions()`` lists.
///
/// The record is written by registration in any process; it outlives the process, so tools can
/// list the extensions of a store without registering them (which they cannot do: an extension's
/// closures live in the program that defines it).
public struct RecordedExtension: Sendable, Hashable {
    /// The name it was registered under.
    public let name: String
    /// Its kind: `view`, `filteredView`, `secondaryIndex`, `relationships`, or the kind name of
    /// a newer extension.
    public let kind: String
    /// The version tag it was last built with.
    public let versionTag: String
    /// The collections it reads, `nil` for every collection.
    public let collections: [String]?
    /// The extensions it is built from (a filtered view's view).
    public let dependencies: [String]
    /// Whether a write made without it registered (or a rebuilt dependency) left it out of date:
    /// the next registration rebuilds it, whatever its tag.
    public let isStale: Bool
    /// Whether this process has it registered (``Database/registeredExtensions``).
    public let isRegisteredInThisProcess: Bool
}

/// One thing ``Database/checkStructure()`` found wrong with a store.
public struct StructureProblem: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is, as a stable identifier (a struct, so new kinds never break a
    /// `switch`).
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The identifier, such as `"countMismatch"`.
        public let rawValue: String
        /// The kind with identifier `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The identifier.
        public var description: String { rawValue }

        /// A key of `objects` or `metadata` is not `collection ‖ 0x00 ‖ key` with a non-empty,
        /// UTF-8 key and collection.
        public static let badKey = Kind(rawValue: "badKey")
        /// A stored value is empty: it has no format byte.
        public static let emptyValue = Kind(rawValue: "emptyValue")
        /// A stored value's format byte is one Larder reserves but does not define
        /// (`0x00`, `0x04`–`0x3F`).
        public static let unknownFormat = Kind(rawValue: "unknownFormat")
        /// A MessagePack value is not exactly one well-formed value, or a JSON value is not UTF-8.
        public static let malformedValue = Kind(rawValue: "malformedValue")
        /// The count the `collections` database keeps for a collection differs from the number
        /// of its objects, or an entry there is malformed.
        public static let countMismatch = Kind(rawValue: "countMismatch")
        /// A metadata value has no object beside it.
        public static let orphanMetadata = Kind(rawValue: "orphanMetadata")
        /// The change log does not end at the last commit, has a gap, or holds an entry that does
        /// not decode.
        public static let changeLog = Kind(rawValue: "changeLog")
        /// The format version is missing or malformed.
        public static let formatVersion = Kind(rawValue: "formatVersion")
        /// An extension's record does not decode.
        public static let extensionRecord = Kind(rawValue: "extensionRecord")
        /// The undo history does not decode.
        public static let undoHistory = Kind(rawValue: "undoHistory")
        /// A page of the data file is damaged: a page number out of range or reached twice,
        /// wrong flags, node offsets or sizes outside the page, keys out of order, or a tree whose
        /// depth or counts differ from its record; or the file is shorter than its pages. LMDB's
        /// cursors are not run over a store with such a problem.
        public static let page = Kind(rawValue: "page")
        /// One or both meta pages (the two pages at the start of the data file that name the last
        /// commit) are damaged. LMDB refuses to open a store with a damaged meta page even when
        /// the other one is intact; the detail says which one is damaged.
        public static let metaPage = Kind(rawValue: "metaPage")
        /// A checksummed value (``Database/Configuration/checksumsValues``) does not match its
        /// checksum: its bytes were damaged after they were written. Reading it throws
        /// ``LarderError/Code/corrupted``.
        public static let checksumMismatch = Kind(rawValue: "checksumMismatch")
    }

    /// What kind of problem it is.
    public let kind: Kind
    /// What is wrong, in words.
    public let detail: String
    /// The collection and key involved, when there is one.
    public let index: YapDB.Index?

    /// The kind, the detail and the index, on one line.
    public var description: String {
        guard let index else { return "\(kind): \(detail)" }
        return "\(kind): \(detail) [collection: \(index.collection), key: \(index.key)]"
    }
}

/// What ``Database/checkStructure()`` checked and found.
public struct StructureReport: Sendable, Hashable {
    /// The problems found, at most ``StructureReport/problemLimit`` of them.
    public let problems: [StructureProblem]
    /// How many problems there are in all (more than ``problems`` holds when it hit the limit).
    public let problemCount: Int
    /// The objects checked.
    public let objectsChecked: Int
    /// The metadata values checked.
    public let metadataChecked: Int
    /// The collections whose counts were checked.
    public let collectionsChecked: Int
    /// The change log entries checked.
    public let changeLogEntriesChecked: Int
    /// The extension records checked (their state is checked by ``Database/verifyExtensions()``,
    /// which needs them registered).
    public let extensionRecordsChecked: Int
    /// The pages of the data file verified before anything else was read (meta and overflow
    /// pages included).
    public let pagesChecked: Int

    /// Whether the check found nothing wrong.
    public var isConsistent: Bool { problemCount == 0 }

    /// The most problems a report lists.
    public static let problemLimit = 1000
}

extension Database {
    // MARK: Statistics

    /// Figures about the store: format version, map size and use, page size, entries, the last
    /// commit, all read in one read transaction.
    ///
    /// ```swift
    /// let stats = try db.statistics()
    /// print("\(stats.objectCount) objects in \(stats.collectionCount) collections, \(stats.usedBytes) bytes used")
    /// ```
    /// - Complexity: O(1).
    /// - Throws: ``LarderError`` when the read transaction cannot begin, or
    ///   ``LarderError/Code/corruptValue`` when the recorded format version or last commit is
    ///   malformed.
    public func statistics() throws -> StoreStatistics {
        try read { txn in
            let lmdb = txn.lmdb
            let usage = environment.mapUsage()
            guard let stored = try lmdb.get(lmdb.databases.larder, key: Environment.formatVersionKey), stored.count == 4 else {
                throw LarderError(.corruptValue, "the store's format version is missing or malformed", operation: "statistics", path: path)
            }
            var fileStatus = stat()
            let fileSize = stat(environment.dataFile, &fileStatus) == 0 ? Int(fileStatus.st_size) : nil
            return StoreStatistics(
                formatVersion: UInt32(bigEndian: stored.loadUnaligned(as: UInt32.self)),
                mapSize: usage.mapSize, usedBytes: usage.used, fileSize: fileSize, pageSize: usage.pageSize,
                maxKeySize: environment.maxKeySize, maxReaders: environment.maxReaders,
                objectCount: try lmdb.count(lmdb.databases.objects),
                metadataCount: try lmdb.count(lmdb.databases.metadata),
                collectionCount: try lmdb.count(lmdb.databases.collections),
                changeLogEntries: try lmdb.count(lmdb.databases.log),
                lastCommit: try ChangeLog.lastCommit(lmdb),
                lastTransactionID: lmdb.id,
                isSingleFile: environment.isSingleFile,
                dataFile: environment.dataFile)
        }
    }

    // MARK: Recorded extensions

    /// The extensions recorded in the store, by any process, sorted by name: their kinds, tags,
    /// collections and whether they are stale. Unlike ``registeredExtensions`` it lists
    /// extensions that this process has not registered.
    /// - Throws: ``LarderError/Code/corruptValue`` when a record does not decode.
    public func recordedExtensions() throws -> [RecordedExtension] {
        let registered = Set(registeredExtensions)
        return try read { txn in
            try ExtensionRecord.all(in: txn.lmdb).map { name, record in
                RecordedExtension(
                    name: name, kind: record.kind, versionTag: record.versionTag, collections: record.collections,
                    dependencies: record.dependencies ?? [], isStale: record.stale, isRegisteredInThisProcess: registered.contains(name))
            }
            .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        }
    }

    // MARK: Structure

    /// Checks the structure of the store in one read transaction, without changing it. It first
    /// verifies the pages of the data file as ``Database/verifyPages(path:)`` does (for the
    /// snapshot of its read transaction); when they are damaged, the report lists the page
    /// problems and nothing else is read, since LMDB's cursors cannot walk damaged pages safely.
    /// Then it checks that every object and metadata key is `collection ‖ 0x00 ‖ key`; every
    /// value has a known format byte and every MessagePack value is one well-formed value; the
    /// count of each collection matches its objects; no metadata is without an object; the change
    /// log ends at the last commit, without gaps, and each entry decodes; the format version, the
    /// extension records and the undo history decode.
    ///
    /// It does not look at the extensions' own state: ``verifyExtensions()`` recomputes that,
    /// for the extensions registered in this process.
    ///
    /// ```swift
    /// let report = try db.checkStructure()
    /// for problem in report.problems { print(problem) }
    /// ```
    /// - Complexity: O(n) for the n objects and metadata values: it reads every one, and every
    ///   page in use.
    /// - Throws: ``LarderError`` when LMDB fails to read the store (a damaged page is reported as
    ///   ``LarderError/Code/corrupted``). Damage in what is read is a problem in the report, not an
    ///   error.
    public func checkStructure() throws -> StructureReport {
        try read { txn in
            // The pages first, read with pread: LMDB's cursors assert or read past the end of
            // the file on a damaged page. The read transaction pins the pages of its snapshot.
            guard let pages = PageVerifier.verify(dataFile: environment.dataFile, transactionID: UInt64(txn.lmdb.id)) else {
                throw LMDBResult.error(errno, operation: "checkStructure", path: environment.dataFile)
            }
            if pages.problemCount > 0 { return StructureReport(pages: pages) }
            var checker = StructureChecker(lmdb: txn.lmdb, pagesChecked: pages.pagesChecked)
            try checker.run()
            return checker.report
        }
    }

    // MARK: Copying

    /// Writes a copy of the store to `destination`, while other threads and processes go on
    /// reading and writing: the copy is the store as of one read transaction. With `compacting`
    /// (the default) free pages are left out and the pages renumbered, so the copy is as small as
    /// its data; without it the file is copied page by page.
    ///
    /// For a store in a directory, `destination` is a directory (created, with the permissions of
    /// the store's, if missing) that gets `data.mdb`; for a single-file store it is the new data
    /// file. The data file is written under a temporary name, flushed to the disk and then given
    /// its name, so a copy that fails or is cut short leaves no `data.mdb` behind. The copy has
    /// the permissions of the store's data file.
    ///
    /// Open the copy with ``Database/init(path:configuration:)`` to use it, and check it with
    /// ``checkStructure()``.
    ///
    /// ```swift
    /// try db.copy(to: "/backups/shop-2024-05-01")
    /// let copy = try Database(path: "/backups/shop-2024-05-01")
    /// precondition(try copy.checkStructure().isConsistent)
    /// ```
    /// - Complexity: O(size of the data): it reads every page in use.
    /// - Throws: ``LarderError`` with code
    ///   - ``LarderError/Code/invalidConfiguration`` when `destination` already holds a data
    ///     file (the copy never overwrites one), is a file for a directory store, or is the store
    ///     itself;
    ///   - ``LarderError/Code/permissionDenied``, ``LarderError/Code/diskFull`` or
    ///     ``LarderError/Code/io`` when the copy cannot be written;
    ///   - ``LarderError/Code/lmdb`` for other failures of LMDB.
    ///   Nothing is left at `destination` after a failure (a directory the call created is removed).
    public func copy(to destination: String, compacting: Bool = true) throws {
        let singleFile = environment.isSingleFile
        var createdDirectory = false
        let target: String
        if singleFile {
            target = destination
        } else {
            if !FileIdentity.exists(destination) {
                var sourceStatus = stat()
                let mode = stat(environment.path, &sourceStatus) == 0 ? mode_t(sourceStatus.st_mode & 0o7777) : 0o700
                guard mkdir(destination, mode) == 0 else { throw LMDBResult.error(errno, operation: "copy", path: destination) }
                createdDirectory = true
                chmod(destination, mode)  // mkdir's mode passes through the umask
            } else if !FileIdentity.isDirectory(destination) {
                throw LarderError(.invalidConfiguration, "the destination of a copy of a directory store must be a directory (or not exist)", operation: "copy", path: destination)
            }
            target = destination + "/data.mdb"
        }
        do {
            try writeCopy(to: target, compacting: compacting)
        } catch {
            if createdDirectory { rmdir(destination) }
            throw error
        }
    }

    /// Writes the data file of a copy to `target`, under a temporary name first.
    private func writeCopy(to target: String, compacting: Bool) throws {
        if FileIdentity.exists(target) {
            throw LarderError(.invalidConfiguration, "the destination already holds a data file; a copy never overwrites one (remove it first)", operation: "copy", path: target)
        }
        var sourceStatus = stat()
        let mode = stat(environment.dataFile, &sourceStatus) == 0 ? mode_t(sourceStatus.st_mode & 0o777) : 0o600
        let partial = target + ".partial-\(getpid())"
        let fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw LMDBResult.error(errno, operation: "copy", path: partial) }
        // The finished copy gets its name by link(), so the temporary name always goes.
        defer { unlink(partial) }
        do {
            defer { close(fd) }
            fchmod(fd, mode)  // open's mode passes through the umask
            try environment.copy(to: fd, compacting: compacting)
            guard fsync(fd) == 0 else { throw LMDBResult.error(errno, operation: "copy", path: partial) }
        }
        // link() refuses to replace a file that appeared meanwhile; rename() would not.
        guard link(partial, target) == 0 else {
            let code = errno
            if code == EEXIST {
                throw LarderError(.invalidConfiguration, "the destination already holds a data file; a copy never overwrites one (remove it first)", operation: "copy", path: target)
            }
            throw LMDBResult.error(code, operation: "copy", path: target)
        }
        let directory = target.lastIndex(of: "/").map { String(target[..<$0]) } ?? "."
        let directoryFD = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }

}

/// The walk behind ``Database/checkStructure()``.
private struct StructureChecker {
    let lmdb: LMDBTransaction
    private(set) var problems: [StructureProblem] = []
    private(set) var problemCount = 0
    private var objects = 0
    private var metadata = 0
    private var collections = 0
    private var logEntries = 0
    private var extensionRecords = 0
    private let pagesChecked: Int

    init(lmdb: LMDBTransaction, pagesChecked: Int) {
        self.lmdb = lmdb
        self.pagesChecked = pagesChecked
    }

    var report: StructureReport {
        StructureReport(
            problems: problems, problemCount: problemCount, objectsChecked: objects, metadataChecked: metadata,
            collectionsChecked: collections, changeLogEntriesChecked: logEntries, extensionRecordsChecked: extensionRecords,
            pagesChecked: pagesChecked)
    }

    private mutating func note(_ kind: StructureProblem.Kind, _ detail: String, _ index: YapDB.Index? = nil) {
        problemCount += 1
        if problems.count < StructureReport.problemLimit {
            problems.append(StructureProblem(kind: kind, detail: detail, index: index))
        }
    }

    mutating func run() throws {
        checkFormatVersion()
        // Damage the page check cannot see (a size that runs past the file, a key out of place)
        // stops a walk with `corrupted`: it is a finding of the check, not a failure of it, and
        // the other walks still run.
        var counted: [[UInt8]: Int]?
        try noteDamage(in: "objects") { checker in counted = try checker.checkObjects() }
        if let counted { try noteDamage(in: "collections") { checker in try checker.checkCounts(counted) } }
        try noteDamage(in: "metadata") { checker in try checker.checkMetadata() }
        try noteDamage(in: "log") { checker in try checker.checkChangeLog() }
        try noteDamage(in: "larder") { checker in try checker.checkExtensionRecords() }
        checkUndoHistory()
    }

    /// Runs one walk; a `corrupted` error it throws becomes a ``StructureProblem/Kind/page``
    /// problem, any other error is thrown.
    private mutating func noteDamage(in database: String, _ walk: (inout StructureChecker) throws -> Void) throws {
        do {
            try walk(&self)
        } catch let error as LarderError where error.code == .corrupted {
            note(.page, "the walk of database \"\(database)\" stopped at damage: \(error.message)", error.index)
        }
    }

    private mutating func checkFormatVersion() {
        do {
            guard let stored = try lmdb.get(lmdb.databases.larder, key: Environment.formatVersionKey) else {
                return note(.formatVersion, "the store has no format version")
            }
            guard stored.count == 4 else { return note(.formatVersion, "the format version is \(stored.count) bytes long, not 4") }
            let version = UInt32(bigEndian: stored.loadUnaligned(as: UInt32.self))
            if version == 0 || version > Environment.formatVersion {
                note(.formatVersion, "the format version is \(version); this Larder knows 1 to \(Environment.formatVersion)")
            }
        } catch {
            note(.formatVersion, "the format version cannot be read: \(error)")
        }
    }

    /// Splits a storage key, noting what is wrong with it; `nil` when it is not a valid index.
    private mutating func index(of key: UnsafeRawBufferPointer, in database: String) -> YapDB.Index? {
        guard let separator = key.firstIndex(of: 0) else {
            note(.badKey, "a key of \(database) has no 0x00 between collection and key")
            return nil
        }
        guard let collection = String(validating: UnsafeRawBufferPointer(rebasing: key[..<separator]), as: UTF8.self),
              let name = String(validating: UnsafeRawBufferPointer(rebasing: key[(separator + 1)...]), as: UTF8.self) else {
            note(.badKey, "a key of \(database) is not UTF-8")
            return nil
        }
        let index = YapDB.Index(collection: collection, key: name)
        if name.isEmpty { note(.badKey, "a key of \(database) is empty", index) }
        return index
    }

    /// Checks one stored value's framing (and checksum, when it has one) and, for MessagePack and
    /// JSON, its payload.
    private mutating func checkValue(_ value: UnsafeRawBufferPointer, what: String, at index: YapDB.Index?) {
        guard var tag = value.first else { return note(.emptyValue, "the \(what) is empty (it has no format byte)", index) }
        var payload = UnsafeRawBufferPointer(rebasing: value[1...])
        if tag == ValueFraming.checksummedTag {
            do {
                (payload, _) = try ValueFraming.unframe(value)
                tag = value[ValueFraming.checksumHeaderSize]
            } catch {
                return note(error.code == .corrupted ? .checksumMismatch : .malformedValue, "the \(what): \(error.message)", index)
            }
        }
        if let (kind, detail) = StoredValueCheck.problem(tag: tag, payload: payload, what: what) {
            note(kind, detail, index)
        }
    }

    /// Checks every object; returns the number of objects of each collection.
    private mutating func checkObjects() throws -> [[UInt8]: Int] {
        var counted: [[UInt8]: Int] = [:]
        try lmdb.forEachEntry(in: lmdb.databases.objects) { key, value in
            objects += 1
            let index = index(of: key, in: "objects")
            if let separator = key.firstIndex(of: 0) {
                counted[[UInt8](key[...separator]), default: 0] += 1
            }
            checkValue(value, what: "object", at: index)
            return true
        }
        return counted
    }

    /// Compares the `collections` database with the objects counted.
    private mutating func checkCounts(_ counted: [[UInt8]: Int]) throws {
        var seen = Set<[UInt8]>()
        try lmdb.forEachEntry(in: lmdb.databases.collections) { key, value in
            collections += 1
            let prefix = [UInt8](key)
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: key.dropLast()), as: UTF8.self)
            let index = YapDB.Index(collection: name, key: "")
            if key.last != 0 || key.dropLast().contains(0) {
                note(.countMismatch, "an entry of the collections database is not `collection ‖ 0x00`")
            } else if value.count != 8 {
                note(.countMismatch, "the count of collection \"\(name)\" is \(value.count) bytes long, not 8", index)
            } else {
                seen.insert(prefix)
                let stored = Int(UInt64(bigEndian: value.loadUnaligned(as: UInt64.self)))
                let actual = counted[prefix] ?? 0
                if stored != actual { note(.countMismatch, "collection \"\(name)\" records \(stored) keys but has \(actual) objects", index) }
            }
            return true
        }
        for (prefix, actual) in counted where !seen.contains(prefix) {
            let name = String(decoding: prefix.dropLast(), as: UTF8.self)
            note(.countMismatch, "collection \"\(name)\" has \(actual) objects but no recorded count", YapDB.Index(collection: name, key: ""))
        }
    }

    private mutating func checkMetadata() throws {
        let objectsDatabase = lmdb.databases.objects
        try lmdb.forEachEntry(in: lmdb.databases.metadata) { key, value in
            metadata += 1
            let index = index(of: key, in: "metadata")
            if try lmdb.get(objectsDatabase, key: key) == nil {
                note(.orphanMetadata, "a metadata value has no object beside it", index)
            }
            checkValue(value, what: "metadata value", at: index)
            return true
        }
    }

    private mutating func checkChangeLog() throws {
        let lastCommit: UInt64
        do {
            lastCommit = try ChangeLog.lastCommit(lmdb)
        } catch {
            return note(.changeLog, "the last commit number cannot be read: \(error.message)")
        }
        var previous: UInt64?
        var newest: UInt64?
        var undecodable: [UInt64] = []
        try lmdb.forEachEntry(in: lmdb.databases.log) { key, value in
            logEntries += 1
            guard key.count == 8 else {
                note(.changeLog, "a change log key is \(key.count) bytes long, not 8")
                return true
            }
            let number = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
            if let previous, number != previous + 1 {
                note(.changeLog, "the change log skips from commit \(previous) to \(number)")
            }
            do {
                _ = try Changeset(logBytes: value)
            } catch {
                undecodable.append(number)
            }
            previous = number
            newest = number
            return true
        }
        for number in undecodable.prefix(10) { note(.changeLog, "the change log entry of commit \(number) does not decode") }
        if undecodable.count > 10 { note(.changeLog, "\(undecodable.count - 10) more change log entries do not decode") }
        if let newest, newest != lastCommit {
            note(.changeLog, "the change log ends at commit \(newest) but the last commit is \(lastCommit)")
        } else if newest == nil, lastCommit > 0 {
            note(.changeLog, "the last commit is \(lastCommit) but the change log is empty")
        }
    }

    private mutating func checkExtensionRecords() throws {
        for name in try ExtensionRecord.names(in: lmdb) {
            extensionRecords += 1
            do {
                _ = try ExtensionRecord.read(name, in: lmdb)
            } catch {
                note(.extensionRecord, "the record of extension \(name) does not decode")
            }
        }
    }

    private mutating func checkUndoHistory() {
        do {
            _ = try UndoStack.history(in: lmdb)
        } catch {
            note(.undoHistory, "the undo history does not decode: \((error as? LarderError)?.message ?? String(describing: error))")
        }
    }
}
