#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process-wide table of open environments, keyed by the data file's device and inode.
///
/// LMDB forbids two environments on one file in one process (their locks would corrupt each
/// other), so every `Database` on the same file shares one ``Environment``. Opening, sharing and
/// closing all happen under one lock, so a file is never open twice, not even for the moment
/// between one `Database` closing and another opening.
enum EnvironmentRegistry {
    private struct Entry {
        let environment: Environment
        var users: Int
    }

    private static let lock = ConditionLock()
    nonisolated(unsafe) private static var entries: [FileIdentity: Entry] = [:]  // guarded by `lock`

    /// Returns the open environment for `path`, opening it if no `Database` of this process has.
    static func acquire(path: String, configuration: Database.Configuration) throws -> Environment {
        let existingFile = FileIdentity.isRegularFile(path)
        if existingFile && !configuration.singleFile && FileIdentity.size(path) == 0 {
            // LMDB would turn an empty file into a store; only do that when asked to.
            throw LarderError(.notAStore, "the path is an empty file; set Configuration.singleFile to make it a store", operation: "open", path: path)
        }
        let singleFile = configuration.singleFile || existingFile
        let createdDirectory = singleFile ? false : try makeDirectory(path, configuration: configuration)
        let layout = FileLayout(path: path, singleFile: singleFile)
        lock.lock()
        defer { lock.unlock() }
        if let identity = FileIdentity(path: layout.dataFile), var entry = entries[identity] {
            entry.users += 1
            entries[identity] = entry
            return entry.environment
        }
        let environment: Environment
        do {
            environment = try Environment.open(path: path, layout: layout, configuration: configuration)
        } catch {
            if createdDirectory { rmdir(path) }
            throw error
        }
        entries[environment.identity] = Entry(environment: environment, users: 1)
        return environment
    }

    /// Gives back one use of `environment`; the last one closes it.
    static func release(_ environment: Environment) {
        lock.lock()
        defer { lock.unlock() }
        guard var entry = entries[environment.identity] else { return }
        entry.users -= 1
        if entry.users > 0 {
            entries[environment.identity] = entry
        } else {
            entries[environment.identity] = nil
            environment.closeHandle()
        }
    }

    /// The number of environments open in this process (for tests).
    static var openCount: Int { lock.withLock { entries.count } }

    /// How many `Database`s of this process have the store at `path` open (for tests and tools).
    static func openCount(path: String) -> Int {
        let layout = FileLayout(path: path, singleFile: FileIdentity.isRegularFile(path))
        guard let identity = FileIdentity(path: layout.dataFile) else { return 0 }
        return lock.withLock { entries[identity]?.users ?? 0 }
    }

    /// Creates the store directory if missing; returns whether it did.
    private static func makeDirectory(_ path: String, configuration: Database.Configuration) throws -> Bool {
        if FileIdentity.isDirectory(path) { return false }
        // Directories need the search bit wherever the files are readable.
        let fileMode = configuration.fileMode
        let mode = mode_t(fileMode | ((fileMode & 0o444) >> 2))
        if mkdir(path, mode) != 0 {
            let code = errno
            if code == EEXIST { return false }
            throw LMDBResult.error(code, operation: "open", path: path)
        }
        return true
    }
}
