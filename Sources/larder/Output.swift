import Foundation

/// Where the tool writes: buffered standard output (or a file), and standard error for messages.
/// Every subcommand but `demo` writes standard output through ``standard`` only (never `print`),
/// so that everything goes through one buffer, in order.
final class Output: @unchecked Sendable {  // used by the tool's one thread only
    private let file: UnsafeMutablePointer<FILE>
    private let ownsFile: Bool
    private let name: String

    /// Standard output (a stream of its own on descriptor 1, flushed by `exit`).
    static let standard = Output(file: fdopen(1, "w"), ownsFile: false, name: "standard output")

    private init(file: UnsafeMutablePointer<FILE>, ownsFile: Bool, name: String) {
        self.file = file
        self.ownsFile = ownsFile
        self.name = name
    }

    /// A new file at `path` (replaced if it exists), or standard output for `nil` or `-`.
    static func file(_ path: String?) throws -> Output {
        guard let path, path != "-" else { return standard }
        guard let file = fopen(path, "wb") else {
            throw CommandFailure(.storeError, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        return Output(file: file, ownsFile: true, name: path)
    }

    func write(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    }

    func write(_ text: String) {
        write(Array(text.utf8))
    }

    /// Writes `text` and a newline.
    func line(_ text: String) {
        write(Array(text.utf8) + [0x0A])
    }

    /// Flushes (and closes a file); reports a failed write.
    func finish() throws {
        let failed = fflush(file) != 0 || ferror(file) != 0
        let code = errno
        if ownsFile { fclose(file) }
        if failed { throw CommandFailure(.storeError, "cannot write \(name): \(String(cString: strerror(code)))") }
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
