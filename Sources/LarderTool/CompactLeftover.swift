#if Extras
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A copy `larder compact` left beside a store (`<store>.compacting-<pid>`): a process killed
/// while it compacted never removed it. A full copy of the store, it would stay forever.
struct CompactLeftover {
    /// The copy's path: a directory for a directory store, a file for a single-file store.
    var path: String
    /// The process that made it.
    var pid: pid_t
    /// Its size in bytes (the data file's).
    var bytes: Int

    /// Whether the process that made it is still running (then it is a compaction in progress,
    /// never touched). A process that exited long ago may have left its number to another: then
    /// the leftover is kept until that one ends too, which errs on the safe side.
    var isLive: Bool { kill(pid, 0) == 0 || errno == EPERM }

    /// The leftovers beside the store at `path`, live or not.
    static func find(beside path: String) -> [CompactLeftover] {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        let url = URL(fileURLWithPath: trimmed)
        let directory = url.deletingLastPathComponent().path
        let prefix = url.lastPathComponent + ".compacting-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.compactMap { name in
            guard name.hasPrefix(prefix), let pid = pid_t(name.dropFirst(prefix.count)), pid > 0 else { return nil }
            let leftover = directory == "/" ? "/" + name : directory + "/" + name
            var status = stat()
            guard lstat(leftover, &status) == 0 else { return nil }
            var bytes = Int(status.st_size)
            if (status.st_mode & S_IFMT) == S_IFDIR {
                var data = stat()
                bytes = stat(leftover + "/data.mdb", &data) == 0 ? Int(data.st_size) : 0
            }
            return CompactLeftover(path: leftover, pid: pid, bytes: bytes)
        }.sorted { $0.path < $1.path }
    }

    /// Removes the leftovers of processes that are no longer running; returns them.
    @discardableResult
    static func removeDead(beside path: String) -> [CompactLeftover] {
        let dead = find(beside: path).filter { !$0.isLive }
        for leftover in dead { leftover.remove() }
        return dead
    }

    /// Removes the copy: its data and lock files, and its directory.
    func remove() {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            unlink(path + "/data.mdb")
            unlink(path + "/lock.mdb")
            rmdir(path)
        } else {
            unlink(path)
            unlink(path + "-lock")
        }
    }

    /// A line for `info` and `check`.
    var summary: String {
        isLive
            ? "\(path) (\(byteCount(bytes))): a compaction by process \(pid), still running"
            : "\(path) (\(byteCount(bytes))): left by a compaction whose process (\(pid)) ended without finishing; `larder compact` removes it, or delete it"
    }
}

extension CompactLeftover {
    static func json(_ leftover: CompactLeftover) -> JSONValue {
        .object([
            JSONMember("path", .string(leftover.path)),
            JSONMember("pid", .integer(Int64(leftover.pid))),
            JSONMember("bytes", .integer(Int64(leftover.bytes))),
            JSONMember("live", .bool(leftover.isLive)),
        ])
    }
}
#endif
