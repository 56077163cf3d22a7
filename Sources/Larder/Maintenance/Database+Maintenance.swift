#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Maintenance: what tools (the `larder` command, a health check, a backup job) need to look at a
// store from outside: its statistics, the extensions recorded in it, a structural check (in
// Database+StructureCheck.swift), and a compacting copy taken while writers run.

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
            guard let stored = try lmdb.get(lmdb.databases.larder, key: StoreFormat.versionKey), stored.count == 4 else {
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
                collectionCount: try txn.numberOfCollections(),
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
        let registered = Set(names: registeredExtensions)
        return try read { txn in
            try ExtensionRecord.all(in: txn.lmdb).sorted { $0.key < $1.key }.map { name, record in
                RecordedExtension(
                    name: name.string, kind: record.kind, versionTag: record.versionTag, collections: record.collections,
                    dependencies: record.dependencies ?? [], isStale: record.stale, isRegisteredInThisProcess: registered.contains(name))
            }
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
            defer { closeDescriptor(fd) }
            fchmod(fd, mode)  // open's mode passes through the umask
            try whileOpen("copy") { try environment.copy(to: fd, compacting: compacting) }
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
            closeDescriptor(directoryFD)
        }
    }
}

/// `close(2)`, by a name that ``Database/close()-1m8tz`` does not shadow inside `Database`'s extensions.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
