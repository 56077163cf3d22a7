import Foundation
import Testing
@testable import Larder

/// Runs the built `larder` executable for the command-line suites and reads what it printed.
enum CLI {
    /// The exit statuses of Documentation/CommandLine.md.
    enum Status {
        static let ok: Int32 = 0
        static let usage: Int32 = 1
        static let notFound: Int32 = 2
        static let badInput: Int32 = 3
        static let checkFailed: Int32 = 4
        static let storeError: Int32 = 5
    }

    static func executable() throws -> String {
        try #require(ProcessTestSupport.builtExecutable("larder"), "the larder executable was not built beside the tests")
    }

    /// Runs `larder` with `arguments`, feeding it `input` on standard input.
    static func run(_ arguments: [String], input: String? = nil) throws -> ProcessTestSupport.Run {
        try ProcessTestSupport.run(executable(), arguments, input: input.map { Array($0.utf8) })
    }

    /// Runs `larder` and expects success; returns standard output.
    @discardableResult
    static func succeed(_ arguments: [String], input: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let run = try run(arguments, input: input)
        #expect(run.status == Status.ok, "larder \(arguments.joined(separator: " ")) failed: \(run.standardError)", sourceLocation: sourceLocation)
        return run.standardOutput
    }

    /// Runs `larder`, expects `status`, nothing on standard output and one `larder: ` line on
    /// standard error; returns that line.
    @discardableResult
    static func fail(_ arguments: [String], status: Int32, input: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let run = try run(arguments, input: input)
        #expect(run.status == status, "larder \(arguments.joined(separator: " ")): status \(run.status), stderr: \(run.standardError)", sourceLocation: sourceLocation)
        if status != Status.usage {
            #expect(run.standardOutput.isEmpty, "stdout: \(run.standardOutput)", sourceLocation: sourceLocation)
            let lines = run.standardError.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("larder: "), "stderr: \(run.standardError)", sourceLocation: sourceLocation)
        }
        return run.standardError
    }

    /// Standard output parsed as JSON.
    static func json(_ arguments: [String], input: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
        let output = try succeed(arguments, input: input, sourceLocation: sourceLocation)
        return try JSONSerialization.jsonObject(with: Data(output.utf8), options: [.fragmentsAllowed])
    }

    /// Every entry of the store's objects and metadata databases and every collection count, keys
    /// and values byte for byte.
    static func storedBytes(_ db: Database) throws -> [String: [[UInt8]: [UInt8]]] {
        try db.read { txn in
            var all: [String: [[UInt8]: [UInt8]]] = [:]
            var counts: [[UInt8]: [UInt8]] = [:]
            try txn.lmdb.forEachCollectionCountRecord { name, value in
                counts[[UInt8](name)] = [UInt8](value)
                return true
            }
            all["collections"] = counts
            for (name, database) in [("objects", txn.lmdb.databases.objects), ("metadata", txn.lmdb.databases.metadata)] {
                var entries: [[UInt8]: [UInt8]] = [:]
                try txn.lmdb.forEachEntry(in: database) { key, value in
                    entries[[UInt8](key)] = [UInt8](value)
                    return true
                }
                all[name] = entries
            }
            return all
        }
    }

    /// Stores `value` (format byte included) at a storage key, bypassing the archivers, for
    /// values no Swift type writes (and for damage).
    static func plant(_ db: Database, metadata: Bool = false, collection: String, key: String, value: [UInt8], count: Bool = true) throws {
        try db.write { txn in
            // A real write first keeps the counts right, then the bytes are replaced.
            if count, !metadata { try txn.setObject([UInt8](), forKey: key, inCollection: collection) }
        }
        try db.environment.write { lmdb in
            let storageKey = Array(collection.utf8) + [0] + Array(key.utf8)
            try storageKey.withUnsafeBytes { key in
                try value.withUnsafeBytes { try lmdb.put(metadata ? lmdb.databases.metadata : lmdb.databases.objects, key: key, value: $0) }
            }
        }
    }
}
