import Foundation
import Testing
@testable import Larder

/// Store format 3: the change log's `info` and `extensions` payloads are MessagePack `bin`
/// (entry version 2), where format 1 and 2 stores hold arrays of byte-sized integers (entry
/// version 1). A store of the older formats opens, its log reads, and its first commit raises it
/// to 3; an independent client (Python's `lmdb` and `msgpack`, installed by Scripts/setup) reads
/// the log as Documentation/StorageLayout.md describes it. These tests fail, never skip, when a
/// tool is missing.
@Suite("Change log format")
struct ChangeLogFormatTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    struct Product: Codable, Sendable, Persistable, Equatable {
        static let collection = "products"
        var id: String
        var name: String
        var category: String
    }

    struct Note: Codable, Sendable, Equatable {
        var author: String
        var reason: String
    }

    /// The view the fixture's store was written with.
    static func byCategory() -> AutoView<Product, NoMetadata> {
        AutoView<Product, NoMetadata>(collections: ["products"], versionTag: "1",
                                      grouping: { _, product in product.category },
                                      sorting: { _, product in TupleKey(product.name, product.id) })
    }

    /// Rebuilds, at `path`, the store that Larder 0.1 (format 1, entry version 1) wrote in
    /// `Fixtures/larder-0.1-format1-store.dump` (`mdb_dump -a` of it): with value history, a view
    /// `byCategory`, and three commits: the view's registration, then Hammer with the commit
    /// information ada/"first stock", then Saw and Hammer renamed to Claw hammer with bob/"rename".
    static func loadLarderZeroOneStore(at path: String) throws {
        try loadFixture("larder-0.1-format1-store.dump", at: path)
    }

    /// Loads the store dump `name` of `Fixtures/` (written by `mdb_dump -a`) into a new store
    /// directory at `path`, with LMDB's own `mdb_load`.
    static func loadFixture(_ name: String, at path: String) throws {
        let mdbLoad = try #require(ProcessTestSupport.tool("mdb_load"), "mdb_load not found: install lmdb-utils (Scripts/setup does)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let load = try ProcessTestSupport.run(mdbLoad, ["-f", fixtures.appendingPathComponent(name).path, path])
        try #require(load.status == 0, "mdb_load failed: \(load.standardError)")
    }

    /// The value under `name` in the map `value`.
    static func field(_ name: String, of value: MessagePackValue) -> MessagePackValue? {
        guard case .map(let entries) = value else { return nil }
        return entries.first { $0.key.text == name }?.value
    }

    static func changeset(_ commit: UInt64, in db: Database) throws -> Changeset? {
        try db.environment.read { try ChangeLog.changeset(commit, in: $0) }
    }

    static func rawLogEntry(_ commit: UInt64, in db: Database) throws -> [UInt8]? {
        try db.environment.read { lmdb in
            try withUnsafeBytes(of: commit.bigEndian) { key in try lmdb.get(lmdb.databases.log, key: key).map { Array($0) } }
        }
    }

    @Test func aStoreWrittenByLarderZeroOneOpensItsLogReadsAndMovesToTheNewestFormat() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("old")
        try Self.loadLarderZeroOneStore(at: path)
        var configuration = Database.Configuration()
        configuration.keepsValueHistory = true
        let db = try Database(path: path, configuration: configuration)
        #expect(try db.statistics().formatVersion == 1)  // opening changes nothing

        // The old entries: integer arrays, read as before.
        let old = try #require(try Self.rawLogEntry(2, in: db))
        let oldEntry = try MessagePackValue(reading: old)
        #expect(Self.field("version", of: oldEntry) == .integer(1))
        guard case .array(let oldInfos)? = Self.field("info", of: oldEntry), case .array? = oldInfos.first else {
            Issue.record("the fixture's info is not an array of integer arrays: \(oldEntry)")
            return
        }
        #expect(try Self.changeset(1, in: db)?.extensionChanges(named: "byCategory") == [ExtensionPayload.rebuilt])
        #expect(try Self.changeset(2, in: db)?.commitInfo(as: Note.self) == [Note(author: "ada", reason: "first stock")])
        #expect(try Self.changeset(3, in: db)?.commitInfo(as: Note.self) == [Note(author: "bob", reason: "rename")])
        #expect(try Self.changeset(3, in: db)?.extensionChanges(named: "byCategory").count == 1)
        try db.read { txn throws in
            #expect(try txn.history(of: Product.self, key: "p1").compactMap { $0.value?.name } == ["Claw hammer", "Hammer"])
        }
        #expect(try db.checkStructure().problems.isEmpty)

        // The view registers unchanged (its tag is recorded) and reads the old store's rows; the
        // registration empties the view's map (views keep no map), and, the store's first write,
        // moves its counts and last commit number into the main database: format 6.
        let view = try db.register(Self.byCategory(), named: "byCategory")
        #expect(try db.read { try $0[view].indexes(inGroup: "tools").map(\.key) } == ["p1", "p2"])
        #expect(try db.statistics().formatVersion == 6)

        // The first commit writes a version-2 entry.
        try db.write { txn in
            try txn.write(Product(id: "p3", name: "Awl", category: "tools"))
            try txn.setCommitInfo(Note(author: "cy", reason: "more"))
        }
        #expect(try db.statistics().formatVersion == 6)
        let new = try MessagePackValue(reading: try #require(try Self.rawLogEntry(4, in: db)))
        #expect(Self.field("version", of: new) == .integer(2))
        guard case .array(let infos)? = Self.field("info", of: new), case .binary? = infos.first else {
            Issue.record("the new entry's info is not an array of bin: \(new)")
            return
        }
        #expect(try Self.changeset(4, in: db)?.commitInfo(as: Note.self) == [Note(author: "cy", reason: "more")])
        #expect(try Self.changeset(4, in: db)?.extensionChanges(named: "byCategory").count == 1)
        // Old and new entries side by side: history and the structure check read both.
        try db.read { txn throws in
            #expect(try txn.history(of: Product.self, key: "p1").compactMap { $0.value?.name } == ["Claw hammer", "Hammer"])
            #expect(try txn.history(of: Product.self, key: "p3").compactMap { $0.value?.name } == ["Awl"])
            #expect(try txn[view].indexes(inGroup: "tools").map(\.key) == ["p3", "p1", "p2"])
        }
        #expect(try Self.changeset(2, in: db)?.commitInfo(as: Note.self) == [Note(author: "ada", reason: "first stock")])
        #expect(try db.checkStructure().problems.isEmpty)
    }

    @Test func entriesOfAnUnknownVersionAreCorruptNotMisread() throws {
        let entry = MessagePackValue.map([
            .init(key: .string("version"), value: .integer(3)),
            .init(key: .string("first"), value: .integer(1)),
            .init(key: .string("last"), value: .integer(1)),
        ])
        let bytes = entry.encoded()
        #expect {
            _ = try bytes.withUnsafeBytes { try Changeset(logBytes: $0) }
        } throws: { error in
            guard let error = error as? LarderError else { return false }
            return error.code == .corruptValue && error.message.contains("version 3")
        }
    }

    @Test func pythonReadsTheChangeLogWithLmdbAndMsgpack() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        var configuration = Database.Configuration()
        configuration.keepsValueHistory = true
        let db = try Database(path: path, configuration: configuration)
        _ = try db.register(Self.byCategory(), named: "byCategory")
        try db.write { txn in
            try txn.write(Product(id: "p1", name: "Hammer", category: "tools"))
            try txn.setCommitInfo(Note(author: "ada", reason: "first stock"))
        }
        try db.write { txn in
            try txn.write(Product(id: "p1", name: "Claw hammer", category: "tools"))
            try txn.setCommitInfo(Note(author: "bob", reason: "rename"))
        }

        // A client that knows only StorageLayout.md: open the directory store read-only with
        // max_dbs for the databases it opens, walk `log`, unpack each entry, then each payload.
        let script = """
        import json, sys, lmdb, msgpack
        env = lmdb.open(sys.argv[1], subdir=True, readonly=True, max_dbs=8)
        log = env.open_db(b"log", create=False)
        larder = env.open_db(b"larder", create=False)
        out = []
        with env.begin() as txn:
            out.append({"format": int.from_bytes(txn.get(b"format-version", db=larder), "big")})
            for key, value in txn.cursor(db=log):
                entry = msgpack.unpackb(value)
                assert all(isinstance(p, bytes) for p in entry["info"]), entry["info"]
                assert all(isinstance(p, bytes) for ps in entry["extensions"].values() for p in ps)
                values = entry.get("values", {}).get("products", {}).get("p1", [None, None])
                out.append({
                    "commit": int.from_bytes(key, "big"),
                    "version": entry["version"],
                    "info": [msgpack.unpackb(p) for p in entry["info"]],
                    "extensions": {name: [msgpack.unpackb(p) for p in ps] for name, ps in entry["extensions"].items()},
                    "changes": entry["changes"],
                    "value": msgpack.unpackb(values[0][1:])["name"] if values[0] else None,
                    "time": entry["time"].seconds > 1_700_000_000,
                })
        print(json.dumps(out, sort_keys=True))
        """
        let run = try MessagePackPythonInteropTests.runPython(script, [path])
        try #require(run.status == 0, "python3 with lmdb and msgpack (Scripts/setup installs them) failed: \(run.output)")
        let decoded = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]]
        let entries = try #require(decoded)
        try #require(entries.count == 4, "\(run.output)")
        #expect(entries[0]["format"] as? Int == Int(LarderVersion.storeFormat))
        // Commit 1 registered the view: its payload is the string "rebuilt".
        #expect(entries[1]["commit"] as? Int == 1)
        #expect((entries[1]["extensions"] as? [String: [String]])?["byCategory"] == ["rebuilt"])
        for (entry, (author, name)) in zip(entries[2...], [("ada", "Hammer"), ("bob", "Claw hammer")]) {
            #expect(entry["version"] as? Int == 2)
            #expect((entry["info"] as? [[String: String]])?.first?["author"] == author)
            #expect(entry["value"] as? String == name)
            #expect(entry["time"] as? Bool == true)
            let rows = (entry["extensions"] as? [String: [[String: Any]]])?["byCategory"]?.first?["rows"] as? [Any]
            #expect(rows?.count == 1, "\(String(describing: entry["extensions"]))")
            // Object change code 1 (inserted) or 2 (updated) in the low nibble.
            #expect((entry["changes"] as? [String: [String: Int]])?["products"]?["p1"] == (author == "ada" ? 1 : 2))
        }
    }
}
