#if Extras
import Foundation

/// Where the tool writes: buffered standard output (or a file), and standard error for messages.
/// Every subcommand but `demo` writes standard output through ``standard`` only (never `print`),
/// so that everything goes through one buffer, in order.
final class Output: @unchecked Sendable {  // used by the tool's one thread only
    private let file: UnsafeMutablePointer<FILE>
    private let name: String
    /// For a file: where it is written until ``finish()`` renames it to `name`.
    private let temporaryPath: String?

    /// Standard output (a stream of its own on descriptor 1, flushed by `exit`).
    static let standard = Output(file: fdopen(1, "w"), name: "standard output", temporaryPath: nil)

    private init(file: UnsafeMutablePointer<FILE>, name: String, temporaryPath: String?) {
        self.file = file
        self.name = name
        self.temporaryPath = temporaryPath
    }

    /// A new file at `path`, or standard output for `nil` or `-`.
    ///
    /// The file is written the way `backup` writes a copy: under a temporary name in the same
    /// directory, created with `O_EXCL | O_NOFOLLOW` and owner-only permissions (0600, whatever the
    /// umask), and only ``finish()`` flushes it to disk and renames it to `path`, so a failure
    /// leaves no partial file and an existing file at `path` as it was. A symbolic link at `path`
    /// is refused rather than followed (or replaced), and so is anything but a regular file.
    static func file(_ path: String?) throws -> Output {
        guard let path, path != "-" else { return standard }
        var status = stat()
        if lstat(path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFLNK:
                throw CommandFailure(.badInput, "\(path) is a symbolic link; export does not write through links: give the file it points to, or remove the link")
            case S_IFREG:
                break
            default:
                throw CommandFailure(.badInput, "\(path) exists and is not a regular file")
            }
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var random = SystemRandomNumberGenerator()
        let temporary = directory + "." + base + ".partial-\(getpid())-\(String(random.next() & 0xFFFF_FFFF, radix: 16))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CommandFailure(.storeError, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        fchmod(descriptor, 0o600)  // open's mode passes through the umask; this keeps it owner-only
        guard let file = fdopen(descriptor, "wb") else {
            let code = errno
            close(descriptor)
            unlink(temporary)
            throw CommandFailure(.storeError, "cannot write \(path): \(String(cString: strerror(code)))")
        }
        return Output(file: file, name: path, temporaryPath: temporary)
    }

    func write(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    }

    /// Throws if a write has failed so far (a full disk, say), so that a long output stops at
    /// once instead of at ``finish()``.
    func checkWrites() throws {
        if ferror(file) != 0 { throw CommandFailure(.storeError, "cannot write \(name): \(String(cString: strerror(errno)))") }
    }

    func write(_ text: String) {
        write(Array(text.utf8))
    }

    /// Writes `text` and a newline.
    func line(_ text: String) {
        write(Array(text.utf8) + [0x0A])
    }

    /// Flushes standard output; for a file, flushes it to disk, renames it to its path and
    /// flushes the directory. Reports a failed write, after removing the temporary file.
    func finish() throws {
        guard let temporaryPath else {
            let failed = fflush(file) != 0 || ferror(file) != 0
            let code = errno
            if failed { throw CommandFailure(.storeError, "cannot write \(name): \(String(cString: strerror(code)))") }
            return
        }
        var failed = fflush(file) != 0 || ferror(file) != 0 || fsync(fileno(file)) != 0
        var code = errno
        if fclose(file) != 0 && !failed {
            failed = true
            code = errno
        }
        if !failed && rename(temporaryPath, name) != 0 {
            failed = true
            code = errno
        }
        if failed {
            unlink(temporaryPath)
            throw CommandFailure(.storeError, "cannot write \(name): \(String(cString: strerror(code))) (nothing was written there)")
        }
        let slash = name.lastIndex(of: "/")
        let directory = slash.map { $0 == name.startIndex ? "/" : String(name[..<$0]) } ?? "."
        let directoryDescriptor = open(directory, O_RDONLY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// Closes a file without naming it and removes what was written (after a failure);
    /// does nothing for standard output.
    func discard() {
        guard let temporaryPath else { return }
        fclose(file)
        unlink(temporaryPath)
    }
}

/// Writes one line to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Writes a line to standard output.
func say(_ text: String) {
    Output.standard.line(text)
}

/// Writes `value` as JSON on standard output: compact, or indented with `pretty`.
func sayJSON(_ value: JSONValue, pretty: Bool = false) {
    Output.standard.line(JSONWriter(pretty: pretty).text(value))
}

/// A JSON array of strings.
func jsonStrings(_ strings: [String]) -> JSONValue {
    .array(strings.map { .string($0) })
}

/// A byte count for people: `4.0 KiB`, `16.0 MiB`.
func byteCount(_ bytes: Int) -> String {
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    return unit == 0 ? "\(bytes) bytes" : String(format: "%.1f %@", value, units[unit])
}
#endif
