// larder-test-helper: a second process for the tests in Tests/LarderTests/ProcessTests.swift and
// BadInputTests.swift. Each command prints what it did on stdout and exits 0 on success, 1 when the
// behaviour under test was not what the command expects, 2 on a usage error.
//
//   larder-test-helper open-as-nobody <path>
//       Drops privileges to uid/gid 65534 (nobody) when running as root, then opens
//       `Database(path:)`. Prints the LarderError code (or "opened"); exits 0 exactly when the
//       open threw `.permissionDenied`.
//
//   larder-test-helper commit <path> <count> <change-log-limit>
//       Opens the store with the given change log limit and makes <count> commits, one
//       transaction each. Commit i (from 0) sets key "shared" of collection "external" to the
//       string "value-<i>" and key "c<i>" to the integer i, with commit information "helper-<i>".
//       Prints the number of the last commit.
//
//   larder-test-helper commit-view <path> <count>
//       Registers the view "followed" (``followedView``: the strings of collection "followed",
//       one group "all", by key), then makes <count> commits: commit i sets key "f<i>" to the
//       string "value-<i>". Prints the number of the last commit.
//
//   larder-test-helper crash-writer <path> <full|nometasync|deferred> <batch-size>
//       Commits batches until killed, printing `ack <n>` after each commit (see CrashWriter.swift).
//
//   larder-test-helper persistent-set <path> <key> <integer>
//       Sets the `Persistent<Int>` under <key> (default collection) to <integer>.
//
//   larder-test-helper undo <path>
//       Undoes the newest undo step of the store and prints its name ("nothing" when none).
//
//   larder-test-helper hold-read <path>
//       Opens the store, pins a read snapshot, prints "reading" and sleeps until killed (a reader
//       that dies inside a read transaction).
//
//   larder-test-helper put-many | hold-write | read-as-nobody | many-readers | create-stores
//       Store locations, locks and opening: see StoreLockCommands.swift.
//
//   larder-test-helper power-writer <path> <full|nometasync|deferred> <count>
//   larder-test-helper power-check <state>:<required> ...
//   larder-test-helper sync-failure <directory> <trigger>
//   larder-test-helper commit-rate <directory> <rounds> <commits>
//       The power-loss suite's processes; see PowerLoss.swift.
//
//   larder-test-helper read <path> <collection> <key>
//       Opens the store and reads the stored object at <key> with the library (no page
//       verification first). Prints its byte count ("none" when missing) and exits 0, or prints
//       the LarderError code and exits 3.
//
//   larder-test-helper read-all <path> [pages|full]
//       Opens the store and reads every object of every collection, its metadata and the
//       statistics, with the library: with no verification, or with the open's verification
//       (`Configuration.verification`) `pages` or `full`. Prints the number of objects read and
//       exits 0, or prints the LarderError code and exits 3.
//
//   larder-test-helper exact-write <path> <hex collection>:<hex key>=<value> ...
//   larder-test-helper exact-watch <path> <hex collection>:<hex key> ...
//       Names spelled with different bytes that Swift's `==` calls equal; see ExactNames.swift.
//
//   larder-test-helper grow <path> <megabytes>
//       Opens the store with a 1 MiB initial map and writes <megabytes> MiB of 64 KiB values
//       into collection "grown" (keys "g00000"...), 1 MiB per transaction, so the map must
//       grow in this process. Each value is `helperPattern(index:)`. Prints the number of values.

import Larder
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of value `index` written by `grow` (the tests compute the same bytes).
func helperPattern(index: Int, count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    for position in 0..<count {
        bytes[position] = UInt8(truncatingIfNeeded: index &* 31 &+ position &* 7 &+ (position >> 8))
    }
    return bytes
}

func writeStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

func fail(_ message: String, status: Int32 = 1) -> Never {
    writeStandardError("larder-test-helper: " + message + "\n")
    exit(status)
}

func dropPrivileges() {
    guard getuid() == 0 else { return }
    let nobody: UInt32 = 65534
    guard setgroups(0, nil) == 0 else { fail("setgroups failed: errno \(errno)") }
    guard setgid(nobody) == 0 else { fail("setgid failed: errno \(errno)") }
    guard setuid(nobody) == 0 else { fail("setuid failed: errno \(errno)") }
    guard getuid() == nobody, geteuid() == nobody else { fail("still privileged after setuid") }
}

func openAsNobody(path: String) -> Never {
    dropPrivileges()
    do {
        let db = try Database(path: path)
        _ = db
        print("opened")
        exit(1)
    } catch let error as LarderError {
        print(error.code.rawValue)
        writeStandardError("larder-test-helper: \(error)\n")
        exit(error.code == .permissionDenied ? 0 : 1)
    } catch {
        print("other")
        fail("unexpected error: \(error)")
    }
}

func grow(path: String, megabytes: Int) -> Never {
    var configuration = Database.Configuration()
    configuration.initialMapSize = 1 << 20
    configuration.durability = .noMetaSync
    let valueSize = 64 << 10
    let perTransaction = (1 << 20) / valueSize
    do {
        let db = try Database(path: path, configuration: configuration)
        let total = megabytes * perTransaction
        var next = 0
        while next < total {
            let start = next
            let end = min(total, start + perTransaction)
            try db.write { txn in
                for index in start..<end {
                    try txn.setObject(helperPattern(index: index, count: valueSize), forKey: key(index), inCollection: "grown")
                }
            }
            next = end
        }
        let stored = try db.read { try $0.numberOfKeys(inCollection: "grown") }
        guard stored == total else { fail("wrote \(total) values but the store holds \(stored)") }
        print(total)
        exit(0)
    } catch {
        fail("grow failed: \(error)")
    }
}

func commit(path: String, count: Int, logLimit: Int) -> Never {
    var configuration = Database.Configuration()
    configuration.changeLogLimit = logLimit
    do {
        let db = try Database(path: path, configuration: configuration)
        var last: UInt64 = 0
        for i in 0..<count {
            last = try db.write { txn in
                try txn.setObject("value-\(i)", forKey: "shared", inCollection: "external")
                try txn.setObject(i, forKey: "c\(i)", inCollection: "external")
                try txn.setCommitInfo("helper-\(i)")
                return txn.lastCommit + 1
            }
        }
        print(last)
        exit(0)
    } catch {
        fail("commit failed: \(error)")
    }
}

/// The view a followed-view test registers in both processes, with the same tag.
let followedView = AutoView<String, NoMetadata>(collections: ["followed"], versionTag: "1", grouping: { _, _ in "all" }, sorting: { index, _ in TupleKey(index.key) })

func commitWithView(path: String, count: Int) -> Never {
    do {
        let db = try Database(path: path)
        try db.register(followedView, named: "followed")
        var last: UInt64 = 0
        for i in 0..<count {
            last = try db.write { txn in
                try txn.setObject("value-\(i)", forKey: "f\(i)", inCollection: "followed")
                return txn.lastCommit + 1
            }
        }
        print(last)
        exit(0)
    } catch {
        fail("commit-view failed: \(error)")
    }
}

func key(_ index: Int) -> String {
    let digits = String(index)
    return "g" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { fail("usage: larder-test-helper <command> ...", status: 2) }
switch arguments[1] {
case "open-as-nobody" where arguments.count == 3:
    openAsNobody(path: arguments[2])
case "grow" where arguments.count == 4:
    guard let megabytes = Int(arguments[3]), megabytes > 0 else { fail("grow: bad size", status: 2) }
    grow(path: arguments[2], megabytes: megabytes)
case "commit" where arguments.count == 5:
    guard let count = Int(arguments[3]), count > 0, let limit = Int(arguments[4]), limit > 0 else { fail("commit: bad numbers", status: 2) }
    commit(path: arguments[2], count: count, logLimit: limit)
case "commit-view" where arguments.count == 4:
    guard let count = Int(arguments[3]), count > 0 else { fail("commit-view: bad count", status: 2) }
    commitWithView(path: arguments[2], count: count)
case "persistent-set" where arguments.count == 5:
    guard let number = Int(arguments[4]) else { fail("persistent-set: not an integer", status: 2) }
    do {
        let value = try Persistent(try Database(path: arguments[2]), key: arguments[3], default: 0)
        try value.set(number)
        print(try value.value)
        exit(0)
    } catch {
        fail("persistent-set failed: \(error)")
    }
case "undo" where arguments.count == 3:
    do {
        print(try Database(path: arguments[2]).undo()?.name ?? "nothing")
        exit(0)
    } catch {
        fail("undo failed: \(error)")
    }
case "hold-read" where arguments.count == 3:
    do {
        let db = try Database(path: arguments[2])
        let connection = db.newConnection()
        try connection.pinSnapshot()
        var line = "reading\n"
        line.withUTF8 { bytes in _ = write(1, bytes.baseAddress, bytes.count) }
        while true { sleep(60) }
    } catch {
        fail("hold-read failed: \(error)")
    }
case "put-many" where arguments.count == 5:
    guard let count = Int(arguments[4]), count > 0 else { fail("put-many: bad count", status: 2) }
    putMany(path: arguments[2], prefix: arguments[3], count: count)
case "hold-write" where arguments.count == 3:
    holdWrite(path: arguments[2])
case "read-as-nobody" where arguments.count == 5:
    readAsNobody(path: arguments[2], collection: arguments[3], key: arguments[4])
case "many-readers" where arguments.count == 4:
    guard let count = Int(arguments[3]), count > 0 else { fail("many-readers: bad count", status: 2) }
    manyReaders(path: arguments[2], count: count)
case "create-stores" where arguments.count == 4:
    guard let count = Int(arguments[3]), count > 0 else { fail("create-stores: bad count", status: 2) }
    createStores(directory: arguments[2], count: count)
case "crash-writer" where arguments.count == 5:
    guard let size = Int(arguments[4]), size > 0 else { fail("crash-writer: bad batch size", status: 2) }
    crashWriter(path: arguments[2], durability: arguments[3], size: size)
case "power-writer" where arguments.count == 5:
    guard let count = Int(arguments[4]), count > 0 else { fail("power-writer: bad count", status: 2) }
    powerWriter(path: arguments[2], durability: arguments[3], count: count)
case "power-check" where arguments.count >= 3:
    powerCheck(arguments.dropFirst(2))
case "sync-failure" where arguments.count == 4:
    syncFailure(directory: arguments[2], trigger: arguments[3])
case "commit-rate" where arguments.count == 5:
    guard let rounds = Int(arguments[3]), rounds > 0, let commits = Int(arguments[4]), commits > 0 else { fail("commit-rate: bad numbers", status: 2) }
    commitRate(directory: arguments[2], rounds: rounds, commits: commits)
case "migrate-slowly" where arguments.count == 4:
    guard let size = Int(arguments[3]), size > 0 else { fail("migrate-slowly: bad chunk size", status: 2) }
    migrateSlowly(path: arguments[2], chunkSize: size)
case "exact-write" where arguments.count >= 4:
    exactWrite(path: arguments[2], assignments: arguments.dropFirst(3))
case "exact-watch" where arguments.count >= 4:
    exactWatch(path: arguments[2], arguments: arguments.dropFirst(3))
case "read" where arguments.count == 5:
    do {
        let stored = try Database(path: arguments[2]).read { try $0.storedObject(forKey: arguments[4], inCollection: arguments[3]) }
        print(stored.map { String($0.bytes.count) } ?? "none")
        exit(0)
    } catch let error as LarderError {
        print(error.code)
        exit(3)
    } catch {
        fail("read failed: \(error)")
    }
case "read-all" where arguments.count == 3 || (arguments.count == 4 && ["pages", "full"].contains(arguments[3])):
    do {
        var configuration = Database.Configuration()
        if arguments.count == 4 { configuration.verification = arguments[3] == "full" ? .full : .pages }
        let db = try Database(path: arguments[2], configuration: configuration)
        _ = try db.statistics()
        let count = try db.read { txn in
            var count = 0
            for collection in try txn.collections() {
                for key in try txn.keys(inCollection: collection) {
                    _ = try txn.storedObject(forKey: key, inCollection: collection)
                    _ = try txn.storedMetadata(forKey: key, inCollection: collection)
                    count += 1
                }
            }
            return count
        }
        print(count)
        exit(0)
    } catch let error as LarderError {
        print(error.code)
        exit(3)
    } catch {
        fail("read-all failed: \(error)")
    }
default:
    fail("unknown command or wrong arguments: \(arguments.dropFirst().joined(separator: " "))", status: 2)
}
