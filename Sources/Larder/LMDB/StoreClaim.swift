#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A process's claim on a data file, naming the lock file it uses for it.
///
/// LMDB's write lock and reader table live in the lock file, which LMDB finds by the path it was
/// given. ``StoreLocation`` makes every spelling of a path come down to one lock file, but two
/// hard links to one data file are two true names with two lock files, and writers through them
/// would not exclude each other. So every process that opens a data file holds a shared
/// open-file-description lock on one byte of the data file, far past its end, chosen by the
/// identity of its lock file, and looks for a lock on any other byte of that range: one means
/// another process has the data file open through another lock file, and the open is refused.
/// Locks are taken before they are looked for, so of two processes opening at the same moment
/// neither can miss the other (at worst both refuse). The locks live on the data file's inode,
/// shared by all its names, and vanish with the process.
final class StoreClaim: Sendable {  // an immutable descriptor, closed once by `release`
    private let descriptor: Int32

    /// The bytes claims are taken in: far past any real data file, inside `off_t`.
    private static let rangeStart: Int64 = 1 << 60
    private static let rangeLength: Int64 = 1 << 40

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Claims `dataFile` for the lock file `lockFile`.
    ///
    /// - Throws: ``LarderError`` with `lockConflict` when another process has the data file
    ///   open through another lock file; `io` when the data file cannot be opened.
    static func take(dataFile: String, lockFile: String, path: String) throws(LarderError) -> StoreClaim {
        let descriptor = open(dataFile, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw LMDBResult.error(errno, operation: "open", path: path)
        }
        var lockInfo = stat()
        guard stat(lockFile, &lockInfo) == 0 else {
            // Without a lock file (a read-only open of read-only media) there is no LMDB lock to
            // share, and nothing to claim.
            return StoreClaim(descriptor: descriptor)
        }
        let slot = rangeStart + Int64(bitPattern: slotHash(device: UInt64(lockInfo.st_dev), inode: UInt64(lockInfo.st_ino)) % UInt64(rangeLength))
        guard setLock(descriptor, type: F_RDLCK, start: slot, length: 1) else {
            let code = errno
            close(descriptor)
            throw LarderError(.io, "the data file could not be claimed for this process", operation: "open", path: path, lmdbCode: code)
        }
        let others = [(rangeStart, slot - rangeStart), (slot + 1, rangeStart + rangeLength - slot - 1)]
        for (start, length) in others where length > 0 {
            if isLockedByAnother(descriptor, start: start, length: length) {
                close(descriptor)
                throw LarderError(
                    .lockConflict,
                    "another process has this store open through another name (a hard link to its data file) that uses another lock file; open it by the same path everywhere, or remove the extra link",
                    operation: "open", path: path)
            }
        }
        return StoreClaim(descriptor: descriptor)
    }

    /// The file the claim is on: the data file as it was when the claim was taken.
    var identity: FileIdentity? { FileIdentity(descriptor: descriptor) }

    /// Gives the claim up (closing its descriptor releases its lock).
    func release() {
        close(descriptor)
    }

    // MARK: Locks

    #if os(Linux)
    // Open-file-description locks (Linux 3.15): owned by this descriptor, so closing another
    // descriptor of the data file (a backup, a page check) does not drop them, as it would drop
    // a classic process-owned lock.
    private static let setCommand: Int32 = 37  // F_OFD_SETLK
    private static let getCommand: Int32 = 36  // F_OFD_GETLK
    #else
    private static let setCommand: Int32 = F_SETLK
    private static let getCommand: Int32 = F_GETLK
    #endif

    private static func setLock(_ descriptor: Int32, type: Int32, start: Int64, length: Int64) -> Bool {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(start)
        lock.l_len = off_t(length)
        lock.l_pid = 0
        return fcntl(descriptor, setCommand, &lock) == 0
    }

    private static func isLockedByAnother(_ descriptor: Int32, start: Int64, length: Int64) -> Bool {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)  // any shared lock conflicts with an exclusive probe
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(start)
        lock.l_len = off_t(length)
        lock.l_pid = 0
        guard fcntl(descriptor, getCommand, &lock) == 0 else { return false }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// FNV-1a over the lock file's device and inode.
    private static func slotHash(device: UInt64, inode: UInt64) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for var word in [device, inode] {
            for _ in 0..<8 {
                hash ^= word & 0xFF
                hash = hash &* 0x100_0000_01b3
                word >>= 8
            }
        }
        return hash
    }
}
