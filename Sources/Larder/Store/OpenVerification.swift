import Foundation

/// What opening a store checks first (``Database/Configuration/verification``), for stores that
/// may be damaged: files that came from elsewhere (a download, a backup, a user's folder), or a
/// disk that cannot be trusted.
///
/// ```swift
/// var configuration = Database.Configuration()
/// configuration.verification = .pages
/// let db = try Database(path: documentPath, configuration: configuration)  // throws `corrupted`, never crashes
/// ```
///
/// A store that fails the check is not opened: the open throws ``LarderError/Code/corrupted``
/// with the first problem in its message, and nothing is read through LMDB. Restore it from a
/// backup, or inspect it with `larder check`.
public enum OpenVerification: Sendable, Equatable {
    /// No check (the default): LMDB reads the file as it is.
    case none
    /// Every page reachable from the store's meta page is read once with `pread` and checked
    /// (``Database/verifyPages(path:)``) before LMDB maps the file: a damaged page, a truncated
    /// or overwritten file, or a damaged meta page is refused instead of crashing the process
    /// later. Values whose bytes changed inside sound pages are not seen (see ``full``).
    /// - Complexity: O(pages in use): one read of the data in use. See
    ///   Documentation/Reliability.md for its measured cost per MB.
    case pages
    /// ``pages``, then ``Database/checkStructure()`` once the store is open: every key, value
    /// frame, checksum (with ``Database/Configuration/checksumsValues``), count and change log
    /// entry. Changed bytes that pages alone cannot see are refused too.
    /// - Complexity: O(entries): a walk of every tree, several times the cost of ``pages``.
    case full
}

extension Database {
    /// The page check of ``OpenVerification/pages``: a store that is there must have sound
    /// pages before LMDB maps it. A path with nothing there is left to the open (which creates
    /// a store, or says why not).
    static func verifyBeforeOpening(path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return }
        let dataFile = isDirectory.boolValue ? path + "/data.mdb" : path
        // Nothing written yet (a new directory, an empty file): the open makes the store.
        guard let size = (try? FileManager.default.attributesOfItem(atPath: dataFile))?[.size] as? Int, size > 0 else { return }
        let report = try verifyPages(path: path)
        if let first = report.problems.first {
            throw LarderError(.corrupted, "the store's pages are damaged (\(report.problemCount) problem\(report.problemCount == 1 ? "" : "s"), the first: \(first.detail)); nothing was read. Restore it from a backup, or run `larder check` on it for the details", operation: "open", path: path)
        }
    }

}
