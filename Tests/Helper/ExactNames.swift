// The commands of Tests/LarderTests/ExactNameTests.swift: names that Swift's `String ==` calls
// equal but that are spelled with different bytes, written and watched from another process.
// Each name is given as `<collection>:<key>`, both in hexadecimal UTF-8, so that nothing between
// the test and this process can normalize them.

import Larder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The index `<hex collection>:<hex key>` names.
func exactIndex(_ argument: Substring) -> YapDB.Index {
    let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, let collection = hexText(parts[0]), let key = hexText(parts[1]) else {
        fail("not <hex collection>:<hex key>: \(argument)", status: 2)
    }
    return YapDB.Index(collection: collection, key: key)
}

private func hexText(_ hex: Substring) -> String? {
    guard hex.utf8.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
        bytes.append(byte)
        index = next
    }
    return String(validating: bytes, as: UTF8.self)
}

/// `exact-write <path> <hex collection>:<hex key>=<value> ...`: stores each string value at its
/// index, all in one transaction; prints the commit's number.
func exactWrite(path: String, assignments: ArraySlice<String>) -> Never {
    let writes = assignments.map { assignment -> (YapDB.Index, String) in
        guard let equals = assignment.firstIndex(of: "=") else { fail("exact-write: no = in \(assignment)", status: 2) }
        return (exactIndex(assignment[..<equals]), String(assignment[assignment.index(after: equals)...]))
    }
    do {
        let db = try Database(path: path)
        let commit = try db.write { txn in
            for (index, value) in writes { try txn.setObject(value, forKey: index.key, inCollection: index.collection) }
            return txn.lastCommit + 1
        }
        print(commit)
        exit(0)
    } catch {
        fail("exact-write failed: \(error)")
    }
}

/// `exact-watch <path> <hex collection>:<hex key> ...`: reads the string at each index (so that
/// this process's cache holds them) and prints them on one line, separated by spaces ("-" for
/// none); waits for a line on standard input; then reads them again through the same connection
/// and prints them, and on a second line `counts` and the number of keys of each collection
/// named, in the order first named (collections compared by their bytes).
func exactWatch(path: String, arguments: ArraySlice<String>) -> Never {
    let indexes = arguments.map { exactIndex($0[...]) }
    var collections: [String] = []
    for index in indexes where !collections.contains(where: { $0.utf8.elementsEqual(index.collection.utf8) }) {
        collections.append(index.collection)
    }
    do {
        let db = try Database(path: path)
        let connection = db.newConnection()
        func values() throws -> String {
            try connection.read { txn in
                try indexes.map { try txn.object(forKey: $0.key, inCollection: $0.collection, as: String.self) ?? "-" }.joined(separator: " ")
            }
        }
        let before = try values()
        // Twice, so that the second read is served by the cache.
        _ = try values()
        // Unbuffered: the test waits for this line before it writes.
        var line = before + "\n"
        line.withUTF8 { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
        _ = readLine()
        print(try values())
        let counts = try connection.read { txn in try collections.map { String(try txn.numberOfKeys(inCollection: $0)) } }
        print("counts " + counts.joined(separator: " "))
        exit(0)
    } catch {
        fail("exact-watch failed: \(error)")
    }
}
