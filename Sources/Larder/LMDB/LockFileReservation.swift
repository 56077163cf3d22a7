#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// LMDB's lock file, given real blocks.
///
/// LMDB sizes the lock file for every reader slot but leaves it sparse, and it writes the first
/// page as soon as it maps the file. On a full file system a write to a page with no block behind
/// it stops the process with SIGBUS — inside `mdb_env_open` for a new lock file, or later when a
/// reader takes a slot. So the file is opened (made, if missing, at the size LMDB gives `readers`
/// slots) and allocated before LMDB maps it, and allocated again at the size LMDB gave it once
/// it has: a full disk becomes `diskFull` at open.
///
/// The descriptor stays open until LMDB's handle is closed, then closes after it: closing any
/// descriptor of the lock file drops the process-owned `fcntl` lock LMDB holds on it to show the
/// process is alive, and other processes would then clear this process's reader slots as stale.
struct LockFileReservation {
    /// The open lock file, or -1 when it could not be opened for writing (read-only media, a
    /// lock file of another user): LMDB's own open then reports or works around it.
    private(set) var descriptor: Int32 = -1

    /// Opens (or makes) `lockFile` and allocates it, before LMDB maps it. A made file gets the
    /// size LMDB gives `readers` slots (64 bytes a slot after a 192-byte header in liblmdb 0.9; a
    /// wrong guess only changes how much ``allocateAll(path:)`` must still allocate).
    /// - Throws: ``LarderError/Code/diskFull`` when the file system has no room for it (a file
    ///   it made is removed again).
    static func reserve(_ lockFile: String, readers: Int, fileMode: UInt32, path: String) throws(LarderError) -> LockFileReservation {
        var reservation = LockFileReservation()
        var descriptor = openFile(lockFile, O_RDWR | O_CLOEXEC, 0)
        var created = false
        if descriptor < 0 && errno == ENOENT {
            descriptor = openFile(lockFile, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(fileMode))
            created = descriptor >= 0
        }
        guard descriptor >= 0 else { return reservation }
        reservation.descriptor = descriptor
        do {
            try reservation.allocate(atLeast: created ? off_t((readers - 1) * 64 + 192) : 0, path: path)
        } catch {
            reservation.close()
            if created { unlink(lockFile) }
            throw error
        }
        return reservation
    }

    /// Allocates the whole file at the size LMDB gave it.
    func allocateAll(path: String) throws(LarderError) {
        try allocate(atLeast: 0, path: path)
    }

    /// Closes the descriptor; call it only after LMDB's handle is closed.
    mutating func close() {
        if descriptor >= 0 { _ = closeFile(descriptor) }
        descriptor = -1
    }

    private func allocate(atLeast minimum: off_t, path: String) throws(LarderError) {
        guard descriptor >= 0 else { return }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return }
        let size = max(minimum, info.st_size)
        guard size > 0 else { return }
        let rc = posix_fallocate(descriptor, 0, size)
        if rc == ENOSPC {
            throw LarderError(
                .diskFull,
                "the disk is full: LMDB's lock file needs \(size) bytes for its reader table; free space on the file system, then open again",
                operation: "open", path: path, lmdbCode: rc)
        }
        // Other failures (a file system without fallocate) leave the file as it is.
    }
}

private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}

private func closeFile(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
