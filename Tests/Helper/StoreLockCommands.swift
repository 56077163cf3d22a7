import Larder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Commands of the tests of store locations, locks and opening (StoreLockTests.swift).

/// Writes `line` and a newline to standard output at once (no buffering: the tests read acks
/// while the process runs, and kill it).
func say(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
}

/// `put-many <path> <prefix> <count>`: one commit per key `<prefix><i>` (value i) in collection
/// "spellings", printing `ack <prefix><i>` after each commit returns.
func putMany(path: String, prefix: String, count: Int) -> Never {
    do {
        let db = try Database(path: path)
        for i in 0..<count {
            try db.write { try $0.setObject(i, forKey: prefix + String(i), inCollection: "spellings") }
            say("ack " + prefix + String(i))
        }
        exit(0)
    } catch {
        fail("put-many failed: \(error)")
    }
}

/// `hold-write <path>`: opens the store, begins a write transaction, prints "writing" and sleeps
/// inside it until killed.
func holdWrite(path: String) -> Never {
    do {
        let db = try Database(path: path)
        try db.write { txn in
            try txn.setObject("held", forKey: "held", inCollection: "held")
            say("writing")
            while true { sleep(60) }
        }
    } catch {
        fail("hold-write failed: \(error)")
    }
    fail("hold-write: the write transaction ended")
}

/// `read-as-nobody <path> <collection> <key>`: drops privileges when root, opens the store
/// read-only and prints the string stored under the key ("missing" if none), or the error code.
func readAsNobody(path: String, collection: String, key: String) -> Never {
    dropPrivileges()
    var configuration = Database.Configuration()
    configuration.readOnly = true
    do {
        let db = try Database(path: path, configuration: configuration)
        let value = try db.read { try $0.object(forKey: key, inCollection: collection, as: String.self) }
        say(value ?? "missing")
        exit(0)
    } catch {
        reportFailure(error, of: "read-as-nobody")
    }
}

/// `many-readers <path> <count>`: opens the store and keeps `count` snapshots pinned at once
/// (each holds a reader slot); prints "ok <count>", or the error code and exits 1.
func manyReaders(path: String, count: Int) -> Never {
    do {
        let db = try Database(path: path)
        var connections: [Connection] = []
        for _ in 0..<count {
            let connection = db.newConnection()
            try connection.pinSnapshot()
            _ = try connection.read { try $0.numberOfKeys(inCollection: "c") }
            connections.append(connection)
        }
        say("ok \(connections.count)")
        exit(0)
    } catch {
        reportFailure(error, of: "many-readers")
    }
}

/// `create-stores <directory> <count>`: creates stores `<directory>/s<i>` one after another,
/// each with one object, printing `created <i>` after each (killed at random by the test).
func createStores(directory: String, count: Int) -> Never {
    do {
        for i in 0..<count {
            let db = try Database(path: directory + "/s\(i)")
            try db.write { try $0.setObject(i, forKey: "n", inCollection: "c") }
            say("created \(i)")
        }
        exit(0)
    } catch {
        fail("create-stores failed: \(error)")
    }
}

/// Prints a `LarderError`'s code (what the tests compare) and exits 1; any other error fails.
func reportFailure(_ error: any Error, of command: String) -> Never {
    guard let error = error as? LarderError else { fail("\(command) failed: \(error)") }
    say(error.code.rawValue)
    writeStandardError("larder-test-helper: \(error)\n")
    exit(1)
}
