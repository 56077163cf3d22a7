#if Extras
import ArgumentParser
import Foundation
import Larder

/// `larder readers`: the reader slots of every process that has the store open.
struct ReadersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "readers",
        abstract: "List the store's reader slots, or clear those of processes that died.",
        discussion: """
            A reader's age is the number of transactions committed since its snapshot: while it \
            lasts, pages freed since then cannot be reused and the file grows. Idle slots are read \
            transactions kept for reuse; they pin nothing. The tool's own slots are not listed.
            """)

    @OptionGroup var store: StoreArgument
    @Flag(help: "Reclaim the slots of processes that died inside a read transaction, then list the rest.") var clearStale = false
    @Flag(help: "Print JSON instead of text.") var json = false

    func run() throws {
        let db = try store.open()
        let cleared = clearStale ? db.clearStaleReaders() : nil
        let readers = Self.otherReaders(db)
        if json {
            var members = [JSONMember("readers", .array(readers.map(Self.json)))]
            if let cleared { members.append(JSONMember("cleared", .integer(Int64(cleared)))) }
            sayJSON(.object(members))
            return
        }
        if let cleared { say("cleared \(cleared) stale reader slot\(cleared == 1 ? "" : "s")") }
        if readers.isEmpty {
            say("no readers")
            return
        }
        say("pid\tthread\tsnapshot\tbehind\tprocess")
        for reader in readers {
            let snapshot = reader.snapshotTransactionID.map(String.init) ?? "idle"
            let behind = reader.transactionsBehind.map(String.init) ?? "-"
            say("\(reader.processID)\t\(String(reader.thread, radix: 16))\t\(snapshot)\t\(behind)\t\(reader.isProcessAlive ? "alive" : "dead (stale)")")
        }
    }

    /// The reader slots of other processes (the tool's own are its pool of idle transactions).
    static func otherReaders(_ db: Database) -> [ReaderSlot] {
        let me = getpid()
        return db.readerSlots().filter { $0.processID != me }
    }

    static func summary(_ reader: ReaderSlot) -> String {
        var text = "pid \(reader.processID)"
        if let behind = reader.transactionsBehind {
            text += " \(behind) transaction\(behind == 1 ? "" : "s") behind"
        } else {
            text += " idle"
        }
        if !reader.isProcessAlive { text += " (dead: stale)" }
        return text
    }

    static func json(_ reader: ReaderSlot) -> JSONValue {
        .object([
            JSONMember("pid", .integer(Int64(reader.processID))),
            JSONMember("thread", .string(String(reader.thread, radix: 16))),
            JSONMember("snapshot", reader.snapshotTransactionID.map { .integer(Int64($0)) } ?? .null),
            JSONMember("transactionsBehind", reader.transactionsBehind.map { .integer(Int64($0)) } ?? .null),
            JSONMember("alive", .bool(reader.isProcessAlive)),
        ])
    }
}
#endif
