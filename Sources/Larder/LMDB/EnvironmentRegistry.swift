import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process-wide table of open environments, keyed by the data file's device and inode.
///
/// LMDB forbids two environments on one file in one process (their locks would corrupt each
/// other), so every `Database` on the same file shares one ``Environment``. Opening, sharing and
/// closing all happen under one lock, so a file is never open twice, not even for the moment
/// between one `Database` closing and another opening. Beside each environment it keeps the
/// layer above's ``EnvironmentCompanion``, made once when the environment opens.
enum EnvironmentRegistry {
    private struct Entry {
        let environment: Environment
        let companion: any EnvironmentCompanion
        var users: Int
    }

    private static let entries = Mutex<[FileIdentity: Entry]>([:])

    /// Returns the open environment for `path` and its companion, opening it if no `Database` of
    /// this process has, and creating the store first if there is none (unless the open is
    /// read-only). `makeCompanion` runs only when the environment opens, in its opening
    /// transaction; every later user shares what it made.
    static func acquire<Companion: EnvironmentCompanion>(
        path: String, options: EnvironmentOptions, makeCompanion: (LMDBTransaction) throws -> Companion
    ) throws -> (environment: Environment, companion: Companion) {
        let explicitlySingle = options.singleFile
        let location = try StoreLocation.resolve(path, singleFile: explicitlySingle)
        let dataExists = FileIdentity.exists(location.dataFile)
        let dataSize = FileIdentity.size(location.dataFile)
        var createdDirectory = false
        if !dataExists || dataSize == 0 {
            if dataExists && !(location.isSingleFile && explicitlySingle) {
                throw location.isSingleFile
                    ? LarderError(.notAStore, "the path is an empty file; set Configuration.singleFile to make it a store", operation: "open", path: path)
                    : LarderError(.corrupted, "the store's data file is empty (0 bytes): it holds nothing, not even the pages every store begins with; restore it from a backup, or remove it to start a new store", operation: "open", path: path)
            }
            if options.readOnly {
                throw LarderError(.notFound, "there is no store at the path, and a read-only open creates none", operation: "open", path: path)
            }
            createdDirectory = try StoreCreation.createIfMissing(location, replacingEmptyFile: explicitlySingle, options: options, path: path)
        }
        return try entries.withLock { entries in
            try acquire(path: path, location: location, options: options, createdDirectory: createdDirectory,
                        makeCompanion: makeCompanion, in: &entries)
        }
    }

    /// Shares the environment open on `location`, or opens it; under the lock.
    private static func acquire<Companion: EnvironmentCompanion>(
        path: String, location: StoreLocation, options: EnvironmentOptions, createdDirectory: Bool,
        makeCompanion: (LMDBTransaction) throws -> Companion, in entries: inout [FileIdentity: Entry]
    ) throws -> (environment: Environment, companion: Companion) {
        if let identity = FileIdentity(path: location.dataFile), var entry = entries[identity] {
            guard let companion = entry.companion as? Companion else {
                preconditionFailure("Larder: an environment was shared with a companion of another type")
            }
            if entry.environment.isReadOnly && !options.readOnly {
                throw LarderError(
                    .invalidConfiguration,
                    "this process has the store open read-only; close those databases before opening it for writing",
                    operation: "open", path: path)
            }
            entry.users += 1
            entries[identity] = entry
            return (entry.environment, companion)
        }
        let environment: Environment
        var made: Companion?
        do {
            environment = try Environment.open(path: path, location: location, options: options) { txn in
                made = try makeCompanion(txn)
            }
        } catch {
            if createdDirectory {
                unlink(location.dataFile)
                unlink(location.lockFile)
                rmdir(location.lmdbPath)
            }
            throw error
        }
        guard let companion = made else {
            preconditionFailure("Larder: an environment opened without running its opening hook")
        }
        entries[environment.identity] = Entry(environment: environment, companion: companion, users: 1)
        return (environment, companion)
    }

    /// Gives back one use of `environment`; the last one closes it.
    static func release(_ environment: Environment) {
        entries.withLock { entries in
            release(environment, in: &entries)
        }
    }

    private static func release(_ environment: Environment, in entries: inout [FileIdentity: Entry]) {
        guard var entry = entries[environment.identity] else { return }
        entry.users -= 1
        if entry.users > 0 {
            entries[environment.identity] = entry
        } else {
            entries[environment.identity] = nil
            entry.companion.environmentWillClose()
            environment.closeHandle()
        }
    }

    /// Runs `body` under the registry's lock with the environment this process has open on
    /// `location`, or `nil`; no `Database` of the process opens or closes the store meanwhile.
    static func withOpenEnvironment<R>(of location: StoreLocation, _ body: (Environment?) throws -> R) throws -> R {
        try entries.withLock { entries in
            try body(FileIdentity(path: location.dataFile).flatMap { entries[$0]?.environment })
        }
    }

    /// The number of environments open in this process (for tests).
    static var openCount: Int { entries.withLock { $0.count } }

    /// How many `Database`s of this process have the store at `path` open (for tests and tools).
    static func openCount(path: String) -> Int {
        guard let location = try? StoreLocation.resolve(path, singleFile: false),
              let identity = FileIdentity(path: location.dataFile) else { return 0 }
        return entries.withLock { $0[identity]?.users ?? 0 }
    }
}
