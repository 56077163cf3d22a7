internal import CLMDB

/// The reader slots of an environment, as `mdb_reader_list` reports them: one line per slot,
/// `pid thread(hex) txnid` with `-` for a slot whose transaction is idle (reset).
enum ReaderTable {
    struct Entry {
        let processID: Int32
        let thread: UInt64
        let transactionID: Int?
    }

    /// Collects the lines `mdb_reader_list` writes.
    private final class Lines {
        var text = ""
    }

    static func entries(of environment: OpaquePointer) -> [Entry] {
        let lines = Lines()
        let context = Unmanaged.passUnretained(lines).toOpaque()
        _ = withExtendedLifetime(lines) {
            mdb_reader_list(environment, { message, context in
                guard let message, let context else { return 0 }
                Unmanaged<Lines>.fromOpaque(context).takeUnretainedValue().text += String(cString: message)
                return 0
            }, context)
        }
        return parse(lines.text)
    }

    static func parse(_ text: String) -> [Entry] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 3, let pid = Int32(fields[0]), let thread = UInt64(fields[1], radix: 16) else { return nil }
            return Entry(processID: pid, thread: thread, transactionID: Int(fields[2]))
        }
    }
}
