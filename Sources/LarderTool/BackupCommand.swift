#if Extras
import ArgumentParser
import Foundation
import Larder

/// `larder backup`: a compacting copy taken while writers run, then opened and checked.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a store (compacted) while writers run, then open the copy and check it.",
        discussion: """
            The copy is the store as of one read transaction; writers of this and other processes \
            go on meanwhile. For a directory store the destination is a directory that must not \
            exist, be empty, or (with --force) hold a store, which is replaced; for a single-file \
            store it is a file. Nothing may have a store being replaced open. The status is 4 when \
            the check of the copy finds problems.
            """)

    @OptionGroup var store: StoreArgument
    @Argument(help: ArgumentHelp("Where to write the copy.", valueName: "destination")) var destination: String
    @Flag(help: "Replace a store at the destination.") var force = false
    @Flag(help: "Copy page by page instead of compacting (faster, keeps free pages).") var noCompact = false
    @Flag(help: "Print the summary as JSON.") var json = false

    func run() throws {
        let db = try store.open()
        let singleFile = try withStoreErrors { try db.statistics().isSingleFile }
        try prepareDestination(singleFile: singleFile, source: db)
        let start = ContinuousClock.now
        try withStoreErrors { try db.copy(to: destination, compacting: !noCompact) }
        let elapsed = ContinuousClock.now - start
        let (statistics, report) = try withStoreErrors {
            let copy = try Database(path: destination)
            return (try copy.statistics(), try copy.checkStructure())
        }
        if json {
            sayJSON(.object([
                JSONMember("destination", .string(destination)),
                JSONMember("objects", .integer(Int64(statistics.objectCount))),
                JSONMember("lastCommit", .unsigned(statistics.lastCommit)),
                JSONMember("fileSize", statistics.fileSize.map { .integer(Int64($0)) } ?? .null),
                JSONMember("compacted", .bool(!noCompact)),
                JSONMember("consistent", .bool(report.isConsistent)),
                JSONMember("problems", .array(report.problems.map(CheckCommand.json))),
            ]))
        } else {
            let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
            say("copied \(db.path) to \(destination)\(noCompact ? "" : ", compacted") (\(String(format: "%.1f", milliseconds)) ms): \(statistics.objectCount) objects as of commit \(statistics.lastCommit), data file \(statistics.fileSize.map(byteCount) ?? "of unknown size")")
            for problem in report.problems { say("problem: \(problem)") }
            say(report.isConsistent ? "the copy opens and its structure is consistent" : "the copy has \(report.problemCount) problems")
        }
        if !report.isConsistent { throw CommandFailure(.checkFailed, "the check of the copy found \(report.problemCount) problem\(report.problemCount == 1 ? "" : "s")") }
    }

    /// Refuses a destination the copy must not touch; with --force, removes the store there.
    private func prepareDestination(singleFile: Bool, source: Database) throws {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        guard files.fileExists(atPath: destination, isDirectory: &isDirectory) else { return }
        let dataFile = singleFile ? destination : destination + "/data.mdb"
        let lockFile = singleFile ? destination + "-lock" : destination + "/lock.mdb"
        if singleFile == isDirectory.boolValue {
            throw CommandFailure(.badInput, "\(destination) is a \(isDirectory.boolValue ? "directory" : "file"); the copy of a \(singleFile ? "single-file" : "directory") store needs a \(singleFile ? "file" : "directory") path")
        }
        let sourceData = try withStoreErrors { try source.statistics().dataFile }
        if Self.sameFile(dataFile, sourceData) {
            throw CommandFailure(.badInput, "\(destination) is the store itself")
        }
        let holdsStore = files.fileExists(atPath: dataFile)
        if !singleFile && !holdsStore {
            let contents = (try? files.contentsOfDirectory(atPath: destination)) ?? []
            guard contents.isEmpty else { throw CommandFailure(.badInput, "\(destination) is a directory that holds other files, not a store; choose an empty or new directory") }
            return
        }
        guard force else {
            throw CommandFailure(.badInput, "\(destination) already holds a store; give --force to replace it")
        }
        for file in [dataFile, lockFile] where files.fileExists(atPath: file) {
            do {
                try files.removeItem(atPath: file)
            } catch {
                throw CommandFailure(.storeError, "cannot remove \(file): \(error.localizedDescription)")
            }
        }
    }

    private static func sameFile(_ a: String, _ b: String) -> Bool {
        var first = stat()
        var second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}
#endif
