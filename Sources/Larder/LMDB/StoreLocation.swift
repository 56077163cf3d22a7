#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a store's files are, whatever spelling of the path reached them.
///
/// LMDB names its lock file after the path it is given (`dir/lock.mdb`, or `file-lock`), so two
/// spellings of one store — a trailing slash, a symlink, `..` detours, a directory store's
/// `data.mdb` — must come down to one path, or two processes would take two lock files and write
/// the same data file without excluding each other. A location is therefore resolved with
/// `realpath`, and a path whose last component is `data.mdb` names the directory store around it.
/// Hard links have no one true name; ``StoreClaim`` catches two lock files in use on one data
/// file instead.
struct StoreLocation: Sendable, Equatable {
    /// Whether the store is one data file with a `-lock` file beside it, rather than a directory.
    let isSingleFile: Bool
    /// What LMDB opens: the canonical directory, or the canonical data file.
    let lmdbPath: String
    /// The canonical path of the data file.
    let dataFile: String
    /// The canonical path of LMDB's lock file.
    var lockFile: String { isSingleFile ? lmdbPath + "-lock" : lmdbPath + "/lock.mdb" }
    /// The directory that holds the data file (where a new store is built and moved into place).
    var directory: String { isSingleFile ? StoreLocation.parent(of: lmdbPath) : lmdbPath }
    /// The name of the data file inside ``directory``.
    var dataFileName: String { isSingleFile ? StoreLocation.lastComponent(of: lmdbPath) : "data.mdb" }

    /// The name of a directory store's data file; a path ending in it names that directory store.
    static let directoryDataFileName = "data.mdb"

    /// Resolves `path`; `singleFile` says how to make a store where nothing is yet.
    ///
    /// - Throws: ``LarderError`` with `notAStore` (something that cannot hold a store is there),
    ///   `permissionDenied` (a directory on the way cannot be searched), `invalidConfiguration`
    ///   (a single-file store named `data.mdb`, or an empty path).
    static func resolve(_ path: String, singleFile: Bool) throws(LarderError) -> StoreLocation {
        guard !path.isEmpty else {
            throw LarderError(.invalidConfiguration, "the store path is empty", operation: "open", path: path)
        }
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                let directory = try canonical(path)
                return StoreLocation(isSingleFile: false, lmdbPath: directory, dataFile: directory + "/data.mdb")
            case S_IFREG:
                let file = try canonical(path)
                if lastComponent(of: file) == directoryDataFileName {
                    // A directory store's data file: open the store it belongs to, with its lock.
                    let directory = parent(of: file)
                    return StoreLocation(isSingleFile: false, lmdbPath: directory, dataFile: file)
                }
                return StoreLocation(isSingleFile: true, lmdbPath: file, dataFile: file)
            default:
                throw LarderError(.notAStore, "the path is neither a directory nor a regular file", operation: "open", path: path)
            }
        }
        let code = errno
        switch code {
        case ENOENT:
            break
        case EACCES:
            throw LarderError(.permissionDenied, "a directory on the path cannot be searched: permission denied", operation: "open", path: path, lmdbCode: code)
        case ENOTDIR:
            throw LarderError(.notAStore, "a component of the path is a file, not a directory", operation: "open", path: path, lmdbCode: code)
        default:
            throw LMDBResult.error(code, operation: "open", path: path)
        }
        var linkInfo = stat()
        if lstat(path, &linkInfo) == 0 {
            throw LarderError(.notAStore, "the path is a symbolic link to nothing", operation: "open", path: path)
        }
        // Nothing there yet: the parent must exist; the store is made under its canonical path.
        let trimmed = trimmingTrailingSlashes(path)
        let name = lastComponent(of: trimmed)
        guard name != "." && name != ".." && !name.isEmpty else {
            throw LarderError(.notAStore, "the path names no file or directory", operation: "open", path: path)
        }
        let parentPath = parent(of: trimmed)
        var parentInfo = stat()
        guard stat(parentPath, &parentInfo) == 0 else {
            let parentCode = errno
            if parentCode == EACCES {
                throw LarderError(.permissionDenied, "a directory on the path cannot be searched: permission denied", operation: "open", path: path, lmdbCode: parentCode)
            }
            throw LarderError(.notAStore, "the directory that would hold the store does not exist", operation: "open", path: path, lmdbCode: parentCode)
        }
        guard (parentInfo.st_mode & S_IFMT) == S_IFDIR else {
            throw LarderError(.notAStore, "a component of the path is a file, not a directory", operation: "open", path: path)
        }
        let parentDirectory = try canonical(parentPath)
        if name == directoryDataFileName {
            if singleFile {
                throw LarderError(
                    .invalidConfiguration,
                    "data.mdb is the name of a directory store's data file; give a single-file store another name",
                    operation: "open", path: path)
            }
            return StoreLocation(isSingleFile: false, lmdbPath: parentDirectory, dataFile: parentDirectory + "/data.mdb")
        }
        let full = parentDirectory == "/" ? "/" + name : parentDirectory + "/" + name
        return singleFile
            ? StoreLocation(isSingleFile: true, lmdbPath: full, dataFile: full)
            : StoreLocation(isSingleFile: false, lmdbPath: full, dataFile: full + "/data.mdb")
    }

    // MARK: Path pieces

    private static func canonical(_ path: String) throws(LarderError) -> String {
        guard let resolved = realpath(path, nil) else {
            throw LMDBResult.error(errno, operation: "open", path: path)
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func trimmingTrailingSlashes(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    static func lastComponent(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    static func parent(of path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
