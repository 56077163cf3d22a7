import Foundation
import Testing
@testable import Larder

/// `larder migrate`: the versions of a collection, a step of field changes, the checks before it
/// writes, and export and import keeping versions.
@Suite("Command-line tool: migrate")
struct CommandLineMigrateTests {
    /// A store with `people` at version 0 (three values) and version 1 (one value, written by a
    /// program declaring version 1).
    private func makeStore(_ path: String) throws {
        let db = try Database(path: path)
        try db.write { txn in
            for number in 0..<3 { try txn.setObject(MemberV0(id: "p\(number)", name: "N\(number) Old", age: "\(number)"), forKey: "p\(number)", inCollection: "people") }
        }
        db.register(MemberMigrations.upTo(1))
        try db.write { try $0.setObject(MemberV1(id: "v1", fullName: "Neu Vorname", email: "x", age: "9"), forKey: "v1", inCollection: "people") }
    }

    /// An app stopped starting after one `larder put` into a versioned collection: the tool
    /// wrote a version-0 value the app's steps could not migrate. Now put asks which version.
    @Test func putIntoAVersionedCollectionSaysWhichVersionOrIsRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        try makeStore(path)
        let refused = try CLI.fail(["put", path, "people", "new", #"{"id":"new","fullName":"A B","email":"e","age":"3"}"#], status: CLI.Status.badInput)
        #expect(refused.contains("carry versions (version 0: 3, version 1: 1)") && refused.contains("--version 1"), "\(refused)")
        try CLI.succeed(["put", path, "people", "new", "--version", "1", #"{"id":"new","fullName":"A B","email":"e","age":"3"}"#])
        try CLI.succeed(["put", path, "people", "old", "--version", "0", #"{"id":"old","name":"C D","age":"4"}"#])
        // A collection without versions takes a plain put, as before.
        try CLI.succeed(["put", path, "plain", "k", "1"])
        let db = try Database(path: path)
        #expect(try db.read { try $0.storedVersion(forKey: "new", inCollection: "people") } == 1)
        #expect(try db.read { try $0.storedVersion(forKey: "old", inCollection: "people") } == 0)
        db.register(MemberMigrations.upTo(1))
        #expect(try db.read { try $0.object(forKey: "new", inCollection: "people", as: MemberV1.self) } == MemberV1(id: "new", fullName: "A B", email: "e", age: "3"))
        #expect(try db.read { try $0.object(forKey: "old", inCollection: "people", as: MemberV1.self) }?.fullName == "C D")
        _ = try CLI.fail(["put", path, "people", "x", "--metadata-version", "1", "1"], status: CLI.Status.usage)
    }

    @Test func statusThenAStepOfFieldChangesThenStatusAgain() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        try makeStore(path)
        #expect(try CLI.succeed(["migrate", path, "people"]) == "version 0: 3 values\nversion 1: 1 value\n")
        let status = try #require(try CLI.json(["migrate", path, "people", "--json"]) as? [String: Any])
        #expect(status["versions"] as? [String: Int] == ["0": 3, "1": 1])

        // The same step as MemberMigrations' first, given on the command line, plus a removal.
        let output = try CLI.succeed(["migrate", path, "people", "--to", "1", "--rename", "name=fullName", "--add", "email=\"\"", "--add", "tags=[1,2]", "--chunk-size", "2"])
        #expect(output == "migrated 3 of 4 values of \"people\" to version 1 in 2 transactions\n")
        let db = try Database(path: path)
        #expect(try db.storedVersions(inCollection: "people") == [1: 4])
        db.register(MemberMigrations.upTo(1))
        #expect(try db.read { try $0.object(forKey: "p1", inCollection: "people", as: MemberV1.self) } == MemberV1(id: "p1", fullName: "N1 Old", email: "", age: "1"))
        #expect(try db.read { try $0.object(forKey: "v1", inCollection: "people", as: MemberV1.self) } == MemberV1(id: "v1", fullName: "Neu Vorname", email: "x", age: "9"))
        let tags = try db.read { txn in try txn.storedObject(forKey: "p1", inCollection: "people").map { try MessagePackValue(reading: $0.bytes)["tags"] } }
        #expect(tags == .array([.unsigned(1), .unsigned(2)]))
        // Run again: nothing left at version 0.
        #expect(try CLI.succeed(["migrate", path, "people", "--to", "1", "--rename", "name=fullName"]) == "migrated 0 of 4 values of \"people\" to version 1 in 1 transaction\n")
    }

    @Test func valuesOutsideTheStepAndBadOptionsAreRefusedBeforeAnythingIsWritten() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        try makeStore(path)
        let before = try CLI.storedBytes(try Database(path: path))
        #expect(try CLI.fail(["migrate", path, "people", "--to", "2", "--remove", "age"], status: 3).contains("3 values are at version 0"))
        #expect(try CLI.fail(["migrate", path, "people", "--to", "0"], status: 1).contains("--to"))
        #expect(try CLI.fail(["migrate", path, "people", "--rename", "a=b"], status: 1).contains("need --to"))
        #expect(try CLI.fail(["migrate", path, "people", "--to", "1", "--rename", "nameonly"], status: 3).contains("old=new"))
        #expect(try CLI.fail(["migrate", path, "people", "--to", "1", "--add", "x={not json"], status: 3).contains("not JSON"))
        #expect(try CLI.storedBytes(try Database(path: path)) == before)
    }

    @Test func exportAndImportKeepEachValuesVersion() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        try makeStore(path)
        let exported = try CLI.succeed(["export", path])
        #expect(exported.contains(#""version":1"#))
        let copy = directory.file("copy")
        _ = try CLI.succeed(["import", copy, "--create"], input: exported)
        let db = try Database(path: copy)
        #expect(try db.storedVersions(inCollection: "people") == [0: 3, 1: 1])
        #expect(try CLI.storedBytes(db) == CLI.storedBytes(try Database(path: path)))
        // A version that is not a 32-bit whole number is a bad record.
        let bad = #"{"collection":"c","key":"k","format":"messagePack","object":1,"version":-1}"# + "\n"
        #expect(try CLI.fail(["import", copy], status: 3, input: bad).contains("\"version\""))
    }

    /// The same promise for import (issue 31, item 6): a record that says no version is refused in
    /// a collection whose values carry versions unless --version says which; export says 0
    /// outright there, so its files import as they are.
    @Test func importIntoAVersionedCollectionSaysWhichVersionOrIsRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        try makeStore(path)
        try CLI.succeed(["put", path, "plain", "k", "1"])
        let exported = try CLI.succeed(["export", path])
        let lines = exported.split(separator: "\n")
        #expect(lines.filter { $0.contains(#""collection":"people""#) }.allSatisfy { $0.contains(#""version":"#) }, "\(exported)")
        #expect(lines.filter { $0.contains(#""collection":"plain""#) }.allSatisfy { !$0.contains("version") }, "\(exported)")

        let unversioned = #"{"collection":"people","key":"new","format":"messagePack","object":{"id":"new","fullName":"A B","email":"e","age":"3"}}"# + "\n"
        let plain = #"{"collection":"plain","key":"k2","format":"messagePack","object":2}"# + "\n"
        let before = try CLI.storedBytes(try Database(path: path))
        let refused = try CLI.fail(["import", path], status: CLI.Status.badInput, input: plain + unversioned)
        #expect(refused.contains("line 2") && refused.contains("carry versions") && refused.contains("--version"), "\(refused)")
        #expect(try CLI.storedBytes(try Database(path: path)) == before)
        try CLI.succeed(["import", path, "--version", "1"], input: plain + unversioned)
        let db = try Database(path: path)
        #expect(try db.read { try $0.storedVersion(forKey: "new", inCollection: "people") } == 1)
        // --version applies to the records that give none, and only to them.
        #expect(try db.read { try $0.storedVersion(forKey: "k2", inCollection: "plain") } == 1)
        db.register(MemberMigrations.upTo(1))
        #expect(try db.read { try $0.object(forKey: "new", inCollection: "people", as: MemberV1.self) }?.fullName == "A B")

        // Versions met earlier in the same input count too.
        let fresh = directory.file("fresh")
        let twoLines = #"{"collection":"c","key":"a","format":"messagePack","object":1,"version":2}"# + "\n"
            + #"{"collection":"c","key":"b","format":"messagePack","object":2}"# + "\n"
        #expect(try CLI.fail(["import", fresh, "--create"], status: CLI.Status.badInput, input: twoLines).contains("line 2"))
        try CLI.succeed(["import", fresh, "--version", "0"], input: twoLines)
        #expect(try Database(path: fresh).storedVersions(inCollection: "c") == [0: 1, 2: 1])

        // Metadata likewise, with --metadata-version.
        let withMetadata = #"{"collection":"c","key":"m1","format":"messagePack","object":1,"version":2,"metadataFormat":"messagePack","metadata":1,"metadataVersion":3}"# + "\n"
            + #"{"collection":"c","key":"m2","format":"messagePack","object":1,"version":2,"metadataFormat":"messagePack","metadata":2}"# + "\n"
        #expect(try CLI.fail(["import", fresh], status: CLI.Status.badInput, input: withMetadata).contains("--metadata-version"))
        try CLI.succeed(["import", fresh, "--metadata-version", "3"], input: withMetadata)
        #expect(try Database(path: fresh).storedVersions(inCollection: "c", metadata: true) == [3: 2])
    }
}
