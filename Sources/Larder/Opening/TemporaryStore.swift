#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The directory of a store made by ``Database/temporary(configuration:)``, removed when the store
/// closes in this process. A directory whose process died first is removed by the next
/// temporary store made on the machine (its name carries the process id).
final class TemporaryStore: StoreClosingFeature, @unchecked Sendable {
    // Immutable after init.
    let directory: String

    init(directory: String) {
        self.directory = directory
    }

    func storeWillClose() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The prefix of every temporary store's directory name.
    static let namePrefix = "larder-temporary-"

    /// Where temporary stores go: `/dev/shm` (memory) where it is a writable directory, else the
    /// system's temporary directory.
    static var baseDirectory: String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory), isDirectory.boolValue,
           access("/dev/shm", W_OK | X_OK) == 0 {
            return "/dev/shm"
        }
        return FileManager.default.temporaryDirectory.path
    }

    /// Removes the temporary stores in `base` whose process no longer runs.
    static func removeOrphans(in base: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base) else { return }
        for name in names where name.hasPrefix(namePrefix) {
            let rest = name.dropFirst(namePrefix.count)
            guard let pid = rest.split(separator: "-").first.flatMap({ Int32($0) }), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: base + "/" + name)
            }
        }
    }

    /// A new private directory for a temporary store in `base`.
    static func makeDirectory(in base: String) throws -> String {
        let path = base + "/" + namePrefix + "\(getpid())-" + UUID().uuidString
        guard mkdir(path, 0o700) == 0 else {
            let code = errno
            throw LarderError(code == EACCES || code == EPERM ? .permissionDenied : .io, "cannot create the temporary store's directory: \(String(cString: strerror(code)))", operation: "temporary", path: path)
        }
        return path
    }
}

extension Database {
    /// A new, empty, private store for tests and scratch work, removed when it closes.
    ///
    /// ```swift
    /// let db = try Database.temporary()
    /// try db.write { try $0.setObject("draft", forKey: "d1", inCollection: "notes") }
    /// db.close()   // the files are gone
    /// ```
    ///
    /// The store lives in a directory of its own, readable by this user only, in memory where the
    /// system offers it (`/dev/shm` on Linux), else in the temporary directory. It is removed when
    /// the store closes in this process: ``close()-1m8tz``, or the release of the last `Database`
    /// on it. If the process dies first, the next temporary store made on the machine removes it.
    /// Everything else is a store like any other: extensions, observation, other connections.
    ///
    /// - Parameter configuration: as for ``init(path:configuration:)``.
    /// - Throws: ``LarderError`` when the directory cannot be made
    ///   (``LarderError/Code/permissionDenied``, ``LarderError/Code/io``) or the store cannot be
    ///   opened, as ``init(path:configuration:)`` says.
    public static func temporary(configuration: Configuration = Configuration()) throws -> Database {
        let base = TemporaryStore.baseDirectory
        TemporaryStore.removeOrphans(in: base)
        let directory = try TemporaryStore.makeDirectory(in: base)
        do {
            let db = try Database(path: directory + "/store", configuration: configuration)
            db.shared.feature(TemporaryStore.self) { TemporaryStore(directory: directory) }
            return db
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }
}
