import Foundation
import LarderMessagePack
import Testing
@testable import Larder

/// The undo actions a commit carries (`Changeset.undoActions`): in the changesets observers get,
/// in the change log other processes read, and only on the commits that undid or redid.
@Suite("Undo and redo: the commits say so")
struct UndoActionTests {
    private static func loggedChangeset(_ commit: UInt64, in db: Database) throws -> Changeset? {
        try db.environment.read { try ChangeLog.changeset(commit, in: $0) }
    }

    private static func rawLogEntry(_ commit: UInt64, in db: Database) throws -> MessagePackValue {
        let bytes = try #require(try db.environment.read { lmdb in
            try withUnsafeBytes(of: commit.bigEndian) { key in try lmdb.get(lmdb.databases.log, key: key).map { Array($0) } }
        })
        return try MessagePackValue(reading: bytes)
    }

    @Test func undoAndRedoCommitsNameTheirStepAndOtherCommitsNothing() throws {
        try withStore { db, _ in
            let reader = db.newConnection()
            try reader.pinSnapshot()
            try db.write { try $0.write(Product(id: "p", name: "P", price: 1)) }
            try db.write(undoable: "Reprice") { try $0.write(Product(id: "p", name: "P", price: 2)) }
            let stepID = try #require(try db.undoHistory().undoable.last?.id)
            let undone = try #require(try db.undo())
            try db.redo()
            let changes = try reader.advanceSnapshot()
            #expect(changes.map(\.undoActions) == [
                [], [],
                [UndoAction(kind: .undo, stepID: stepID, stepName: "Reprice")],
                [UndoAction(kind: .redo, stepID: stepID, stepName: "Reprice")],
            ])
            #expect(undone.id == stepID)
            reader.unpinSnapshot()

            // The change log says the same: what other processes, `larder log` and a reopened
            // store read.
            let last = try db.read { $0.lastCommit }
            let logged = try (1...last).map { try #require(try Self.loggedChangeset($0, in: db)) }
            #expect(logged.map(\.undoActions) == changes.map(\.undoActions))
            // The entries of the commits that did not undo are as before: no `undo` key.
            #expect(try Self.rawLogEntry(last - 2, in: db)["undo"] == nil)
            #expect(try Self.rawLogEntry(last - 1, in: db)["undo"] == .array([
                .array([.string(Array("undo".utf8)), .unsigned(stepID), .string(Array("Reprice".utf8))]),
            ]))
        }
    }

    @Test func oneWriteThatUndoesTwiceListsBothInOrderAndASavepointTakesItsBack() throws {
        try withStore { db, _ in
            try db.write(undoable: "First") { try $0.write(Product(id: "a", name: "A", price: 1)) }
            try db.write(undoable: "Second") { try $0.write(Product(id: "b", name: "B", price: 1)) }
            let ids = try db.undoHistory().undoable.map(\.id)
            try db.write { txn in
                try txn.undo()
                try txn.undo()
                // An undo in a savepoint that is rolled back leaves no trace.
                struct Abandon: Error {}
                _ = try? txn.savepoint { inner in
                    try inner.redo()
                    throw Abandon()
                }
            }
            let commit = try db.read { $0.lastCommit }
            let logged = try #require(try Self.loggedChangeset(commit, in: db))
            #expect(logged.undoActions == [
                UndoAction(kind: .undo, stepID: ids[1], stepName: "Second"),
                UndoAction(kind: .undo, stepID: ids[0], stepName: "First"),
            ])
            #expect(try db.read { try $0.read(Product.self, key: "a") } == nil)
            #expect(try db.redoName == "First")
            // Merged changesets keep every commit's actions in commit order.
            try db.redo()
            let redone = try #require(try Self.loggedChangeset(commit + 1, in: db))
            let merged = try #require(Changeset.merged([logged, redone]))
            #expect(merged.undoActions.map(\.kind) == [.undo, .undo, .redo])
        }
    }

    @Test func anotherProcessSeesTheUndoItDidNotMake() throws {
        let helper = try #require(ProcessTestSupport.helperExecutable())
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write(undoable: "Price") { try $0.write(Product(id: "p", name: "P", price: 1)) }
        try db.write(undoable: "Reprice") { try $0.write(Product(id: "p", name: "P", price: 2)) }
        let reader = db.newConnection()
        try reader.pinSnapshot()
        let run = try ProcessTestSupport.run(helper, ["undo", path])
        try #require(run.status == 0, "\(run.standardError)")
        let changes = try reader.advanceSnapshot()
        #expect(changes.flatMap(\.undoActions).map(\.stepName) == ["Reprice"])
        #expect(changes.flatMap(\.undoActions).map(\.kind) == [.undo])
    }

    @Test func pythonReadsTheUndoActionsFromTheLog() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write(undoable: "Caf\u{E9} price") { try $0.write(Product(id: "p", name: "P", price: 1)) }
        try db.undo()
        try db.redo()
        let script = """
        import json, sys, lmdb, msgpack
        env = lmdb.open(sys.argv[1], subdir=True, readonly=True, max_dbs=8)
        log = env.open_db(b"log", create=False)
        with env.begin() as txn:
            print(json.dumps([msgpack.unpackb(value).get("undo") for _, value in txn.cursor(db=log)]))
        """
        let run = try MessagePackPythonInteropTests.runPython(script, [path])
        try #require(run.status == 0, "python3 with lmdb and msgpack (Scripts/setup installs them) failed: \(run.output)")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [Any])
        try #require(entries.count == 3, "\(run.output)")
        #expect(entries[0] is NSNull)
        #expect(entries[1] as? [[AnyHashable]] == [["undo", 1, "Caf\u{E9} price"]])
        #expect(entries[2] as? [[AnyHashable]] == [["redo", 1, "Caf\u{E9} price"]])
    }

    @Test func damagedUndoActionsInALogEntryAreCorruptNotMisread() throws {
        func entry(undo: MessagePackValue) -> [UInt8] {
            func field(_ name: String, _ value: MessagePackValue) -> MessagePackValue.Entry {
                MessagePackValue.Entry(key: .string(Array(name.utf8)), value: value)
            }
            return MessagePackValue.map([
                field("version", .unsigned(2)), field("first", .unsigned(4)), field("last", .unsigned(4)),
                field("everything", .bool(false)), field("cleared", .array([])), field("changes", .map([])),
                field("extensions", .map([])), field("info", .array([])), field("undo", undo),
            ]).encoded()
        }
        let good = entry(undo: .array([.array([.string(Array("redo".utf8)), .unsigned(9), .string(Array("Rename".utf8))])]))
        #expect(try good.withUnsafeBytes { try Changeset(logBytes: $0) }.undoActions == [UndoAction(kind: .redo, stepID: 9, stepName: "Rename")])
        let damaged: [MessagePackValue] = [
            .array([.array([.string(Array("sideways".utf8)), .unsigned(9), .string(Array("Rename".utf8))])]),  // unknown kind
            .array([.array([.string(Array("undo".utf8)), .unsigned(9)])]),  // no name
            .array([.array([.string(Array("undo".utf8)), .negative(-1), .string(Array("Rename".utf8))])]),  // no step number
            .string(Array("undo".utf8)),  // not an array
        ]
        for undo in damaged {
            let bytes = entry(undo: undo)
            #expect(throws: LarderError.self, "\(undo)") { _ = try bytes.withUnsafeBytes { try Changeset(logBytes: $0) } }
            #expect((try? bytes.withUnsafeBytes { try Changeset(logBytes: $0) }) == nil)
        }
    }
}
