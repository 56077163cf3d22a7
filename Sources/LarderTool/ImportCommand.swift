import ArgumentParser
import Foundation
import Larder

/// `larder import`: JSON Lines records (export's format) into a store, in chunked transactions.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store the records of a JSON Lines file (export's format), in chunked transactions.",
        discussion: """
            Each record replaces what is stored at its collection and key (object and metadata; a \
            record without metadata leaves none). Records are written --chunk-size at a time, one \
            transaction per chunk: a line that is not a valid record stops the import with status \
            3, after the chunks before it were committed and with nothing of its own chunk \
            written. Blank lines are skipped. A progress bar is drawn on standard error when it is \
            a terminal.
            """)

    @OptionGroup var store: StoreArgument
    @Argument(help: ArgumentHelp("The JSON Lines file; - or nothing reads standard input.", valueName: "file")) var input: String?
    @Option(help: "Records per transaction.") var chunkSize = 1000
    @Flag(help: "Create the store if there is nothing at its path.") var create = false
    @Flag(help: "Print the summary as JSON.") var json = false

    func validate() throws {
        if chunkSize < 1 { throw ValidationError("--chunk-size must be at least 1") }
    }

    func run() throws {
        let tally = Tally()
        do {
            try importRecords(into: tally)
        } catch {
            let failure = (error as? CommandFailure) ?? (error as? LarderError).map { CommandFailure($0) } ?? CommandFailure(.storeError, "\(error)")
            throw CommandFailure(failure.status, failure.message + " (" + tally.committed + ")")
        }
        if json {
            sayJSON(.object([
                JSONMember("records", .integer(Int64(tally.records))),
                JSONMember("collections", .integer(Int64(tally.collections.count))),
                JSONMember("transactions", .integer(Int64(tally.transactions))),
            ]))
        } else {
            let (records, collections, transactions) = (tally.records, tally.collections.count, tally.transactions)
            say("imported \(records) record\(records == 1 ? "" : "s") into \(collections) collection\(collections == 1 ? "" : "s") in \(transactions) transaction\(transactions == 1 ? "" : "s")")
        }
    }

    /// What an import has committed so far.
    final class Tally {
        var records = 0
        var transactions = 0
        var collections = Set<String>()

        /// What an import that stopped leaves in the store: the chunks committed before the
        /// failure (they stay), never a part of the failed one.
        var committed: String {
            guard records > 0 else { return "nothing was imported" }
            return "\(records) record\(records == 1 ? " was" : "s were") committed before it, in \(transactions) transaction\(transactions == 1 ? "" : "s"), and stay\(records == 1 ? "s" : "") in the store; nothing after \(records == 1 ? "it" : "them") was written"
        }
    }

    private func importRecords(into tally: Tally) throws {
        let reader = try LineReader(path: input)
        let db = create ? try StoreArgument.open(store.path, create: true) : try store.open(readOnly: false)
        let progress = ProgressBar("importing")
        defer { progress.finish() }
        var chunk: [(line: Int, record: ExchangeRecord)] = []
        func flush() throws {
            guard let first = chunk.first?.line, let last = chunk.last?.line else { return }
            try withStoreErrors(context: first == last ? "line \(first)" : "lines \(first)–\(last)") {
                try db.write { txn in
                    for (line, record) in chunk {
                        do {
                            try txn.setStored(record.object, metadata: record.metadata, forKey: record.key, inCollection: record.collection)
                        } catch let error as LarderError {
                            throw CommandFailure(error, context: "line \(line)")
                        }
                    }
                }
            }
            tally.records += chunk.count
            tally.transactions += 1
            for entry in chunk { tally.collections.insert(entry.record.collection) }
            chunk.removeAll(keepingCapacity: true)
            progress.update(reader.bytesRead, of: reader.size, detail: "\(tally.records) records")
        }
        while let (number, line) = try reader.next() {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            do {
                chunk.append((number, try ExchangeRecord(line: line)))
            } catch {
                throw CommandFailure(.badInput, "line \(number): \(error.message)")
            }
            if chunk.count >= chunkSize { try flush() }
        }
        try flush()
    }
}

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
