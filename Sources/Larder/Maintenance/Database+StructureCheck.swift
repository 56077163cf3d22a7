#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The structure check: what ``Database/checkStructure()`` reads and what it counts as a problem.

extension Database {
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
            guard let pages = PageVerifier.verify(dataFile: environment.dataFile, transactionID: txn.lmdb.transactionID) else {
                throw LMDBResult.error(errno, operation: "checkStructure", path: environment.dataFile)
            }
            if pages.problemCount > 0 { return StructureReport(pages: pages) }
            var checker = StructureChecker(lmdb: txn.lmdb, pagesChecked: pages.pagesChecked)
            try checker.run()
            return checker.report
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
            guard let stored = try lmdb.get(lmdb.databases.larder, key: StoreFormat.versionKey) else {
                return note(.formatVersion, "the store has no format version")
            }
            guard stored.count == 4 else { return note(.formatVersion, "the format version is \(stored.count) bytes long, not 4") }
            let version = UInt32(bigEndian: stored.loadUnaligned(as: UInt32.self))
            if version == 0 || version > StoreFormat.current {
                note(.formatVersion, "the format version is \(version); this Larder knows 1 to \(StoreFormat.current)")
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
        if tag == ValueFraming.checksummedTag || tag == ValueFraming.versionTag {
            do {
                let unframed = try ValueFraming.unframe(value)
                payload = unframed.payload
                tag = unframed.format.rawValue
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

    /// Compares the collection counts with the objects counted.
    private mutating func checkCounts(_ counted: [[UInt8]: Int]) throws {
        var seen = Set<[UInt8]>()
        try lmdb.forEachCollectionCountRecord { stored, value in
            collections += 1
            let prefix = [UInt8](stored) + [0]
            let name = String(decoding: stored, as: UTF8.self)
            let index = YapDB.Index(collection: name, key: "")
            if stored.contains(0) {
                note(.countMismatch, "a collection count's key is not `collection ‖ 0x00` (or `0x00 ‖ collection` in the main database)")
            } else if value.count != 8 {
                note(.countMismatch, "the count of collection \"\(name)\" is \(value.count) bytes long, not 8", index)
            } else {
                seen.insert(prefix)
                let stored = Int(truncatingIfNeeded: UInt64(bigEndian: value.loadUnaligned(as: UInt64.self)))
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
