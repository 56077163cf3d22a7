#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads pages of a data file with `pread`, never through a memory map: a damaged page number
/// or a file shorter than its pages is then a short read, not a SIGBUS.
final class PageFile {
    let descriptor: Int32
    /// The file's size when it was opened, or when ``refreshSize()`` last read it.
    private(set) var size: Int

    /// Opens `path` for reading; `nil` with `errno` set when it cannot.
    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        self.size = Int(status.st_size)
    }

    deinit { close(descriptor) }

    /// Reads the file's size again. A writer in another process may have grown the file since it
    /// was opened: LMDB writes the pages a commit adds before the meta page that names them, so
    /// the size read after a meta page covers every page that meta page names.
    func refreshSize() {
        var status = stat()
        if fstat(descriptor, &status) == 0 { size = max(size, Int(status.st_size)) }
    }

    /// `length` bytes at `offset`, or `nil` when the file ends before them.
    func read(at offset: Int, length: Int) -> PageBytes? {
        guard offset >= 0, length >= 0, offset <= size, length <= size - offset else { return nil }
        var buffer = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
            let got = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + done, length - done, off_t(offset + done))
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { return nil }
            done += got
        }
        return PageBytes(bytes: buffer)
    }
}
