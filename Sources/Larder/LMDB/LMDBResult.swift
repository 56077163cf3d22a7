internal import CLMDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place where LMDB return codes become ``LarderError``s.
enum LMDBResult {
    /// Throws unless `rc` is `MDB_SUCCESS`.
    @inline(__always)
    static func check(_ rc: Int32, _ operation: @autoclosure () -> String, path: String? = nil) throws(LarderError) {
        if rc != MDB_SUCCESS { throw error(rc, operation: operation(), path: path) }
    }

    static func error(_ rc: Int32, operation: String, path: String? = nil) -> LarderError {
        let text = String(cString: mdb_strerror(rc))
        let code: LarderError.Code
        let message: String
        switch rc {
        case MDB_MAP_FULL:
            code = .mapFull
            message = "the store's map is full"
        case MDB_READERS_FULL:
            code = .readersFull
            message = "every reader slot is in use, by live transactions of this and other processes (see readerSlots()); end long-lived readers. The number of slots was fixed by the first process that opened the store: a larger Configuration.maxReaders takes effect only once every process has closed it"
        case MDB_CORRUPTED, MDB_PAGE_NOTFOUND, MDB_PANIC:
            code = .corrupted
            message = "LMDB reports a damaged data file: \(text)"
        case MDB_INVALID, MDB_VERSION_MISMATCH, MDB_INCOMPATIBLE:
            code = .notAStore
            message = "the file is not a Larder store (LMDB: \(text))"
        case EACCES, EPERM, EROFS:
            code = .permissionDenied
            message = "the operating system refused access: \(text)"
        case ENOSPC:
            code = .diskFull
            message = "the disk is full: \(text)"
        case EIO:
            code = .io
            message = "input-output error: \(text)"
        default:
            code = .lmdb
            message = "LMDB: \(text)"
        }
        return LarderError(code, message, operation: operation, path: path, lmdbCode: rc)
    }
}
