#if Extras
import Foundation

/// Reads a file (or standard input) line by line, in large blocks, counting lines and bytes.
final class LineReader {
    private let descriptor: Int32
    private let owns: Bool
    private let name: String
    /// The size of the file, `nil` for a pipe.
    let size: Int?
    private(set) var bytesRead = 0
    private var buffer: [UInt8] = []
    /// What each read(2) fills.
    private var block = [UInt8](repeating: 0, count: 1 << 20)
    private var start = 0
    private var atEnd = false
    private var lineNumber = 0

    init(path: String?) throws {
        if let path, path != "-" {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                let code = errno
                throw CommandFailure(code == ENOENT ? .notFound : .storeError, "cannot read \(path): \(String(cString: strerror(code)))")
            }
            owns = true
            name = path
        } else {
            descriptor = 0
            owns = false
            name = "standard input"
        }
        var status = stat()
        size = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : nil
    }

    deinit {
        if owns { close(descriptor) }
    }

    /// The next line (without its newline, or `\r\n`) and its number; `nil` at the end.
    func next() throws -> (Int, [UInt8])? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var line = Array(buffer[start..<newline])
                if line.last == 0x0D { line.removeLast() }
                start = newline + 1
                lineNumber += 1
                return (lineNumber, line)
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                lineNumber += 1
                return (lineNumber, line)
            }
            buffer.removeSubrange(..<start)
            start = 0
            let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandFailure(.storeError, "cannot read \(name): \(String(cString: strerror(errno)))")
            }
            buffer.append(contentsOf: block[..<count])
            bytesRead += count
            if count == 0 { atEnd = true }
        }
    }
}
#endif
