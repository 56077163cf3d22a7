#if Extras
import ArgumentParser
import Foundation
import Larder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The store a subcommand works on: the first argument of every subcommand but `demo` and
/// `version`.
struct StoreArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The store: a directory holding data.mdb, or a single data file.", valueName: "store"))
    var path: String

    /// Opens the existing store at ``path``. Nothing is created: an empty path or a directory
    /// without `data.mdb` is reported as not found, a file that is not a store as bad input.
    /// Reading commands open it read-only (`Configuration.readOnly`), so they never write to the
    /// store, never wait for its writer, and work on read-only media.
    func open(readOnly: Bool = true) throws -> Database {
        try Self.open(path, readOnly: readOnly)
    }

    static func open(_ path: String, create: Bool = false, readOnly: Bool = false, verifying: Bool = true) throws -> Database {
        if !create { try requireExisting(path) }
        if verifying && FileManager.default.fileExists(atPath: path) { try DamagedStore.refuse(path) }
        var configuration = Database.Configuration()
        configuration.readOnly = readOnly && !create
        do {
            return try Database(path: path, configuration: configuration)
        } catch let error as LarderError {
            throw CommandFailure(error)
        }
    }

    /// Fails unless something is at `path` (and, for a directory, its `data.mdb`), telling a
    /// path that is not there from one the tool may not reach.
    private static func requireExisting(_ path: String) throws {
        func failure(_ subject: String) -> CommandFailure {
            switch errno {
            case EACCES:
                CommandFailure(.storeError, "cannot reach \(subject): permission denied (a directory on the way may not be searched)")
            case ENOTDIR:
                CommandFailure(.badInput, "no store at \(path): a component of the path is a file, not a directory")
            default:
                CommandFailure(.notFound, "no store at \(path): nothing is there (larder opens existing stores; it creates none)")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure(path) }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            var dataInfo = stat()
            guard stat(path + "/data.mdb", &dataInfo) == 0 else {
                if errno == ENOENT { throw CommandFailure(.notFound, "no store at \(path): the directory holds no data.mdb") }
                throw failure(path + "/data.mdb")
            }
        }
    }
}

/// Runs `body`, turning the Larder errors it throws into ``CommandFailure``s.
func withStoreErrors<R>(context: String? = nil, _ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let error as LarderError {
        throw CommandFailure(error, context: context)
    }
}
#endif
